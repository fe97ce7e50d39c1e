package model

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pgspec/pgspec/spec"
)

// What the generator derives from the manual rather than reading from the
// overlay: Go names from the manual's names, gates, alternatives and
// presence from the structure recognised in its prose. Each derivation is
// recorded, so that a reviewer sees all of them (pgspec gen prints them).

// Default is one derivation: the message it decided for ("" for the error
// field codes) and what it decided, as printed.
type Default struct {
	Slug string
	Text string
}

// defaults records each derivation once.
type defaults struct {
	seen map[string]bool
	list []Default
}

// addf records a derivation for slug; format and args give its text.
func (d *defaults) addf(slug, format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	if !d.seen[s] {
		d.seen[s] = true
		d.list = append(d.list, Default{Slug: slug, Text: s})
	}
}

func (d *defaults) sorted() []Default {
	out := append([]Default(nil), d.list...)
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return out
}

// messageName is the Go type name of a message from the name the manual
// first printed for it (so a later rename keeps the Go name), by its
// layer's naming rule (spec/layers.json): the suffixes the layer trims cut
// off ("Primary keepalive message"), then its prefix before every message
// that is not a part (Logical: Message and Type would read as something
// else in a codec package). Words are joined in CamelCase.
func messageName(rule *spec.LayerRule, part bool, name string) (goName, how string) {
	if rule == nil {
		return camel(name), "the manual's"
	}
	for _, suffix := range rule.TrimSuffixes {
		name = strings.TrimSuffix(name, suffix)
	}
	if rule.GoPrefix != "" && !part {
		return rule.GoPrefix + camel(name), rule.GoPrefix + " + the manual's"
	}
	return camel(name), "the manual's"
}

// camel joins words, each with its first letter upper case.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }) {
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	return b.String()
}

// errorFieldLabel is the label an error field's description starts with
// ("Severity: the field contents are …").
var errorFieldLabel = regexp.MustCompile(`^([A-Za-z ]+):`)

// errorFieldName is the Go name of an error field from its label.
func errorFieldName(description string) string {
	m := errorFieldLabel.FindStringSubmatch(description)
	if m == nil {
		return ""
	}
	return camel(strings.ToLower(m[1][:1]) + m[1][1:])
}

// parallelCondition is the manual's "present only when streaming is set to
// parallel".
var parallelCondition = regexp.MustCompile(`(?i)^streaming is set to parallel`)

// previousPart is the manual's "only present if the previous 'O' or 'K'
// part is present": the row depends on the choice before it.
var previousPart = regexp.MustCompile(`(?i)previous ((?:'.'(?: or | and |, )?)+) part`)

var quotedTag = regexp.MustCompile(`'(.)'`)

// gate is the streaming state a row needs, from its annotations, and the
// phrase that says so; NoGate when the manual names none.
func (b *builder) gate(row *spec.Row) (Gate, string) {
	if b.m.Layer != spec.LayerLogicalReplication {
		return NoGate, ""
	}
	g, why := NoGate, ""
	set := func(to Gate, phrase string) {
		if g != NoGate && g != to {
			b.p.addf("%s: %q needs both %s and %s", b.where, short(row), g, to)
		}
		if g == NoGate {
			g, why = to, phrase
		}
	}
	for _, a := range row.Annotations {
		switch {
		case a.Kind == spec.AnnStreamedOnly:
			set(GateStreamed, a.Phrase)
		case a.Kind == spec.AnnPresentIf && parallelCondition.MatchString(a.Value):
			set(GateParallel, a.Phrase)
		}
	}
	for _, a := range row.Annotations {
		if a.Kind != spec.AnnSinceProtocol {
			continue
		}
		// A field a pgoutput version brought is sent only in the streaming
		// state that version brought, if any (spec/logicalversions.json).
		if v := b.logicalVersion(row, a); v != nil && v.Gate != "" {
			g, _ := ParseGate(v.Gate)
			set(g, a.Phrase)
		}
	}
	return g, why
}

// logicalVersion is the row of spec/logicalversions.json of a row's "available
// since protocol version N" annotation a; nil, a problem, when there is none.
func (b *builder) logicalVersion(row *spec.Row, a spec.Annotation) *spec.LogicalVersion {
	v := b.rules.LogicalVersion(atoi(a.Value))
	if v == nil {
		b.p.addf("%s: %q is available since protocol version %s, which %s does not list", b.where, short(row), a.Value, spec.LogicalVersionsFile)
	}
	return v
}

// previousTags are the tags of the choice a row's presence depends on
// ("only present if the previous 'O' or 'K' part is present"), nil when it
// says no such thing.
func previousTags(row *spec.Row) []byte {
	for _, a := range row.Annotations {
		if a.Kind != spec.AnnPresentIf {
			continue
		}
		if m := previousPart.FindStringSubmatch(a.Value); m != nil {
			var tags []byte
			for _, t := range quotedTag.FindAllStringSubmatch(m[1], -1) {
				tags = append(tags, t[1][0])
			}
			return tags
		}
	}
	return nil
}

// exclusiveTags are the tags a message's "may contain either a 'K' … or an
// 'O' …, but never both" note names, and whether it allows neither.
func exclusiveTags(m *spec.Message) (tags []byte, neither bool, ok bool) {
	for _, n := range m.Notes {
		for _, a := range n.Annotations {
			if a.Kind != spec.AnnExclusive {
				continue
			}
			for _, t := range quotedTag.FindAllStringSubmatch(a.Value, -1) {
				tags = append(tags, t[1][0])
			}
			return tags, strings.Contains(a.Phrase, "or neither"), true
		}
	}
	return nil, false, false
}

// sameTags reports whether a and b hold the same tags in any order.
func sameTags(a, b []byte) bool {
	return len(missing(a, b)) == 0 && len(missing(b, a)) == 0
}

// MessageNames maps every slug of specs to its Go type name, as Build
// gives it, without building layouts (for commands that accept either).
func MessageNames(specs []*spec.Spec, ov *spec.Overlay) map[string]string {
	out := map[string]string{}
	for _, s := range specs {
		for _, m := range s.Messages {
			if _, ok := out[m.Slug]; ok {
				continue
			}
			if e := ov.Messages[m.Slug]; e != nil && e.Name != "" {
				out[m.Slug] = e.Name
				continue
			}
			out[m.Slug], _ = messageName(ov.RuleTables().Layer(m.Layer), m.Part, m.Name)
		}
	}
	return out
}
