package matrix

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pgspec/pgspec/spec"
)

// FieldTable renders a message's field table as diffable lines: the name,
// then each row's format with its description below, one sentence per
// line so a changed sentence shows as one changed line. Block leads and
// notes appear where the manual prints them. With zh the Chinese texts are
// used where they exist; nil renders as no lines (the message is absent).
func FieldTable(m *spec.Message, zh bool) []string {
	if m == nil {
		return nil
	}
	lang := string(English)
	if zh {
		lang = string(Chinese)
	}
	name := m.NameIn(lang)
	if m.Direction != "" {
		name += " (" + m.Direction + ")"
	}
	lines := []string{name}
	for _, b := range m.Blocks {
		if b.Lead != nil {
			lines = append(lines, indented("» ", b.Lead.Text.Prefer(lang))...)
		}
		for _, r := range b.Rows {
			lines = append(lines, r.FormatIn(lang))
			lines = append(lines, indented("    ", r.Description.Prefer(lang))...)
		}
	}
	for _, n := range m.Notes {
		lines = append(lines, indented("» ", n.Text.Prefer(lang))...)
	}
	return lines
}

// indented prefixes each sentence of text.
func indented(prefix, text string) []string {
	var out []string
	for _, s := range sentences(text) {
		out = append(out, prefix+s)
	}
	return out
}

// sentences splits prose after a full stop, question or exclamation mark
// followed by a space and a capital letter, or after a Chinese full stop;
// "e.g. foo" and "3.2" stay whole.
func sentences(text string) []string {
	text = strings.Join(strings.Fields(text), " ")
	var out []string
	start := 0
	for i, r := range text {
		end := i + utf8.RuneLen(r)
		switch {
		case r == '。' && end < len(text):
		case (r == '.' || r == '?' || r == '!') && end+1 < len(text) && text[end] == ' ' && startsSentence(text[end+1:]):
		default:
			continue
		}
		out = append(out, strings.TrimSpace(text[start:end]))
		start = end
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func startsSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || r == '(' || r == '\''
}
