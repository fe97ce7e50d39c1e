package trace

import (
	"reflect"
	"strings"
	"sync"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/spec"
)

// messageName is what the manual of the given major (0: the newest) calls
// m: the Go type's name, unless the manuals renamed the message (XLogData
// became WALData in 19), in which case the major's own name.
func messageName(m codec.Message, major int) string {
	if names, ok := renamed()[m.Slug()]; ok {
		if major == 0 {
			major = codec.NewestMajor
		}
		if major < len(names) && names[major] != "" {
			return names[major]
		}
	}
	return reflect.TypeOf(m).Elem().Name()
}

// renamed maps the slug of every message the manuals call by different
// names (beyond case and spacing) to its name per major, from the spec
// compiled into the program.
var renamed = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	specs, err := spec.LoadAll(spec.Embedded())
	if err != nil {
		panic("pgtrace: the embedded spec does not load: " + err.Error()) // a build defect, caught by the tests
	}
	for _, s := range specs {
		for _, m := range s.Messages {
			if !renamedAcrossMajors(m.Aliases) {
				continue
			}
			names := out[m.Slug]
			if names == nil {
				names = make([]string, codec.NewestMajor+1)
				out[m.Slug] = names
			}
			if s.Major < len(names) {
				names[s.Major] = strings.ReplaceAll(m.Name, " ", "")
			}
		}
	}
	return out
})

// renamedAcrossMajors reports whether names differ other than in case and spacing.
func renamedAcrossMajors(names []string) bool {
	for _, n := range names {
		if normalName(n) != normalName(names[0]) {
			return true
		}
	}
	return false
}

func normalName(n string) string { return strings.ToLower(strings.ReplaceAll(n, " ", "")) }
