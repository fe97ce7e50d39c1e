package spec

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// OverlayFile is the overlay's file name in the spec directory.
const OverlayFile = "overlay.json"

// Overlay is spec/overlay.json: the decisions the generator needs that the
// manual cannot make, reviewed by hand. What the manual's names and the
// structure recognised in its prose already say (message names, gates,
// alternatives, presence) is derived by the generator and has no entry
// here; every entry that decides structure carries its reason.
type Overlay struct {
	// Fields name rows in any message: a row that no entry of its own
	// message matches takes the one shared entry that matches it. Field
	// names are the one thing the manual never prints.
	Fields []*FieldEntry `json:"fields,omitempty"`
	// Messages maps a spec slug to the decisions about that message.
	Messages map[string]*MessageEntry `json:"messages,omitempty"`
	// ErrorFields overrides the Go name derived from an error/notice field
	// code's label ("S" → Severity) where the label does not make one.
	ErrorFields map[string]*NameEntry `json:"error_fields,omitempty"`
	// Pgoutput maps a pgoutput parameter to the majors whose manual is
	// silent about it although their server takes it.
	Pgoutput map[string]*SourceCorrection `json:"pgoutput,omitempty"`
	// Results maps a command's slug to the result sets its manual
	// describes only in prose: their Go names and the server's columns.
	Results map[string][]*ResultEntry `json:"results,omitempty"`
	// Options maps a command's slug and an option's name to how the server
	// reads the option's value where the manual does not say.
	Options map[string]map[string]*OptionEntry `json:"options,omitempty"`
	// Rules are the spec directory's rule tables (layers.json,
	// logicalversions.json), which LoadOverlay reads beside it.
	Rules *Rules `json:"-"`
}

// RuleTables are the overlay's rule tables, or the embedded ones for an
// overlay parsed without its spec directory.
func (ov *Overlay) RuleTables() *Rules {
	if ov.Rules != nil {
		return ov.Rules
	}
	return EmbeddedRules()
}

// NameEntry overrides a derived Go name.
type NameEntry struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// MessageEntry says what the manual does not about one message.
type MessageEntry struct {
	// Name overrides the Go type name derived from the manual's name.
	Name string `json:"name,omitempty"`
	// State tells messages that share a frontend tag apart ('p'): the
	// conversation state in which the frontend sends this one.
	State string `json:"state,omitempty"`
	// Secret names the fields PostgreSQL never logs (passwords, SASL and
	// GSSAPI data, cancel keys): tools print them only when asked.
	Secret []string `json:"secret,omitempty"`
	// Reason explains Name, State and Secret.
	Reason string `json:"reason,omitempty"`
	// Fields match the message's rows before the shared Fields do.
	Fields []*FieldEntry `json:"fields,omitempty"`
	// Groups name the repeated groups opened by a lead paragraph.
	Groups []*GroupEntry `json:"groups,omitempty"`
	// Answer is the server's one-byte answer to this untagged request,
	// which the manual describes only in prose.
	Answer *AnswerEntry `json:"answer,omitempty"`
}

// SourceCorrection adds majors the manual leaves out: their server has
// what their manual does not document, as its C source shows.
type SourceCorrection struct {
	// Majors are the majors added: "14", "10-13".
	Majors   string      `json:"majors"`
	Reason   string      `json:"reason"`
	Evidence []SourceRef `json:"evidence"`

	lo, hi int
}

// Range is the entry's majors as an inclusive range.
func (sc *SourceCorrection) Range() (lo, hi int) { return sc.lo, sc.hi }

// ResultEntry decides what a prose result set does not say: a Go name,
// its columns' names (the server's) and their types where the sentence
// gives none, with the server's source as evidence.
type ResultEntry struct {
	// Match is a case-insensitive regexp on the set's English lead.
	Match    string              `json:"match"`
	Name     string              `json:"name"`
	Columns  []ResultColumnEntry `json:"columns"`
	Reason   string              `json:"reason"`
	Evidence []SourceRef         `json:"evidence"`

	re *regexp.Regexp
}

// OptionEntry corrects what the manual implies of an option's values.
type OptionEntry struct {
	// ExactValues: the server compares the value with its set as written
	// (strcmp), where its other keyword options take any case.
	ExactValues bool `json:"exact_values,omitempty"`
	// BooleanValues: the server reads the value as a boolean first
	// (parse_bool), so yes and no have every spelling of one.
	BooleanValues bool        `json:"boolean_values,omitempty"`
	Reason        string      `json:"reason"`
	Evidence      []SourceRef `json:"evidence"`
}

