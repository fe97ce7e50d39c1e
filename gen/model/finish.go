package model

// Phase 5: checks of a whole layout, once its items are made.

// finish checks the layout's items: its choices against the manual's note
// on them, and that a field running to the end of the message is last.
func (b *builder) finish(items []*Item) {
	b.checkExclusive(items)
	for i, it := range items {
		if it.Op == OpRest && i != len(items)-1 {
			b.p.addf("%s: %s runs to the end of the message but is not its last field", b.where, it.Field)
		}
	}
}

// checkExclusive holds the message's choices to its "either a 'K' … or an
// 'O' …, but never both" note: one choice holds exactly those tags, and may
// be absent exactly when the note says "or neither".
func (b *builder) checkExclusive(items []*Item) {
	tags, neither, ok := exclusiveTags(b.m)
	if !ok {
		return
	}
	for _, it := range items {
		if it.Op == OpChoice && sameTags(it.Choice.Tags, tags) {
			if it.Choice.Optional != neither {
				b.p.addf("%s: choice %s is optional=%t but the manual's note says %q", b.where, it.Field, it.Choice.Optional, quoteTags(tags))
			}
			return
		}
	}
	b.p.addf("%s: the manual says only one of %s is sent, but no choice holds them", b.where, quoteTags(tags))
}
