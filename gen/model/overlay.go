package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
)

// OverlayFile is the overlay's file name in the spec directory.
const OverlayFile = "overlay.json"

// Overlay is spec/overlay.json: everything the generator needs that the
// manual does not say in a machine-readable way, reviewed by hand. Every
// entry that decides structure carries a reason.
type Overlay struct {
	// Messages maps a spec slug to its entry.
	Messages map[string]*MessageEntry `json:"messages"`
	// ErrorFields maps an error/notice field code (e.g. "S") to its Go name.
	ErrorFields map[string]string `json:"error_fields"`
}

// MessageEntry names one message and says how to read its rows.
type MessageEntry struct {
	// Name is the Go type name.
	Name string `json:"name"`
	// State tells messages that share a frontend tag apart ('p'): the
	// conversation state in which the frontend sends this one.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason"`
	// Fields match the message's rows; every row that is not derived (tag,
	// length, fixed value, count, byte length) must match exactly one.
	Fields []*FieldEntry `json:"fields,omitempty"`
	// Groups name the repeated groups opened by a lead paragraph.
	Groups []*GroupEntry `json:"groups,omitempty"`
}

// FieldEntry matches rows by their English description (case-insensitive
// regexp, so a field keeps its name when the wording changes), optionally
// narrowed by format and majors, and says what they become.
type FieldEntry struct {
	Match  string `json:"match"`
	Format string `json:"format,omitempty"`
	// Majors narrows the entry: "14", "10-13", "18-".
	Majors string `json:"majors,omitempty"`

	// Name is the Go field name.
	Name string `json:"name,omitempty"`
	// Type overrides the Go type of an IntN field (uint32 for an OID).
	Type string `json:"type,omitempty"`
	// AsBytes carries an IntN field as its N raw bytes in a []byte, so
	// the field keeps one Go type in majors where the manual made it Byten.
	AsBytes bool `json:"as_bytes,omitempty"`
	// Fixed keeps a Byte1('x') that follows the tag as a constant.
	Fixed bool `json:"fixed,omitempty"`
	// Choice makes the matched Byte1('x') rows one byte field holding one of
	// their tags: "required", or "optional" (0 when none is present).
	Choice string `json:"choice,omitempty"`
	// When makes the field present only when the named choice field holds
	// one of Tags (any of its tags when Tags is empty).
	When string `json:"when,omitempty"`
	Tags string `json:"tags,omitempty"`
	// Gate makes the field present only in some state: "streamed" (inside
	// a streamed transaction) or "parallel" (parallel streaming).
	Gate string `json:"gate,omitempty"`
	// Null overrides whether an Int32 length of -1 means a nil Byten.
	Null *bool `json:"null,omitempty"`
	// Prefixed overrides whether a Byten has an Int32 length just before it.
	Prefixed *bool `json:"prefixed,omitempty"`
	// ProtocolLengths bounds a Byten that runs to the end of the message,
	// by protocol minor version: {"0": [4, 4], "2": [4, 256]}.
	ProtocolLengths map[string][2]int `json:"protocol_lengths,omitempty"`

	Reason string `json:"reason,omitempty"`

	re, formatRE *regexp.Regexp
	lo, hi       int
	gate         Gate
	intType      GoType
}

// GroupEntry names the repeated group a lead paragraph opens.
type GroupEntry struct {
	// Lead is a case-insensitive regexp on the lead paragraph's English text.
	Lead string `json:"lead"`
	// Name is the Go field holding the elements.
	Name string `json:"name"`
	// Type is the element struct's Go name; without it the group must have
	// one field per element, and the slice holds that field's values.
	Type string `json:"type,omitempty"`
	// Terminated overrides whether the group ends with a zero byte rather
	// than being counted.
	Terminated *bool  `json:"terminated,omitempty"`
	Reason     string `json:"reason,omitempty"`

	re *regexp.Regexp
}

var goIdent = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// LoadOverlay reads and checks the overlay file in fsys. Problems that need
// the spec (entries matching nothing, rows left unnamed) are found by Build.
func LoadOverlay(fsys fs.FS) (*Overlay, error) {
	data, err := fs.ReadFile(fsys, OverlayFile)
	if err != nil {
		return nil, err
	}
	return ParseOverlay(data)
}