// ResultColumnEntry names one column; Type only where the prose has none.
type ResultColumnEntry struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// Matches reports whether the entry is the one for a prose set's lead.
func (re *ResultEntry) Matches(lead string) bool { return re.re != nil && re.re.MatchString(lead) }

// SourceRef is one place of PostgreSQL's source, as released.
type SourceRef struct {
	// Release is the source package's version: "15.18".
	Release  string `json:"release"`
	File     string `json:"file"`
	Function string `json:"function"`
	// Lines are the line numbers in that release: "515-517".
	Lines string `json:"lines"`
	// Says is what those lines do.
	Says string `json:"says"`
}

// AnswerEntry makes the one-byte answer to a request a message of the
// codec: SSLRequest's 'S' or 'N', GSSENCRequest's 'G' or 'N'. The manual
// prints no table for it, so the entry is the table: one row per byte.
type AnswerEntry struct {
	// Name is the Go type; the slug is the request's with "-request"
	// replaced by "-response".
	Name string `json:"name"`
	// Field is the Go field holding the byte.
	Field string `json:"field"`
	// Doc says what the message is.
	Doc string `json:"doc"`
	// Bytes are the bytes it may be, each with what it means.
	Bytes []AnswerByte `json:"bytes"`
	// Reason gives the evidence (the manual's prose, the server's source).
	Reason string `json:"reason"`
}

