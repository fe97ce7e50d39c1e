package matrix

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Facts are the protocol-level facts a codec user needs from one major's
// documentation, read from the spec rather than written down by hand.
type Facts struct {
	Major     int    `json:"major"`
	Release   string `json:"release"`
	ReleaseZh string `json:"release_zh,omitempty"`
	// Messages counts the documented messages and parts per layer.
	Messages map[string]int `json:"messages"`
	// StartupVersion is StartupMessage's protocol version field: "3.0" for
	// Int32(196608), "3.2" for Int32(196610), "" when the field has no fixed value.
	StartupVersion string `json:"startup_version"`
	// ProtocolVersions are the frontend/backend protocol versions ("3.2")
	// the message descriptions name.
	ProtocolVersions []string `json:"protocol_versions"`
	// LogicalVersions are the logical replication protocol versions ("2")
	// the logical replication messages name.
	LogicalVersions []string `json:"logical_versions"`
	// ErrorFields are the error and notice field codes; NewErrorFields
	// those the previous major did not have (nil for the first major).
	ErrorFields    []string `json:"error_fields"`
	NewErrorFields []string `json:"new_error_fields"`
}

var (
	dottedVersionRE  = regexp.MustCompile(`protocol version (\d+\.\d+)`)
	logicalVersionRE = regexp.MustCompile(`protocol version (\d+)(?:$|[^.\d]|\.$|\.\D)`)
)

// AllFacts returns the facts of every major of h.
func (h *History) AllFacts() []Facts {
	var out []Facts
	for i, s := range h.Specs {
		f := Facts{
			Major:            s.Major,
			Release:          s.Release,
			ReleaseZh:        s.ReleaseZh,
			Messages:         map[string]int{},
			StartupVersion:   startupVersion(s),
			ProtocolVersions: mentioned(s, spec.LayerFrontendBackend, dottedVersionRE),
			LogicalVersions:  mentioned(s, spec.LayerLogicalReplication, logicalVersionRE),
			ErrorFields:      errorCodes(s),
		}
		for _, m := range s.Messages {
			f.Messages[m.Layer]++
		}
		if i > 0 {
			prev := out[i-1].ErrorFields
			f.NewErrorFields = []string{}
			for _, c := range f.ErrorFields {
				if !slices.Contains(prev, c) {
					f.NewErrorFields = append(f.NewErrorFields, c)
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// startupVersion decodes the fixed value of StartupMessage's version field:
// major in the high 16 bits, minor in the low 16.
func startupVersion(s *spec.Spec) string {
	for _, m := range s.Messages {
		if m.Name != "StartupMessage" {
			continue
		}
		for _, r := range m.Rows() {
			if v := r.Type.Value; v != nil && *v > 0xffff {
				return fmt.Sprintf("%d.%d", *v>>16, *v&0xffff)
			}
		}
	}
	return ""
}

// mentioned collects the first capture of re across the English texts of a
// layer's messages, sorted and without repeats.
func mentioned(s *spec.Spec, layer string, re *regexp.Regexp) []string {
	found := []string{}
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Layer != layer {
			continue
		}
		for _, t := range english(m) {
			for _, match := range re.FindAllStringSubmatch(t, -1) {
				found = append(found, match[1])
			}
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

func errorCodes(s *spec.Spec) []string {
	codes := []string{}
	for _, t := range s.ErrorFields {
		codes = append(codes, strings.TrimSpace(t.Term))
	}
	return codes
}
