package model

import (
	"github.com/pgspec/pgspec/spec"
)

// Phase 4: what puts an item on the wire (gates, choices it depends on)
// and whether a choice may be absent, as the manual states them.

// cond is what puts a row on the wire: the streaming state it needs and
// the pgoutput protocol version that brought it, and the choice before it
// that it depends on; derived from the manual unless the entry decides.
func (b *builder) cond(row *spec.Row, e *spec.FieldEntry, before []*Item) Cond {
	var c Cond
	g, why := b.gate(row)
	switch {
	case e.Gate != "" && e.Gate == g.String():
		b.p.addf("%s: the entry %q gives the gate %s the manual already states (%q); remove it", b.where, e.Match, e.Gate, why)
	case e.Gate != "":
		g, _ = ParseGate(e.Gate)
	case g != NoGate:
		b.d.addf(b.m.Slug, "%s %s: gate %s (%s)", b.m.Slug, e.Name, g, quoteName(why))
	}
	c.Gate = g
	for _, a := range row.Annotations {
		if a.Kind != spec.AnnSinceProtocol || b.m.Layer != spec.LayerLogicalReplication {
			continue
		}
		// gate reported a version spec/logicalversions.json lacks.
		if v := b.rules.LogicalVersion(atoi(a.Value)); v != nil {
			c.SinceLogical = v.Version
			if v.Gate == "" && g == NoGate {
				b.d.addf(b.m.Slug, "%s %s: sent from pgoutput protocol version %d on (%s)", b.m.Slug, e.Name, v.Version, quoteName(a.Phrase))
			}
		}
	}
	if tags := previousTags(row); tags != nil {
		var choice *Item
		for _, it := range before {
			if it.Op == OpChoice && len(missing(tags, it.Choice.Tags)) == 0 {
				choice = it
			}
		}
		switch {
		case choice == nil:
			b.p.addf("%s: %q depends on a previous %s part that no choice before it holds", b.where, short(row), quoteTags(tags))
		case sameTags(tags, choice.Choice.Tags):
			c.When = &When{Field: choice.Field, Choice: choice}
		default:
			c.When = &When{Field: choice.Field, Tags: tags, Choice: choice}
		}
	}
	for _, a := range row.Annotations {
		decided := parallelCondition.MatchString(a.Value) || previousPart.MatchString(a.Value) ||
			row.Type.Tag != "" && spec.Has(row.Annotations, spec.AnnOptional) || e.When != "" || e.Gate != ""
		if a.Kind == spec.AnnPresentIf && !decided {
			b.p.addf("%s: %q is %q, which the generator cannot decide; say when in the overlay", b.where, short(row), a.Phrase)
		}
	}
	if e.When != "" {
		w := &When{Field: e.When, Tags: []byte(e.Tags)}
		for _, it := range before {
			if it.Op == OpChoice && it.Field == e.When {
				w.Choice = it
			}
		}
		if w.Choice == nil {
			b.p.addf("%s: the entry %q makes %s depend on %s, which is no choice before it", b.where, e.Match, e.Name, e.When)
		}
		if c.When != nil && c.When.Field == w.Field && sameTags(c.When.Tags, w.Tags) {
			b.p.addf("%s: the entry %q gives the condition the manual already states; remove its when", b.where, e.Match)
		}
		c.When = w
	} else if c.When != nil {
		b.d.addf(b.m.Slug, "%s %s: present when %s (%s)", b.m.Slug, e.Name, presenceOf(c.When), quoteName(previousPart.FindString(row.Description.En)))
	}
	return c
}

// presenceOf renders a When in Go terms.
func presenceOf(w *When) string {
	if len(w.Tags) == 0 {
		return w.Field + " != 0"
	}
	return w.Field + " is " + quoteTags(w.Tags)
}

// choice settles whether a choice may be absent: the manual's "This field
// is optional" on its rows, unless the entry decides.
func (b *builder) choice(it *Item, e *spec.FieldEntry) {
	derived := spec.ChoiceRequired
	if it.Choice.Optional {
		derived = spec.ChoiceOptional
	}
	switch {
	case e.Choice == derived:
		b.p.addf("%s: the entry %q makes %s %s, as the manual already does; remove its choice", b.where, e.Match, e.Name, e.Choice)
	case e.Choice != "":
		it.Choice.Optional = e.Choice == spec.ChoiceOptional
	default:
		b.d.addf(b.m.Slug, "%s %s: %s choice of %s", b.m.Slug, e.Name, derived, quoteTags(it.Choice.Tags))
	}
}

// tagRunFrom reports whether the Byte1('x') at scope[i] is followed by
// another one with the same entry: together they are alternatives.
func (b *builder) tagRunFrom(scope []*node, i int, e *spec.FieldEntry) bool {
	next := i + 1
	return next < len(scope) && scope[next].row != nil && scope[next].row.Type.Tag != "" && scope[next].entry == e && scope[next].role == ""
}
