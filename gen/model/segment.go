package model

import (
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Phase 1 of a layout: the message's rows and the groups their lead
// paragraphs open (segment), each row given the overlay entry that names it
// (matchEntries).

// segment splits the message's blocks into top-level rows and the groups
// their lead paragraphs open. A lead recognised as "Or" continues the group
// it is in; "After the last X" closes it.
func (b *builder) segment(used usage) []*node {
	var top []*node
	var cur *group
	for bi := range b.m.Blocks {
		blk := &b.m.Blocks[bi]
		if blk.Lead != nil {
			text := strings.TrimSpace(blk.Lead.Text.En)
			ge := b.groupEntry(text)
			switch {
			case ge != nil:
				used.groups[ge]++
				cur = &group{entry: ge, lead: text, terminated: spec.Has(blk.Lead.Annotations, spec.AnnTerminated)}
				if ge.Terminated != nil {
					cur.terminated = *ge.Terminated
				}
				top = append(top, &node{group: cur})
			case spec.Has(blk.Lead.Annotations, spec.AnnRepeatEach):
				b.p.addf("%s: lead %q opens a group that no overlay group entry names", b.where, text)
				cur = &group{lead: text}
				top = append(top, &node{group: cur})
			case spec.Has(blk.Lead.Annotations, spec.AnnAfterGroup):
				cur = nil
			case spec.Has(blk.Lead.Annotations, spec.AnnAlternative):
				// "Or": the rows after it are an alternative to the ones
				// before, in the same group; they become one choice.
			}
		}
		for ri := range blk.Rows {
			n := &node{row: &blk.Rows[ri]}
			if cur != nil {
				cur.nodes = append(cur.nodes, n)
			} else {
				top = append(top, n)
			}
		}
	}
	return top
}

func (b *builder) groupEntry(lead string) *spec.GroupEntry {
	var found *spec.GroupEntry
	for _, ge := range b.me.Groups {
		if ge.Matches(lead) {
			if found != nil {
				b.p.addf("%s: lead %q matched by two group entries (%q, %q)", b.where, lead, found.Lead, ge.Lead)
			}
			found = ge
		}
	}
	return found
}

// matchEntries gives every row the one overlay entry that names it: its
// message's own, else the one shared entry that matches.
func (b *builder) matchEntries(nodes []*node, used usage) {
	for _, n := range nodes {
		if n.group != nil {
			b.matchEntries(n.group.nodes, used)
			continue
		}
		for _, entries := range [][]*spec.FieldEntry{b.me.Fields, b.ov.Fields} {
			for _, fe := range entries {
				if !fe.Matches(b.s.Major, n.row) {
					continue
				}
				used.fields[fe]++
				if n.entry != nil {
					b.p.addf("%s: row %s %q matched by two entries (%q, %q)", b.where, n.row.Format, short(n.row), n.entry.Match, fe.Match)
					continue
				}
				n.entry = fe
			}
			if n.entry != nil {
				break
			}
		}
	}
}
