package main

import (
	"fmt"
	"slices"

	"github.com/pgspec/pgspec/gen/model"
)

// Mutant is one condition of the resolved model removed or inverted: the
// codec generated from the mutated model must fail a codec test.
type Mutant struct {
	// Where names the message, its layout's majors and the field.
	Where string
	// What says what was changed.
	What  string
	apply func()
}

func (m Mutant) String() string { return m.Where + ": " + m.What }

// mutants lists, in a fixed order, every mutation of mod's conditions:
// gates, pgoutput versions, presence, choices, counts, protocol-bounded
// lengths, NULL lengths, which layout a major takes and which majors have
// the message. apply changes mod in place; enumerate a fresh model for each.
func mutants(mod *model.Model) []Mutant {
	var out []Mutant
	add := func(where, what string, apply func()) {
		out = append(out, Mutant{Where: where, What: what, apply: apply})
	}
	for _, msg := range mod.Messages {
		for li, l := range msg.Layouts {
			// The layout's majors as the docs write them ("pg16 and later"), so
			// a new major leaves the mutants' names (and -run patterns) as they are.
			where := fmt.Sprintf("%s pg%s", msg.Slug, model.Span(l.Majors, mod.Majors))
			itemMutants(where, l.Items, add)
			if li > 0 {
				prev, first := msg.Layouts[li-1], l.Majors[0]
				add(where, fmt.Sprintf("PostgreSQL %d takes the layout of %s", first, model.MajorList(prev.Majors)), func() {
					prev.Majors = append(prev.Majors, first)
					l.Majors = l.Majors[1:]
					if len(l.Majors) == 0 {
						msg.Layouts = slices.Delete(msg.Layouts, li, li+1)
					}
				})
			}
		}
		if oldest := mod.Majors[0]; msg.Majors[0] > oldest {
			before := msg.Majors[0] - 1
			add(msg.Slug, fmt.Sprintf("documented in PostgreSQL %d too", before), func() {
				msg.Majors = append([]int{before}, msg.Majors...)
				msg.Layouts[0].Majors = append([]int{before}, msg.Layouts[0].Majors...)
			})
		}
	}
	return out
}

// itemMutants adds the mutations of a scope's items, then of its groups'.
func itemMutants(where string, items []*model.Item, add func(where, what string, apply func())) {
	for _, it := range items {
		w := where + " " + it.Field
		if it.Field == "" {
			w = where + "[]" // the value of a flattened group
		}
		c := &it.Cond
		switch c.Gate {
		case model.GateStreamed, model.GateParallel:
			other := model.GateParallel
			if c.Gate == model.GateParallel {
				other = model.GateStreamed
			}
			add(w, "gate "+c.Gate.String()+" removed", func() { c.Gate, c.SinceLogical = model.NoGate, 0 })
			add(w, "gate "+c.Gate.String()+" becomes "+other.String(), func() { c.Gate = other })
		}
		if v := c.SinceLogical; v > 0 {
			add(w, fmt.Sprintf("pgoutput version %d not required", v), func() { c.SinceLogical = 0 })
			add(w, fmt.Sprintf("pgoutput version %d required instead of %d", v+1, v), func() { c.SinceLogical = v + 1 })
		}
		if wh := c.When; wh != nil {
			add(w, "presence on "+wh.Field+" removed", func() { c.When = nil })
			if inv := invertTags(items, wh); inv != nil {
				add(w, fmt.Sprintf("presence on %s inverted (%q)", wh.Field, inv), func() { c.When = &model.When{Field: wh.Field, Tags: inv, Choice: wh.Choice} })
			}
		}
		if ch := it.Choice; ch != nil {
			add(w, fmt.Sprintf("choice optional=%t flipped", ch.Optional), func() { ch.Optional = !ch.Optional })
			if len(ch.Tags) > 1 {
				for i, t := range ch.Tags {
					add(w, fmt.Sprintf("choice loses %q", t), func() { ch.Tags = slices.Delete(slices.Clone(ch.Tags), i, i+1) })
				}
			}
		}
		if it.Op == model.OpCount {
			width := 6 - it.Width // 2 ↔ 4
			add(w, fmt.Sprintf("count Int%d read as Int%d", 8*it.Width, 8*width), func() { it.Width = width })
		}
		if len(it.Lengths) > 0 {
			add(w, "protocol-bounded length unbounded", func() { it.Lengths = nil })
			for i, pl := range it.Lengths {
				if pl.Minor > 0 {
					add(w, fmt.Sprintf("length bound of protocol 3.%d applies from 3.%d", pl.Minor, pl.Minor+1), func() {
						it.Lengths = slices.Clone(it.Lengths)
						it.Lengths[i].Minor++
					})
				}
			}
		}
		if it.Op == model.OpBytes {
			add(w, fmt.Sprintf("nullable=%t flipped", it.Nullable), func() { it.Nullable = !it.Nullable })
		}
		itemMutants(w, it.Elem, add)
	}
}

// invertTags is the condition opposite to wh: the choice's other tags, or
// 0 when wh means "any tag".
func invertTags(items []*model.Item, wh *model.When) []byte {
	for _, it := range items {
		if it.Op != model.OpChoice || it.Field != wh.Field {
			continue
		}
		if len(wh.Tags) == 0 {
			return []byte{0}
		}
		var inv []byte
		for _, t := range it.Choice.Tags {
			if !slices.Contains(wh.Tags, t) {
				inv = append(inv, t)
			}
		}
		return inv
	}
	return nil
}
