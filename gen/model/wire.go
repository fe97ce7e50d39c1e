package model

import (
	"slices"

	"github.com/pgspec/pgspec/spec"
)

// fieldChange is one difference between two layouts of a message.
type fieldChange struct {
	kind  string // spec.FieldAdded, FieldRemoved, FieldChanged or LayoutChanged
	field string
}

// layoutDiff lists how layout b differs from a: fields added, removed and
// changed by name, in that order and by name within each; when the layouts
// differ only in unnamed steps (a tag, a fixed value), one LayoutChanged.
func layoutDiff(a, b *Layout) []fieldChange {
	added, removed, changed := fieldDelta(a.Items, b.Items)
	var out []fieldChange
	for _, set := range []struct {
		kind   string
		fields []string
	}{{spec.FieldAdded, added}, {spec.FieldRemoved, removed}, {spec.FieldChanged, changed}} {
		for _, f := range set.fields {
			out = append(out, fieldChange{kind: set.kind, field: f})
		}
	}
	if len(out) == 0 && a.String() != b.String() {
		out = append(out, fieldChange{kind: spec.LayoutChanged})
	}
	return out
}

// fieldDelta names the fields items b adds to a, removes from it and changes,
// each sorted: the one comparison behind the wire-change list and the
// matrix's words.
func fieldDelta(a, b []*Item) (added, removed, changed []string) {
	fa, fb := fieldSet(a), fieldSet(b)
	for _, f := range sortedKeys(fb) {
		if _, ok := fa[f]; !ok {
			added = append(added, f)
		}
	}
	for _, f := range sortedKeys(fa) {
		switch y, ok := fb[f]; {
		case !ok:
			removed = append(removed, f)
		case y.String() != fa[f].String():
			changed = append(changed, f)
		}
	}
	return added, removed, changed
}

// WireChanges lists every change of a wire layout between consecutive
// majors of the model, message by message in model order: the list a
// person must acknowledge (spec.CheckWireChanges) before a codec is made.
func (m *Model) WireChanges() []spec.WireChange {
	var out []spec.WireChange
	for i := 1; i < len(m.Majors); i++ {
		prev, cur := m.Majors[i-1], m.Majors[i]
		for _, msg := range m.Messages {
			la, lb := msg.LayoutIn(prev), msg.LayoutIn(cur)
			w := spec.WireChange{Major: cur, Message: msg.Slug}
			switch {
			case la == nil && lb == nil:
			case la == nil:
				w.Change = spec.MessageAdded
				out = append(out, w)
			case lb == nil:
				w.Change = spec.MessageRemoved
				out = append(out, w)
			case la != lb:
				for _, c := range layoutDiff(la, lb) {
					w.Change, w.Field = c.kind, c.field
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// LayoutIn is the message's layout in major, nil when the manual does not
// document it there.
func (msg *Message) LayoutIn(major int) *Layout {
	for _, l := range msg.Layouts {
		if slices.Contains(l.Majors, major) {
			return l
		}
	}
	return nil
}
