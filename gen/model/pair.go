package model

import (
	"regexp"

	"github.com/pgspec/pgspec/spec"
)

// Phase 2: the rows the codec derives rather than carries as fields, paired
// with what they describe: the message's tag and length, counts with their
// groups and arrays, Int32 lengths with their Byten.

// lengthWord recognises the Int32 that gives the length of the Byten after
// it ("The length of the parameter value", "Length of the content").
var lengthWord = regexp.MustCompile(`(?i)\blength\b`)

// frame marks the message's own frame: its leading Byte1('x') tag (a
// message part has none) and its Int32 length of itself.
func (b *builder) frame(top []*node) {
	if len(top) > 0 && top[0].row != nil && !b.m.Part && top[0].row.Type.Kind == spec.KindByte && top[0].row.Type.Tag != "" {
		top[0].role = roleTag
		top[0].entry = nil
	}
	for _, n := range top {
		if n.row != nil && spec.Has(n.row.Annotations, spec.AnnLengthOfSelf) {
			n.role = roleLength
		}
	}
}

// pair finds the derived rows of one scope: counts of arrays and groups, and
// the Int32 lengths of Byten.
func (b *builder) pair(scope []*node) {
	for i, n := range scope {
		switch {
		case n.group != nil && !n.group.terminated:
			if c := prevRow(scope, i); c != nil && isCount(c) {
				c.role, c.sizes = roleCount, n
			} else {
				b.p.addf("%s: group %q has no count row before it", b.where, n.group.lead)
			}
		case n.row != nil && n.row.Type.Array != "":
			c := b.countNamed(scope[:i], n.row.Type.Array)
			if c == nil {
				c = prevRow(scope, i)
			}
			if c != nil && isCount(c) {
				c.role, c.sizes = roleCount, n
			} else {
				b.p.addf("%s: array %s has no count row", b.where, n.row.Format)
			}
		case n.row != nil && spec.Has(n.row.Annotations, spec.AnnRepeatField):
			var c *node
			for j := i - 1; j >= 0 && c == nil; j-- {
				if r := scope[j]; r.row != nil && isCount(r) && spec.Has(r.row.Annotations, spec.AnnCount) {
					c = r
				}
			}
			if c != nil {
				c.role, c.sizes = roleCount, n
			} else {
				b.p.addf("%s: repeated field %q has no count row", b.where, short(n.row))
			}
		case n.row != nil && n.row.Type.Kind == spec.KindBytes && n.row.Type.Width == 0 && b.prefixed(scope, i):
			scope[i-1].role, scope[i-1].sizes = roleSize, n
		}
	}
	for _, n := range scope {
		if n.row == nil {
			continue
		}
		if (n.role == roleCount || n.role == roleSize) && n.entry != nil {
			b.p.addf("%s: entry %q matches a %s row, which the codec derives", b.where, n.entry.Match, n.role)
			n.entry = nil
		}
		if n.role == "" && n.entry == nil && n.row.Type.Value != nil {
			n.role = roleFixed
		}
	}
}

// prefixed reports whether the Byten at scope[i] has its length in the
// Int32 just before it: the manual says "n is the above length", or the row
// before is an Int32 about a length; the overlay can say otherwise.
func (b *builder) prefixed(scope []*node, i int) bool {
	prev := prevRow(scope, i)
	candidate := prev != nil && prev.role == "" && prev.row.Type.Kind == spec.KindInt &&
		prev.row.Type.Width == 4 && prev.row.Type.Value == nil && prev.row.Type.Array == ""
	row := scope[i].row
	if spec.Has(row.Annotations, spec.AnnRest) {
		return false
	}
	if e := scope[i].entry; e != nil && e.Prefixed != nil {
		if *e.Prefixed && !candidate {
			b.p.addf("%s: %q is prefixed by the overlay but no Int32 precedes it", b.where, short(row))
		}
		return *e.Prefixed && candidate
	}
	if spec.Has(row.Annotations, spec.AnnLengthFrom) {
		if !candidate {
			b.p.addf("%s: %q says n is the above length but no Int32 precedes it", b.where, short(row))
		}
		return candidate
	}
	return candidate && lengthWord.MatchString(prev.row.Description.En) && !spec.Has(prev.row.Annotations, spec.AnnLengthOfSelf)
}

func (b *builder) countNamed(scope []*node, name string) *node {
	for _, n := range scope {
		if n.row == nil {
			continue
		}
		for _, a := range n.row.Annotations {
			if a.Kind == spec.AnnCountName && a.Value == name {
				return n
			}
		}
	}
	return nil
}

func prevRow(scope []*node, i int) *node {
	if i == 0 || scope[i-1].row == nil {
		return nil
	}
	return scope[i-1]
}

func isCount(n *node) bool {
	t := n.row.Type
	return n.role == "" && t.Kind == spec.KindInt && t.Value == nil && t.Array == "" && (t.Width == 2 || t.Width == 4)
}
