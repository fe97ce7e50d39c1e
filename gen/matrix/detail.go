package matrix

import (
	"fmt"
	"io"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Detail is the evidence behind one changed cell or one message of a diff.
type Detail struct {
	// ID is the Markdown anchor of the detail, which matrix cells link to.
	ID   string `json:"id"`
	Slug string `json:"slug"`
	Name string `json:"name"`
	From int    `json:"from"`
	To   int    `json:"to"`
	Change
	// LayoutDiff is the unified diff of Layout, line by line, set for
	// wire changes only.
	LayoutDiff []string `json:"layout_diff,omitempty"`
	// TableDiff is the unified diff of FieldTable in the rendering's language.
	TableDiff []string `json:"table_diff"`
	// InEnglish is set when Chinese was asked for but the table diff is
	// English: a side has no translation, or only the English changed.
	InEnglish bool `json:"in_english,omitempty"`
}

// Explain gives the evidence for cell i of row r: the step from Specs[i-1]
// to Specs[i].
func (h *History) Explain(r Row, i int, lang Lang) Detail {
	slug, c := r.Slug, r.Cells[i]
	a, b := h.Message(slug, i-1), h.Message(slug, i)
	from, to := h.Specs[i-1].Major, h.Specs[i].Major
	d := Detail{ID: anchor(detailHeading(slug, from, to)), Slug: slug, From: from, To: to, Change: c}
	for _, m := range []*spec.Message{a, b} {
		if m != nil {
			d.Name = m.Name
		}
	}
	fromLabel, toLabel := fmt.Sprintf("pg%d/%s", from, slug), fmt.Sprintf("pg%d/%s", to, slug)
	if c.Status == Wire {
		d.LayoutDiff = lines(Unified(fromLabel, toLabel, codes(h.layouts[i-1][slug]), codes(h.layouts[i][slug])))
	}
	zh := lang == Chinese && (a == nil || translated(a)) && (b == nil || translated(b))
	if zh {
		d.TableDiff = lines(Unified(fromLabel, toLabel, FieldTable(a, true), FieldTable(b, true)))
	}
	if d.TableDiff == nil {
		d.InEnglish = lang == Chinese
		d.TableDiff = lines(Unified(fromLabel, toLabel, FieldTable(a, false), FieldTable(b, false)))
	}
	return d
}

// changed reports whether a cell needs explaining in lang: Chinese
// renderings also explain translation-only changes.
func changed(c Change, lang Lang) bool {
	switch c.Status {
	case Wire, Annotation, Wording:
		return true
	}
	return c.ZhOnly && lang == Chinese
}

// Diff explains every message, then every replication command and flow list, whose last
// cell differs from the one before it, added and removed ones included, in
// row order; with slug set only that message or command. On a history of two majors that is pgspec diff.
func (h *History) Diff(slug string, lang Lang) []Detail {
	last := len(h.Specs) - 1
	if last < 1 {
		return nil
	}
	var out []Detail
	for _, r := range h.Rows {
		if slug != "" && r.Slug != slug {
			continue
		}
		if c := r.Cells[last]; changed(c, lang) || c.Status == Added || c.Status == Removed {
			out = append(out, h.Explain(r, last, lang))
		}
	}
	for _, l := range []itemLayer{commandLayer, flowLayer} {
		for _, r := range h.itemRows(l) {
			if slug != "" && r.Slug != slug {
				continue
			}
			if c := r.Cells[last]; changed(c, lang) || c.Status == Added || c.Status == Removed {
				out = append(out, h.itemDetail(l, r, last, lang))
			}
		}
	}
	return out
}

// NoDifferences is what pgspec diff says when two majors document the same.
func NoDifferences(a, b int, lang Lang) string { return fmt.Sprintf(vocab[lang].noDifferences, a, b) }

// WriteDiff prints details as pgspec diff does: a heading per message, its
// classification, then the layout and field table diffs.
func WriteDiff(w io.Writer, details []Detail, lang Lang) error {
	v := vocab[lang]
	var b strings.Builder
	if len(details) > 1 {
		writeGlance(&b, details, lang)
	}
	for _, d := range details {
		fmt.Fprintf(&b, "# %s (%s): %s, %d → %d\n", d.Name, d.Slug, label(d.Change, lang), d.From, d.To)
		if d.LayoutDiff != nil {
			fmt.Fprintf(&b, "%s\n%s", v.layout, text(d.LayoutDiff))
		}
		fmt.Fprintf(&b, "%s\n", v.table)
		if d.InEnglish {
			fmt.Fprintln(&b, v.englishFallback)
		}
		fmt.Fprintf(&b, "%s\n", text(d.TableDiff))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGlance writes what changed at a glance: one line per class, from
// the most consequential for a codec (added, removed, wire) to the least,
// with the slugs of that class in the details' order.
func writeGlance(b *strings.Builder, details []Detail, lang Lang) {
	fmt.Fprintf(b, vocab[lang].glance+"\n", details[0].From, details[0].To)
	// Unchanged comes with ZhOnly only: the translation alone changed.
	for _, st := range []Status{Added, Removed, Wire, Annotation, Wording, Unchanged} {
		for _, zhOnly := range []bool{false, true} {
			var slugs []string
			for _, d := range details {
				if d.Status == st && d.ZhOnly == zhOnly {
					slugs = append(slugs, d.Slug)
				}
			}
			if len(slugs) > 0 {
				fmt.Fprintf(b, "%s (%d): %s\n", label(Change{Status: st, ZhOnly: zhOnly}, lang), len(slugs), strings.Join(slugs, ", "))
			}
		}
	}
	b.WriteString("\n")
}

// docsURL is where the published manual of major prints m.
func docsURL(major int, m *spec.Message) string {
	u := fmt.Sprintf("https://www.postgresql.org/docs/%d/%s", major, m.Page)
	if m.Anchor != "" {
		u += "#" + m.Anchor
	}
	return u
}

// lines splits a diff into its lines; "" (no difference) gives nil.
func lines(diff string) []string {
	if diff == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
}

// text joins lines back into newline-terminated text.
func text(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}