// AnswerByte is one byte an answer may be.
type AnswerByte struct {
	Byte string `json:"byte"`
	Doc  string `json:"doc"`
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
	Name string `json:"name"`
	// Type overrides the Go type of an IntN field (uint32 for an OID).
	Type string `json:"type,omitempty"`
	// AsBytes carries an IntN field as its N raw bytes in a []byte, so
	// the field keeps one Go type in majors where the manual made it Byten.
	AsBytes bool `json:"as_bytes,omitempty"`
	// Choice overrides whether the matched Byte1('x') rows, one byte field
	// holding one of their tags, may be absent: "required" or "optional".
	Choice string `json:"choice,omitempty"`
	// When makes the field present only when the named choice field holds
	// one of Tags (any of its tags when Tags is empty).
	When string `json:"when,omitempty"`
	Tags string `json:"tags,omitempty"`
	// Gate overrides the streaming state the field needs: "streamed" or
	// "parallel".
	Gate string `json:"gate,omitempty"`
	// Null overrides whether an Int32 length of -1 means a nil Byten.
	Null *bool `json:"null,omitempty"`
	// Prefixed overrides whether a Byten has an Int32 length just before it.
	Prefixed *bool `json:"prefixed,omitempty"`
	// ProtocolLengths bounds a Byten that runs to the end of the message,
	// by protocol minor version: {"0": [4, 4], "2": [4, 256]}.
	ProtocolLengths map[string][2]int `json:"protocol_lengths,omitempty"`
	// Kind is what an integer the manual does not annotate means: one of
	// Kinds ("lsn" for a WAL position it describes in words).
	Kind string `json:"kind,omitempty"`

	// Correction names the majors ("14-") in which the entry departs from
	// what the manual prints, because the server does otherwise (the
	// reason gives the evidence); pgspec show notes it under the table.
	Correction string `json:"correction,omitempty"`

	Reason string `json:"reason,omitempty"`

	re, formatRE *regexp.Regexp
	lo, hi       int
	corrLo       int
	corrHi       int
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

// Values a FieldEntry's Gate and Choice may take.
const (
	GateStreamed   = "streamed"
	GateParallel   = "parallel"
	ChoiceRequired = "required"
	ChoiceOptional = "optional"
)

// Kinds are the meanings a FieldEntry's Kind may give an integer: the
// manual's annotations (XLogRecPtr, TimestampTz, Oid, TransactionId), a
// 64-bit transaction id with its epoch, or plain (a number, nothing more).
var Kinds = []string{"lsn", "timestamp", "oid", "xid", "full-xid", "plain"}

// IntTypes are the Go types a FieldEntry's Type may name.
var IntTypes = []string{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}

var goIdent = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// IsGoName reports whether s is an exported Go identifier, as every Go name
// the overlay gives must be.
func IsGoName(s string) bool { return goIdent.MatchString(s) }

// LoadOverlay reads and checks the overlay file in fsys, and the rule
// tables beside it (LoadRules) into its Rules. Problems that need
// the spec (entries matching nothing, rows left unnamed) are found when the
// generator applies it.
func LoadOverlay(fsys fs.FS) (*Overlay, error) {
	data, err := fs.ReadFile(fsys, OverlayFile)
	if err != nil {
		return nil, err
	}
	ov, err := ParseOverlay(data)
	if err != nil {
		return nil, err
	}
	if ov.Rules, err = LoadRules(fsys); err != nil {
		return nil, err
	}
	return ov, nil
}

// ParseOverlay decodes overlay JSON, rejecting unknown keys, and compiles and
// checks every entry, reporting all problems at once.
func ParseOverlay(data []byte) (*Overlay, error) {
	var ov Overlay
	if err := decodeStrict(data, OverlayFile, &ov); err != nil {
		return nil, err
	}
	var p []string
	addf := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	for i, fe := range ov.Fields {
		fe.check(addf, fmt.Sprintf("fields %d (%q)", i, fe.Match))
	}
	for _, slug := range sortedKeys(ov.Messages) {
		me := ov.Messages[slug]
		if me == nil {
			addf("%s: empty entry", slug)
			continue
		}
		if me.Name != "" && !IsGoName(me.Name) {
			addf("%s: name %q is not an exported Go identifier", slug, me.Name)
		}
		if (me.Name != "" || me.State != "" || len(me.Secret) > 0) && me.Reason == "" {
			addf("%s: no reason", slug)
		}
		if me.State != "" && !IsGoName(me.State) {
			addf("%s: state %q is not an exported Go identifier", slug, me.State)
		}
		for i, fe := range me.Fields {
			fe.check(addf, fmt.Sprintf("%s: field %d (%q)", slug, i, fe.Match))
		}
		if a := me.Answer; a != nil {
			if !IsGoName(a.Name) || !IsGoName(a.Field) || a.Doc == "" || a.Reason == "" || len(a.Bytes) == 0 {
				addf("%s: answer needs a Go name, a Go field, a doc, a reason and its bytes", slug)
			}
			for _, b := range a.Bytes {
				if len(b.Byte) != 1 || b.Doc == "" {
					addf("%s: answer byte %q: want one byte and what it means", slug, b.Byte)
				}
			}
		}
		for i, ge := range me.Groups {
			w := fmt.Sprintf("%s: group %d (%q)", slug, i, ge.Lead)
			re, err := regexp.Compile("(?i)" + ge.Lead)
			if err != nil {
				addf("%s: %v", w, err)
			}
			ge.re = re
			if !IsGoName(ge.Name) {
				addf("%s: name %q is not an exported Go identifier", w, ge.Name)
			}
			if ge.Type != "" && !IsGoName(ge.Type) {
				addf("%s: type %q is not an exported Go identifier", w, ge.Type)
			}
			if ge.Terminated != nil && ge.Reason == "" {
				addf("%s: terminated needs a reason", w)
			}
		}
	}
	for _, code := range sortedKeys(ov.ErrorFields) {
		e := ov.ErrorFields[code]
		if len(code) != 1 || e == nil || !IsGoName(e.Name) || e.Reason == "" {
			addf("error_fields: %q: want a one-byte code with an exported Go name and a reason", code)
		}
	}
	for _, name := range sortedKeys(ov.Pgoutput) {
		sc := ov.Pgoutput[name]
		var err error
		if sc == nil {
			addf("pgoutput %s: empty entry", name)
			continue
		}
		if sc.lo, sc.hi, err = parseMajorRange(sc.Majors); err != nil || sc.Majors == "" || sc.hi == 1<<30 || sc.lo == 0 {
			addf("pgoutput %s: majors %q: want a closed range such as \"14\" or \"10-13\"", name, sc.Majors)
		}
		if sc.Reason == "" || len(sc.Evidence) == 0 {
			addf("pgoutput %s: needs a reason and evidence", name)
		}
		checkEvidence(addf, "pgoutput "+name, sc.Evidence)
	}
	for _, slug := range sortedKeys(ov.Results) {
		for i, re := range ov.Results[slug] {
			w := fmt.Sprintf("results %s %d (%q)", slug, i, re.Match)
			var err error
			if re.re, err = regexp.Compile("(?i)" + re.Match); err != nil {
				addf("%s: %v", w, err)
			}
			if !IsGoName(re.Name) || len(re.Columns) == 0 || re.Reason == "" || len(re.Evidence) == 0 {
				addf("%s: needs a Go name, columns, a reason and evidence", w)
			}
			for _, c := range re.Columns {
				if c.Name == "" {
					addf("%s: a column without a name", w)
				}
			}
			checkEvidence(addf, w, re.Evidence)
		}
	}
	for _, slug := range sortedKeys(ov.Options) {
		for _, name := range sortedKeys(ov.Options[slug]) {
			w := fmt.Sprintf("options %s %s", slug, name)
			if oe := ov.Options[slug][name]; oe == nil || oe.ExactValues == oe.BooleanValues || oe.Reason == "" || len(oe.Evidence) == 0 {
				addf("%s: needs one of exact_values and boolean_values (what it decides), a reason and evidence", w)
			} else {
				checkEvidence(addf, w, oe.Evidence)
			}
		}
	}
	if len(p) > 0 {
		return nil, fmt.Errorf("%s: %d problem(s):\n  %s", OverlayFile, len(p), strings.Join(p, "\n  "))
	}
	return &ov, nil
}

// checkEvidence wants every reference whole.
func checkEvidence(addf func(string, ...any), where string, refs []SourceRef) {
	for i, e := range refs {
		if e.Release == "" || e.File == "" || e.Function == "" || e.Lines == "" || e.Says == "" {
			addf("%s: evidence %d: needs release, file, function, lines and what they say", where, i+1)
		}
	}
}

func (fe *FieldEntry) check(addf func(string, ...any), where string) {
	var err error
	if fe.re, err = regexp.Compile("(?i)" + fe.Match); err != nil {
		addf("%s: match: %v", where, err)
	}
	if fe.Format != "" {
		if fe.formatRE, err = regexp.Compile("^(?:" + fe.Format + ")$"); err != nil {
			addf("%s: format: %v", where, err)
		}
	}
	if fe.lo, fe.hi, err = parseMajorRange(fe.Majors); err != nil {
		addf("%s: majors: %v", where, err)
	}
	fe.corrLo, fe.corrHi = 1, 0 // corrects nothing
	if fe.Correction != "" {
		if fe.corrLo, fe.corrHi, err = parseMajorRange(fe.Correction); err != nil {
			addf("%s: correction: %v", where, err)
		}
	}
	if !IsGoName(fe.Name) {
		addf("%s: field without a name (or %q is not an exported Go identifier)", where, fe.Name)
	}
	if fe.Type != "" && !contains(IntTypes, fe.Type) {
		addf("%s: type %q is not a Go integer type", where, fe.Type)
	}
	if fe.Choice != "" && fe.Choice != ChoiceRequired && fe.Choice != ChoiceOptional {
		addf("%s: choice %q is neither required nor optional", where, fe.Choice)
	}
	if fe.Gate != "" && fe.Gate != GateStreamed && fe.Gate != GateParallel {
		addf("%s: unknown gate %q", where, fe.Gate)
	}
	if fe.Kind != "" && !contains(Kinds, fe.Kind) {
		addf("%s: kind %q is none of %s", where, fe.Kind, strings.Join(Kinds, ", "))
	}
	if fe.Tags != "" && fe.When == "" {
		addf("%s: tags without when", where)
	}
	for k, v := range fe.ProtocolLengths {
		if _, err := strconv.Atoi(k); err != nil || v[0] < 0 || v[0] > v[1] {
			addf("%s: protocol_lengths %q: %v is not a minor version with [min, max]", where, k, v)
		}
	}
	decides := fe.AsBytes || fe.Choice != "" || fe.When != "" || fe.Gate != "" ||
		fe.Null != nil || fe.Prefixed != nil || fe.ProtocolLengths != nil || fe.Majors != "" || fe.Correction != ""
	if decides && fe.Reason == "" {
		addf("%s: decides structure but has no reason", where)
	}
}

// Matches reports whether the entry applies to a row of major.
func (fe *FieldEntry) Matches(major int, r *Row) bool {
	return major >= fe.lo && major <= fe.hi && fe.re.MatchString(r.Description.En) &&
		(fe.formatRE == nil || fe.formatRE.MatchString(r.Format))
}

// Corrects reports whether the entry, matching a row of major, departs from
// what the manual prints there.
func (fe *FieldEntry) Corrects(major int, r *Row) bool {
	return major >= fe.corrLo && major <= fe.corrHi && fe.Matches(major, r)
}

// Corrections returns the entries that correct a row of message slug in
// major, its own entries first, each once.
func (ov *Overlay) Corrections(major int, slug string, rows []Row) []*FieldEntry {
	entries := ov.Fields
	if me := ov.Messages[slug]; me != nil {
		entries = append(append([]*FieldEntry(nil), me.Fields...), entries...)
	}
	var out []*FieldEntry
	for _, fe := range entries {
		for i := range rows {
			if fe.Corrects(major, &rows[i]) {
				out = append(out, fe)
				break
			}
		}
	}
	return out
}

// Matches reports whether the entry names the group lead opens.
func (ge *GroupEntry) Matches(lead string) bool { return ge.re.MatchString(lead) }

// parseMajorRange reads "", "14", "10-13", "18-" or "-17" into an inclusive range.
func parseMajorRange(s string) (lo, hi int, err error) {
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
