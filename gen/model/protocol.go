package model

import (
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// protocolMinors is the newest minor of protocol 3 each major speaks, from
// its manual: a note of a frontend/backend message "Before protocol version
// 3.N, …" says what 3.N changed, so a major whose manual says it speaks
// 3.N (18's BackendKeyData and CancelRequest: 3.2); a major speaks what an
// earlier one spoke (PostgreSQL keeps its older minors). A major without
// such a note speaks 3.0.
func protocolMinors(specs []*spec.Spec) map[int]int {
	out := map[int]int{}
	newest := 0
	for _, s := range specs { // increasing majors
		for i := range s.Messages {
			m := &s.Messages[i]
			if m.Layer != spec.LayerFrontendBackend {
				continue
			}
			for _, n := range m.Notes {
				for _, a := range n.Annotations {
					if minor, ok := protocol3Minor(a); ok && minor > newest {
						newest = minor
					}
				}
			}
		}
		out[s.Major] = newest
	}
	return out
}

// protocol3Minor is N of a protocol-change annotation naming 3.N.
func protocol3Minor(a spec.Annotation) (int, bool) {
	if a.Kind != spec.AnnProtocolChange {
		return 0, false
	}
	v, ok := strings.CutPrefix(a.Value, "3.")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}
