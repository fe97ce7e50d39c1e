package spec

import (
	"fmt"
	"io"
	"strings"
)

// Pick returns the text in lang ("en" or "zh"), or "" when it has none.
func (t Text) Pick(lang string) string {
	if lang == "zh" {
		return t.Zh
	}
	return t.En
}

// WriteTable prints a message's field table the way the manual presents it:
// a heading, then each row's position, format and description in lang, with
// the paragraphs between tables and after them where they stand.
func WriteTable(w io.Writer, s *Spec, m *Message, lang string) {
	name, release := m.NameIn(lang), s.Release
	if lang == "zh" {
		release = s.ReleaseZh
	}
	if m.Direction != "" {
		name += " (" + m.Direction + ")"
	}
	fmt.Fprintf(w, "%s — PostgreSQL %d (%s), %s#%s\n", name, s.Major, release, m.Page, m.Anchor)
	width := 0
	for _, r := range m.Rows() {
		width = max(width, len([]rune(r.FormatIn(lang))))
	}
	pos := 0
	untranslated := "(no translation)"
	for _, b := range m.Blocks {
		if b.Lead != nil {
			fmt.Fprintf(w, "\n    %s\n\n", orDefault(b.Lead.Text.Pick(lang), untranslated))
		}
		for _, r := range b.Rows {
			pos++
			f := r.FormatIn(lang)
			pad := strings.Repeat(" ", width-len([]rune(f)))
			fmt.Fprintf(w, "%3d  %s%s  %s\n", pos, f, pad, orDefault(r.Description.Pick(lang), untranslated))
		}
	}
	for _, n := range m.Notes {
		fmt.Fprintf(w, "\n    %s\n", orDefault(n.Text.Pick(lang), untranslated))
	}
}

// Prefer returns the text in lang, or the English one where lang's is
// missing (an untranslated paragraph).
func (t Text) Prefer(lang string) string {
	if s := t.Pick(lang); s != "" {
		return s
	}
	return t.En
}

// NameIn is the message's name as lang's page prints it, English where the
// translation has none.
func (m *Message) NameIn(lang string) string {
	if lang == "zh" && m.NameZh != "" {
		return m.NameZh
	}
	return m.Name
}

// FormatIn is the row's format term as lang's page prints it.
func (r Row) FormatIn(lang string) string {
	if lang == "zh" && r.FormatZh != "" {
		return r.FormatZh
	}
	return r.Format
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