// ParseOverlay decodes overlay JSON, rejecting unknown keys, and compiles and
// checks every entry, reporting all problems at once.
func ParseOverlay(data []byte) (*Overlay, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var ov Overlay
	if err := dec.Decode(&ov); err != nil {
		return nil, fmt.Errorf("%s: %w", OverlayFile, err)
	}
	var p problems
	for _, slug := range sortedKeys(ov.Messages) {
		me := ov.Messages[slug]
		where := slug
		if me == nil {
			p.addf("%s: empty entry", where)
			continue
		}
		if !goIdent.MatchString(me.Name) {
			p.addf("%s: name %q is not an exported Go identifier", where, me.Name)
		}
		if me.Reason == "" {
			p.addf("%s: no reason", where)
		}
		for i, fe := range me.Fields {
			fe.check(&p, fmt.Sprintf("%s: field %d (%q)", where, i, fe.Match))
		}
		for i, ge := range me.Groups {
			w := fmt.Sprintf("%s: group %d (%q)", where, i, ge.Lead)
			re, err := regexp.Compile("(?i)" + ge.Lead)
			if err != nil {
				p.addf("%s: %v", w, err)
			}
			ge.re = re
			if !goIdent.MatchString(ge.Name) {
				p.addf("%s: name %q is not an exported Go identifier", w, ge.Name)
			}
			if ge.Type != "" && !goIdent.MatchString(ge.Type) {
				p.addf("%s: type %q is not an exported Go identifier", w, ge.Type)
			}
			if ge.Terminated != nil && ge.Reason == "" {
				p.addf("%s: terminated needs a reason", w)
			}
		}
	}
	for _, code := range sortedKeys(ov.ErrorFields) {
		if len(code) != 1 || !goIdent.MatchString(ov.ErrorFields[code]) {
			p.addf("error_fields: %q: %q is not a one-byte code with an exported Go name", code, ov.ErrorFields[code])
		}
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return &ov, nil
}

func (fe *FieldEntry) check(p *problems, where string) {
	var err error
	if fe.re, err = regexp.Compile("(?i)" + fe.Match); err != nil {
		p.addf("%s: match: %v", where, err)
	}
	if fe.Format != "" {
		if fe.formatRE, err = regexp.Compile("^(?:" + fe.Format + ")$"); err != nil {
			p.addf("%s: format: %v", where, err)
		}
	}
	if fe.lo, fe.hi, err = parseMajors(fe.Majors); err != nil {
		p.addf("%s: majors: %v", where, err)
	}
	switch {
	case fe.Fixed && fe.Name != "":
		p.addf("%s: a fixed row has no name", where)
	case !fe.Fixed && !goIdent.MatchString(fe.Name):
		p.addf("%s: field without a name (or %q is not an exported Go identifier)", where, fe.Name)
	}
	var ok bool
	if fe.intType, ok = parseIntType(fe.Type); fe.Type != "" && !ok {
		p.addf("%s: type %q is not a Go integer type", where, fe.Type)
	}
	if fe.Choice != "" && fe.Choice != "required" && fe.Choice != "optional" {
		p.addf("%s: choice %q is neither required nor optional", where, fe.Choice)
	}
	if fe.gate, ok = ParseGate(fe.Gate); !ok {
		p.addf("%s: unknown gate %q", where, fe.Gate)
	}
	if fe.Tags != "" && fe.When == "" {
		p.addf("%s: tags without when", where)
	}
	for k, v := range fe.ProtocolLengths {
		if _, err := strconv.Atoi(k); err != nil || v[0] < 0 || v[0] > v[1] {
			p.addf("%s: protocol_lengths %q: %v is not a minor version with [min, max]", where, k, v)
		}
	}
	decides := fe.Fixed || fe.AsBytes || fe.Choice != "" || fe.When != "" || fe.Gate != "" ||
		fe.Null != nil || fe.Prefixed != nil || fe.ProtocolLengths != nil || fe.Majors != ""
	if decides && fe.Reason == "" {
		p.addf("%s: decides structure but has no reason", where)
	}
}

// parseMajors reads "", "14", "10-13", "18-" or "-17" into an inclusive range.
func parseMajors(s string) (lo, hi int, err error) {
	if s == "" {
		return 0, 1 << 30, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		b = a
	}
	lo, hi = 0, 1<<30
	if a != "" {
		if lo, err = strconv.Atoi(a); err != nil {
			return 0, 0, err
		}
	}
	if b != "" {
		if hi, err = strconv.Atoi(b); err != nil {
			return 0, 0, err
		}
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("%d > %d", lo, hi)
	}
	return lo, hi, nil
}

// matches reports whether the entry applies to a row of major.
func (fe *FieldEntry) matches(major int, format, description string) bool {
	return major >= fe.lo && major <= fe.hi && fe.re.MatchString(description) &&
		(fe.formatRE == nil || fe.formatRE.MatchString(format))
}

// problems collects every problem found so all are reported at once.
type problems []string

func (p *problems) addf(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return &ProblemsError{Problems: p}
}

// ProblemsError lists every problem found in the spec and overlay.
type ProblemsError struct {
	Problems []string
}

func (e *ProblemsError) Error() string {
	return fmt.Sprintf("%d problem(s):\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}
