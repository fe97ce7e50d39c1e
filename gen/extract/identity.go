package extract

import (
	"slices"
	"strings"
	"unicode"

	"github.com/pgspec/pgspec/spec"
)

// Kebab turns a message name into a slug word list: "AuthenticationMD5Password"
// → "authentication-md5-password", "Primary keepalive message" →
// "primary-keepalive-message". Words break at spaces, at a lower-case letter
// or digit followed by an upper-case one, and before the last capital of an
// upper-case run followed by lower case ("SASLInitial" → "sasl-initial") —
// except where the break would leave a one-letter word ("XLogData" →
// "xlog-data").
func Kebab(name string) string {
	var words []string
	for _, field := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		words = append(words, splitCamel(field)...)
	}
	return strings.ToLower(strings.Join(words, "-"))
}

func splitCamel(s string) []string {
	rs := []rune(s)
	var words []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		brk := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
		if unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
			brk = true
		}
		if brk && i-start > 1 {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	return append(words, string(rs[start:]))
}

// slugPrefix keeps the three layers' slugs apart ("logical-update" vs "update").
var slugPrefix = map[string]string{
	spec.LayerFrontendBackend:      "",
	spec.LayerLogicalReplication:   "logical-",
	spec.LayerStreamingReplication: "replication-",
}

// identity is what makes two majors' entries the same message. Streaming
// replication sub-messages are renamed and re-capitalised between majors
// (XLogData → WALData in 19), so there the tag byte and direction decide;
// elsewhere the name does, compared case-insensitively through Kebab.
func identity(m *spec.Message) string {
	if m.Layer == spec.LayerStreamingReplication {
		return m.Layer + "/" + m.Direction + "/" + m.Blocks[0].Rows[0].Type.Tag
	}
	return m.Layer + "/" + Kebab(m.Name)
}

// assignSlugs gives every message across all majors its slug (from the name
// in the earliest major that has it) and its aliases (every English name the
// identity carries in any major).
func assignSlugs(specs []*spec.Spec) {
	slugs := map[string]string{}
	aliases := map[string][]string{}
	for _, s := range specs {
		for i := range s.Messages {
			m := &s.Messages[i]
			id := identity(m)
			if _, ok := slugs[id]; !ok {
				slugs[id] = slugPrefix[m.Layer] + Kebab(m.Name)
			}
			if !slices.Contains(aliases[id], m.Name) {
				aliases[id] = append(aliases[id], m.Name)
			}
		}
	}
	for _, names := range aliases {
		slices.Sort(names)
	}
	for _, s := range specs {
		for i := range s.Messages {
			m := &s.Messages[i]
			id := identity(m)
			m.Slug = slugs[id]
			m.Aliases = slices.Clone(aliases[id])
		}
	}
}
