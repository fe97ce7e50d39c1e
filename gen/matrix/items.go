package matrix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// An item layer is a layer of the matrix whose rows are not wire messages
// but things a major documents or not, compared as lines: the replication
// commands (commands.go) and the flow's message lists (flow.go). What a
// peer writes or reads is the item's wire; its prose is wording.
type itemLayer struct {
	// id names the layer in the page ("layer-" + id).
	id string
	// title names the layer, head its first column.
	title, head func(v words) string
	// items are a major's items in document order.
	items func(s *spec.Spec) []item
	// wire and text are the item's lines in s, nil when s lacks it; text
	// in Chinese when zh.
	wire func(s *spec.Spec, slug string) []string
	text func(s *spec.Spec, slug string, zh bool) []string
	// translated says whether s's Chinese page gave the item its text.
	translated func(s *spec.Spec, slug string) bool

	// What the page needs besides: how it counts the rows it shows ("3
	// commands shown"), the heading of a detail's wire lines, and the
	// item's place in s's manual ("protocol-replication.html#ANCHOR").
	shown, shownOne, wireHead bi
	manual                    func(s *spec.Spec, slug string) string
	// note tells apart rows that share a name, nil when none do.
	note func(slug string) bi
	// sitePages says whether the site has a page per item and major.
	sitePages bool
}

// item is one row's identity and the name it is shown by.
type item struct{ slug, name string }

// ItemRow is one item's history.
type ItemRow struct {
	Slug  string   `json:"slug"`
	Name  string   `json:"name"`
	Cells []Change `json:"cells"`
}

// has says whether Specs[i] documents slug.
func (h *History) has(l itemLayer, slug string, i int) bool {
	return i >= 0 && slices.ContainsFunc(l.items(h.Specs[i]), func(it item) bool { return it.slug == slug })
}

// itemRows compares each major's items with the previous major's, in the
// order the newest major documents them.
func (h *History) itemRows(l itemLayer) []ItemRow {
	var order []item
	for i := len(h.Specs) - 1; i >= 0; i-- {
		for _, it := range l.items(h.Specs[i]) {
			if !slices.ContainsFunc(order, func(o item) bool { return o.slug == it.slug }) {
				order = append(order, it)
			}
		}
	}
	var rows []ItemRow
	for _, it := range order {
		r := ItemRow{Slug: it.slug, Name: it.name}
		for i := range h.Specs {
			switch {
			case i == 0 && h.has(l, it.slug, 0):
				r.Cells = append(r.Cells, Change{Status: Baseline})
			case i == 0:
				r.Cells = append(r.Cells, Change{Status: Absent})
			default:
				r.Cells = append(r.Cells, h.compareItem(l, it.slug, i))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// compareItem classifies the step from Specs[i-1] to Specs[i].
func (h *History) compareItem(l itemLayer, slug string, i int) Change {
	a, b := h.Specs[i-1], h.Specs[i]
	ha, hb := h.has(l, slug, i-1), h.has(l, slug, i)
	switch {
	case !ha && !hb:
		return Change{Status: Absent}
	case !ha:
		return Change{Status: Added}
	case !hb:
		return Change{Status: Removed}
	case !slices.Equal(l.wire(a, slug), l.wire(b, slug)):
		return Change{Status: Wire}
	case !slices.Equal(l.text(a, slug, false), l.text(b, slug, false)):
		return Change{Status: Wording}
	}
	zh := l.translated(a, slug) && l.translated(b, slug)
	return Change{Status: Unchanged, ZhOnly: zh && !slices.Equal(l.text(a, slug, true), l.text(b, slug, true))}
}

// itemDetail is the evidence for cell i of an item row.
func (h *History) itemDetail(l itemLayer, r ItemRow, i int, lang Lang) Detail {
	a, b := h.Specs[i-1], h.Specs[i]
	d := Detail{ID: anchor(detailHeading(r.Slug, a.Major, b.Major)), Slug: r.Slug, Name: r.Name, From: a.Major, To: b.Major, Change: r.Cells[i]}
	fromLabel, toLabel := fmt.Sprintf("pg%d/%s", a.Major, r.Slug), fmt.Sprintf("pg%d/%s", b.Major, r.Slug)
	if d.Status == Wire {
		d.LayoutDiff = lines(Unified(fromLabel, toLabel, l.wire(a, r.Slug), l.wire(b, r.Slug)))
	}
	zhOf := func(s *spec.Spec, k int) bool { return !h.has(l, r.Slug, k) || l.translated(s, r.Slug) }
	zh := lang == Chinese && zhOf(a, i-1) && zhOf(b, i)
	d.InEnglish = lang == Chinese && !zh
	d.TableDiff = lines(Unified(fromLabel, toLabel, l.text(a, r.Slug, zh), l.text(b, r.Slug, zh)))
	return d
}

// itemDetails are the details of every changed cell of rows.
func (h *History) itemDetails(l itemLayer, rows []ItemRow, lang Lang) []Detail {
	out := []Detail{}
	for _, r := range rows {
		for i, c := range r.Cells {
			if changed(c, lang) {
				out = append(out, h.itemDetail(l, r, i, lang))
			}
		}
	}
	return out
}

// itemLink is the anchor of cell i's detail, "" when it has none.
func (h *History) itemLink(r ItemRow, i int, lang Lang) string {
	if !changed(r.Cells[i], lang) {
		return ""
	}
	return "#" + anchor(detailHeading(r.Slug, h.Specs[i-1].Major, h.Specs[i].Major))
}

// itemsMarkdown is the layer's table of the Markdown matrix.
func (h *History) itemsMarkdown(b *strings.Builder, l itemLayer, lang Lang) {
	v := vocab[lang]
	fmt.Fprintf(b, "\n## %s\n\n", l.title(v))
	heads := []string{l.head(v)}
	for _, s := range h.Specs {
		heads = append(heads, fmt.Sprint(s.Major))
	}
	tableHead(b, heads)
	for _, r := range h.itemRows(l) {
		cells := []string{r.Name + " (`" + r.Slug + "`)"}
		for i := range r.Cells {
			text := label(r.Cells[i], lang)
			if link := h.itemLink(r, i, lang); link != "" {
				text = fmt.Sprintf("[%s](%s)", text, link)
			}
			cells = append(cells, text)
		}
		tableRow(b, cells...)
	}
}

// itemsDetailsMarkdown is the layer's part of the details section.
func (h *History) itemsDetailsMarkdown(b *strings.Builder, l itemLayer, lang Lang) {
	fmt.Fprintf(b, "\n### %s\n", l.title(vocab[lang]))
	for _, d := range h.itemDetails(l, h.itemRows(l), lang) {
		writeDetail(b, d, lang)
	}
}

// jsonItem is an item row of the JSON matrix.
type jsonItem struct {
	Slug  string     `json:"slug"`
	Name  string     `json:"name"`
	Cells []jsonCell `json:"cells"`
}

// itemsJSON is the layer's rows and details for the JSON matrix.
func (h *History) itemsJSON(l itemLayer, lang Lang) ([]jsonItem, []Detail) {
	rows := h.itemRows(l)
	out := []jsonItem{}
	for _, r := range rows {
		ji := jsonItem{Slug: r.Slug, Name: r.Name}
		for i, c := range r.Cells {
			ji.Cells = append(ji.Cells, jsonCell{Major: h.Specs[i].Major, Change: c, Label: label(c, lang), Link: h.itemLink(r, i, lang)})
		}
		out = append(out, ji)
	}
	return out, h.itemDetails(l, rows, lang)
}
