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

// commandLayer is the replication commands as an item layer.
var commandLayer = itemLayer{
	id:    "commands",
	title: func(v words) string { return v.commands },
	head:  func(v words) string { return v.command },
	items: func(s *spec.Spec) []item {
		var out []item
		for _, c := range s.Commands {
			out = append(out, item{c.Slug, c.Name})
		}
		return out
	},
	wire: func(s *spec.Spec, slug string) []string { return CommandWire(s.FindCommand(slug)) },
	text: func(s *spec.Spec, slug string, zh bool) []string { return commandText(s.FindCommand(slug), zh) },
	translated: func(s *spec.Spec, slug string) bool {
		c := s.FindCommand(slug)
		return c != nil && c.Description.Zh != ""
	},
	shown:    bi{"commands shown", "条命令"},
	shownOne: bi{"command shown", "条命令"},
	wireHead: bi{"What a client writes and reads", "客户端写出与读到的内容"},
	manual: func(s *spec.Spec, slug string) string {
		if c := s.FindCommand(slug); c != nil {
			return c.Place()
		}
		return ""
	},
	note:      commandNote,
	sitePages: true,
}

// commandNote tells apart the rows that share a command word: the two
// forms of START_REPLICATION by their keyword, and the older syntax a
// later major still documents beside the option list.
func commandNote(slug string) bi {
	switch {
	case strings.HasSuffix(slug, "-legacy"):
		return bi{"older syntax", "旧语法"}
	case strings.HasSuffix(slug, "-physical"):
		return bi{"PHYSICAL", "PHYSICAL"}
	case strings.HasSuffix(slug, "-logical"):
		return bi{"LOGICAL", "LOGICAL"}
	}
	return bi{}
}

// CommandRows compares each major's commands with the previous major's,
// in the order the newest major documents them.
func (h *History) CommandRows() []ItemRow { return h.itemRows(commandLayer) }

// CommandDetail is the evidence for cell i of a command row.
func (h *History) CommandDetail(r ItemRow, i int, lang Lang) Detail {
	return h.itemDetail(commandLayer, r, i, lang)
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
