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
	fa, fb := fieldSet(a.Items), fieldSet(b.Items)
	var out []fieldChange
	for _, f := range sortedKeys(fb) {
		if _, ok := fa[f]; !ok {
			out = append(out, fieldChange{kind: spec.FieldAdded, field: f})
		}
	}
	for _, f := range sortedKeys(fa) {
		if _, ok := fb[f]; !ok {
			out = append(out, fieldChange{kind: spec.FieldRemoved, field: f})
		}
	}
	for _, f := range sortedKeys(fa) {
		if y, ok := fb[f]; ok && y.String() != fa[f].String() {
			out = append(out, fieldChange{kind: spec.FieldChanged, field: f})
		}
	}
	if len(out) == 0 && a.String() != b.String() {
		out = append(out, fieldChange{kind: spec.LayoutChanged})
	}
	return out
}

// WireChanges lists every change of a wire layout between consecutive
// majors of the model, message by message in model order: the list a
// person must acknowledge (spec.CheckWireChanges) before a codec is made.
func (m *Model) WireChanges() []spec.WireChange {
	var out []spec.WireChange
	for i := 1; i < len(m.Majors); i++ {
		prev, cur := m.Majors[i-1], m.Majors[i]
		for _, msg := range m.Messages {
			la, lb := msg.layoutIn(prev), msg.layoutIn(cur)
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

// layoutIn is the message's layout in major, nil when the manual does not
// document it there.
func (msg *Message) layoutIn(major int) *Layout {
	for _, l := range msg.Layouts {
		if slices.Contains(l.Majors, major) {
			return l
		}
	}
	return nil
}
