package export

import (
	"bytes"
	"fmt"
	"strings"
)

// compactSorted is the hashed form: compact JSON with sorted keys and
// non-ASCII escaped, as Python's json.dumps(sort_keys=True,
// separators=(",", ":")) writes it. The seed's English fields are ASCII,
// so whether pg.center escapes non-ASCII is not known; its default does.
func compactSorted(d ComparisonData) []byte {
	var b bytes.Buffer
	b.WriteString(`{"fields":[`)
	for i, f := range d.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"description":%s,"format":%s}`, pyString(f.Description), pyString(f.Format))
	}
	fmt.Fprintf(&b, `],"layer":%s}`, pyString(d.Layer))
	return b.Bytes()
}

// pyString quotes s as Python's json module does with ensure_ascii.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r > 0x7e && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
