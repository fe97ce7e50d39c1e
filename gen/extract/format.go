package extract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// The notations of the manual's "Message Data Types" page. Parentheses may be
// full-width in the Chinese pages; ParseFormat accepts both.
var (
	intRE   = regexp.MustCompile(`^Int(8|16|32|64)(?:\((-?\d+)\)|\[([A-Za-z]\w*)\])?(?:\s*\(([A-Z]\w*)\))?$`)
	byte1RE = regexp.MustCompile(`^Byte1(?:\('(.)'\))?$`)
	bytesRE = regexp.MustCompile(`^Byte(\d+|[a-z])$`)
	partRE  = regexp.MustCompile(`^([A-Z][A-Za-z]+Data)$`)
)

// ParseFormat parses a field term such as "Int32(8)", "Int16[C]",
// "Int64 (XLogRecPtr)", "Byte1('K')", "Byten" or "TupleData" into a Type.
func ParseFormat(format string) (spec.Type, error) {
	f := strings.NewReplacer("（", "(", "）", ")").Replace(format)
	if m := intRE.FindStringSubmatch(f); m != nil {
		bits, _ := strconv.Atoi(m[1])
		t := spec.Type{Kind: spec.KindInt, Width: bits / 8, Array: m[3], Annotation: m[4]}
		if m[2] != "" {
			v, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil {
				return spec.Type{}, fmt.Errorf("format %q: fixed value: %w", format, err)
			}
			t.Value = &v
		}
		return t, nil
	}
	if m := byte1RE.FindStringSubmatch(f); m != nil {
		return spec.Type{Kind: spec.KindByte, Width: 1, Tag: m[1]}, nil
	}
	if m := bytesRE.FindStringSubmatch(f); m != nil {
		if w, err := strconv.Atoi(m[1]); err == nil {
			return spec.Type{Kind: spec.KindBytes, Width: w}, nil
		}
		return spec.Type{Kind: spec.KindBytes, Length: m[1]}, nil
	}
	if f == "String" {
		return spec.Type{Kind: spec.KindString}, nil
	}
	if m := partRE.FindStringSubmatch(f); m != nil {
		return spec.Type{Kind: spec.KindPart, Part: m[1]}, nil
	}
	return spec.Type{}, fmt.Errorf("unknown format %q", format)
}
