package model

import (
	"fmt"
	"strings"
)

// Describe renders the layout for review, one item a line: the manual's
// notation (Manual), then the Go field and type it resolves to and, when
// source is set, what named it (source returns "" for nothing to say).
// A group's elements follow it, indented.
func (l *Layout) Describe(source func(*Item) string) string {
	var b strings.Builder
	describeItems(&b, l.Items, "  ", source)
	return b.String()
}

func describeItems(b *strings.Builder, items []*Item, indent string, source func(*Item) string) {
	for _, it := range items {
		line := it.Manual()
		if it.Op == OpGroup {
			line = "repeated"
			if it.Terminated {
				line += " until a zero byte"
			}
			line += it.Cond.notes()
		}
		if it.Field != "" && it.Op != OpCount {
			line += " → " + it.Field + " " + it.Type.String()
		}
		if source != nil {
			if s := source(it); s != "" {
				line += "  ← " + s
			}
		}
		fmt.Fprintf(b, "%s%s\n", indent, line)
		describeItems(b, it.Elem, indent+"  ", source)
	}
}
