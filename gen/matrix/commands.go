package matrix

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// The commands layer of the matrix: every replication command (and the
// older syntax a later major still documents, as its own row) per major. A
// command's wire is what a client writes and reads: its syntax, its
// parameters and options with kind, values and default, its result
// columns and what follows; its prose is wording.

// CommandRow is one replication command's history.
type CommandRow struct {
	Slug  string   `json:"slug"`
	Name  string   `json:"name"`
	Cells []Change `json:"cells"`
}

// command is slug's command in Specs[i], or nil.
func (h *History) command(slug string, i int) *spec.Command {
	if i < 0 {
		return nil
	}
	return h.Specs[i].FindCommand(slug)
}

// CommandRows compares each major's commands with the previous major's,
// in the order the newest major documents them.
func (h *History) CommandRows() []CommandRow {
	var slugs []string
	for i := len(h.Specs) - 1; i >= 0; i-- {
		for _, c := range h.Specs[i].Commands {
			if !slices.Contains(slugs, c.Slug) {
				slugs = append(slugs, c.Slug)
			}
		}
	}
	var rows []CommandRow
	for _, slug := range slugs {
		r := CommandRow{Slug: slug}
		for i := range h.Specs {
			c := h.command(slug, i)
			if c != nil {
				r.Name = c.Name
			}
			switch {
			case i == 0 && c != nil:
				r.Cells = append(r.Cells, Change{Status: Baseline})
			case i == 0:
				r.Cells = append(r.Cells, Change{Status: Absent})
			default:
				r.Cells = append(r.Cells, compareCommands(h.command(slug, i-1), c))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// compareCommands classifies the step from a to b.
func compareCommands(a, b *spec.Command) Change {
	switch {
	case a == nil && b == nil:
		return Change{Status: Absent}
	case a == nil:
		return Change{Status: Added}
	case b == nil:
		return Change{Status: Removed}
	case !slices.Equal(CommandWire(a), CommandWire(b)):
		return Change{Status: Wire}
	case !slices.Equal(commandText(a, false), commandText(b, false)):
		return Change{Status: Wording}
	}
	zh := a.Description.Zh != "" && b.Description.Zh != ""
	return Change{Status: Unchanged, ZhOnly: zh && !slices.Equal(commandText(a, true), commandText(b, true))}
}

// CommandWire is what of a command a client writes and reads, one line
// each: the syntax, every parameter and option with its kind, values and
// default, every result column, and what follows.
func CommandWire(c *spec.Command) []string {
	if c == nil {
		return nil
	}
	out := []string{"syntax " + c.Syntax}
	item := func(what string, it spec.CommandItem) string {
		s := fmt.Sprintf("%s %s: %s", what, it.Name, it.Kind)
		if len(it.Values) > 0 {
			s += " " + strings.Join(it.Values, "|")
		}
		if it.Default != "" {
			s += ", default " + it.Default
		}
		return s
	}
	for _, it := range c.Parameters {
		out = append(out, item("parameter", it))
	}
	for _, it := range c.Options {
		out = append(out, item("option", it))
	}
	for i, r := range c.Results {
		rows := map[string]string{spec.RowsOne: "one row", spec.RowsMany: "many rows"}[r.Rows]
		if r.Prose {
			rows += ", in prose"
		}
		for k, col := range r.Columns {
			out = append(out, fmt.Sprintf("result %d (%s): %s", i+1, rows, columnLabel(k, col)))
		}
	}
	for _, f := range c.Follows {
		out = append(out, "then "+f)
	}
	return out
}

// commandText is a command's prose in one language, one line per paragraph.
func commandText(c *spec.Command, zh bool) []string {
	pick := func(t spec.Text) string {
		if zh {
			return t.Zh
		}
		return t.En
	}
	if c == nil {
		return nil
	}
	synopsis := c.Synopsis
	if zh && c.SynopsisZh != "" {
		synopsis = c.SynopsisZh
	}
	out := []string{synopsis, pick(c.Description)}
	for _, it := range append(slices.Clone(c.Parameters), c.Options...) {
		out = append(out, it.Term+": "+pick(it.Description))
	}
	for _, r := range c.Results {
		for k, col := range r.Columns {
			out = append(out, cmp.Or(col.Name, fmt.Sprintf("column %d", k+1))+": "+pick(col.Description))
		}
	}
	return out
}

// columnLabel is a result column's name and type; a prose set's columns
// have neither unless its sentence gives them.
func columnLabel(k int, col spec.Column) string {
	return cmp.Or(col.Name, fmt.Sprintf("column %d", k+1)) + " " + cmp.Or(col.Type, "(type not given)")
}

// CommandDetail is the evidence for cell i of a command row.
func (h *History) CommandDetail(r CommandRow, i int, lang Lang) Detail {
	a, b := h.command(r.Slug, i-1), h.command(r.Slug, i)
	from, to := h.Specs[i-1].Major, h.Specs[i].Major
	d := Detail{ID: anchor(detailHeading(r.Slug, from, to)), Slug: r.Slug, Name: r.Name, From: from, To: to, Change: r.Cells[i]}
	fromLabel, toLabel := fmt.Sprintf("pg%d/%s", from, r.Slug), fmt.Sprintf("pg%d/%s", to, r.Slug)
	if d.Status == Wire {
		d.LayoutDiff = lines(Unified(fromLabel, toLabel, CommandWire(a), CommandWire(b)))
	}
	zh := lang == Chinese && (a == nil || a.Description.Zh != "") && (b == nil || b.Description.Zh != "")
	d.InEnglish = lang == Chinese && !zh
	d.TableDiff = lines(Unified(fromLabel, toLabel, commandText(a, zh), commandText(b, zh)))
	return d
}

// commandDetails are the details of every changed command cell.
func (h *History) commandDetails(rows []CommandRow, lang Lang) []Detail {
	out := []Detail{}
	for _, r := range rows {
		for i, c := range r.Cells {
			if changed(c, lang) {
				out = append(out, h.CommandDetail(r, i, lang))
			}
		}
	}
	return out
}

// commandCell is cell i of a command row, linked to its detail.
func (h *History) commandCell(r CommandRow, i int, lang Lang) string {
	text := label(r.Cells[i], lang)
	if changed(r.Cells[i], lang) {
		return fmt.Sprintf("[%s](#%s)", text, anchor(detailHeading(r.Slug, h.Specs[i-1].Major, h.Specs[i].Major)))
	}
	return text
}

// commandsMarkdown is the commands table of the Markdown matrix.
func (h *History) commandsMarkdown(b *strings.Builder, lang Lang) {
	v := vocab[lang]
	fmt.Fprintf(b, "\n## %s\n\n", v.commands)
	heads := []string{v.command}
	for _, s := range h.Specs {
		heads = append(heads, fmt.Sprint(s.Major))
	}
	tableHead(b, heads)
	for _, r := range h.CommandRows() {
		cells := []string{r.Name + " (`" + r.Slug + "`)"}
		for i := range r.Cells {
			cells = append(cells, h.commandCell(r, i, lang))
		}
		tableRow(b, cells...)
	}
}

// commandsDetailsMarkdown is the commands' part of the details section.
func (h *History) commandsDetailsMarkdown(b *strings.Builder, lang Lang) {
	v := vocab[lang]
	fmt.Fprintf(b, "\n### %s\n", v.commands)
	for _, d := range h.commandDetails(h.CommandRows(), lang) {
		writeDetail(b, d, lang)
	}
}

// jsonCommands is the commands layer of the JSON matrix.
type jsonCommands struct {
	Title    string        `json:"title"`
	Commands []jsonCommand `json:"commands"`
	Details  []Detail      `json:"details"`
}

type jsonCommand struct {
	Slug  string     `json:"slug"`
	Name  string     `json:"name"`
	Cells []jsonCell `json:"cells"`
}

func (h *History) commandsJSON(lang Lang) jsonCommands {
	rows := h.CommandRows()
	out := jsonCommands{Title: vocab[lang].commands, Details: h.commandDetails(rows, lang)}
	for _, r := range rows {
		jc := jsonCommand{Slug: r.Slug, Name: r.Name}
		for i, c := range r.Cells {
			link := ""
			if changed(c, lang) {
				link = "#" + anchor(detailHeading(r.Slug, h.Specs[i-1].Major, h.Specs[i].Major))
			}
			jc.Cells = append(jc.Cells, jsonCell{Major: h.Specs[i].Major, Change: c, Label: label(c, lang), Link: link})
		}
		out.Commands = append(out.Commands, jc)
	}
	return out
}

// commandsPage is the page's commands layer and the details of its
// changed cells: a detail sets both majors' synopsis, items and result
// columns side by side, and for a wire change the lines CommandWire
// compares.
func (h *History) commandsPage(pageURL func(string, int) string) (pageLayer, []pageDetail) {
	l := pageLayer{ID: "layer-" + spec.LayerCommands, Title: both(func(v words) string { return v.commands }),
		Head: both(func(v words) string { return v.command }), Shown: pageWords["shownCmds"], ShownOne: pageWords["shownCmd"]}
	var details []pageDetail
	for _, r := range h.CommandRows() {
		pr := pageRow{Slug: r.Slug, Name: r.Name, Note: commandNote[strings.TrimPrefix(r.Slug, strings.ToLower(strings.ReplaceAll(r.Name, "_", "-")))]}
		h.fillRow(&pr, r.Cells, func(i int) bool { return h.command(r.Slug, i) != nil }, pageURL)
		l.Rows = append(l.Rows, pr)
		for i, c := range r.Cells {
			if explained(c) {
				details = append(details, h.commandPageDetail(r, i, strings.TrimSpace(pr.Name+" "+pr.Note), pageURL))
			}
		}
	}
	return l, details
}

// commandNote tells apart the rows of one command word, by slug suffix.
var commandNote = map[string]string{"-physical": "PHYSICAL", "-logical": "LOGICAL", "-legacy": "(keyword syntax)"}

// commandPageDetail is the evidence of cell i of command row r: of each
// side the synopsis and the rows that changed (a command's whole text is
// long, and the page carries every detail).
func (h *History) commandPageDetail(r CommandRow, i int, name string, pageURL func(string, int) string) pageDetail {
	c := r.Cells[i]
	a, b := h.command(r.Slug, i-1), h.command(r.Slug, i)
	d := pageDetail{ID: anchor(detailHeading(r.Slug, h.Specs[i-1].Major, h.Specs[i].Major)), Name: name,
		From: h.Specs[i-1].Major, To: h.Specs[i].Major, Class: statusClass[c.Status],
		Label: bi{label(c, English), label(c, Chinese)}, ZhOnly: c.ZhOnly, Wire: c.Status == Wire}
	cmds := [2]*spec.Command{a, b}
	for k, cmd := range cmds {
		d.Sides[k] = pageSide{Major: h.Specs[i-1+k].Major, Rows: commandRows(cmd)}
		if cmd != nil {
			d.Sides[k].URL = fmt.Sprintf("https://www.postgresql.org/docs/%d/protocol-replication.html", d.Sides[k].Major)
			if cmd.Anchor != "" {
				d.Sides[k].URL += "#" + cmd.Anchor
			}
			if pageURL != nil {
				d.Sides[k].Page = pageURL(r.Slug, d.Sides[k].Major)
			}
		}
	}
	markRows(&d.Sides, func(k int, zh bool) []string { return rowKeys(d.Sides[k].Rows, zh) })
	for k := range d.Sides {
		rows := d.Sides[k].Rows
		if len(rows) > 0 {
			d.Sides[k].Rows = slices.DeleteFunc(slices.Clone(rows[1:]), func(r fieldRow) bool { return !r.ChangedEn && !r.ChangedZh })
			d.Sides[k].Rows = append([]fieldRow{rows[0]}, d.Sides[k].Rows...)
		}
	}
	if d.Wire {
		wa, wb := CommandWire(a), CommandWire(b)
		ca, cb := marks(wa, wb)
		for k, side := range []struct {
			lines   []string
			changed []bool
		}{{wa, ca}, {wb, cb}} {
			for j, line := range side.lines {
				what, value, _ := strings.Cut(line, ": ")
				d.Sides[k].Steps = append(d.Sides[k].Steps, stepRow{Manual: what, Code: value, Changed: side.changed[j]})
			}
		}
	}
	return d
}

// commandRows lays a command out as the manual prints it: synopsis and
// description, each parameter and option by its term, each result column;
// nil when the command is absent.
func commandRows(c *spec.Command) []fieldRow {
	if c == nil {
		return nil
	}
	text := func(t spec.Text) bi { return bi{t.En, t.Prefer("zh")} }
	out := []fieldRow{{Prose: true, Text: bi{c.Synopsis, cmp.Or(c.SynopsisZh, c.Synopsis)}}, {Prose: true, Text: text(c.Description)}}
	for _, it := range append(slices.Clone(c.Parameters), c.Options...) {
		out = append(out, fieldRow{Format: bi{it.Term, it.Term}, Text: text(it.Description)})
	}
	for i, r := range c.Results {
		for k, col := range r.Columns {
			f := fmt.Sprintf("result %d: %s", i+1, columnLabel(k, col))
			out = append(out, fieldRow{Format: bi{f, f}, Text: text(col.Description)})
		}
	}
	return out
}
