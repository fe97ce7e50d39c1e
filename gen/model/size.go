package model

// Sizes on the wire, once every message has its layouts: the fewest bytes
// items take, and the check that a count can be bounded by them.

// MinSize is the fewest bytes items take on the wire: every conditional
// item absent, every group empty, every part in its shortest layout. A
// decoder bounds a count by the bytes left with its elements' MinSize.
func MinSize(items []*Item) int {
	n := 0
	for _, it := range items {
		if !it.Cond.Always() {
			continue
		}
		switch it.Op {
		case OpFixed, OpInt, OpCount, OpRaw, OpBytesN, OpLength:
			n += it.Width
		case OpTag, OpByte, OpString:
			n++
		case OpChoice:
			if !it.Choice.Optional {
				n++
			}
		case OpBytes:
			n += 4
		case OpPart:
			n += it.Part.minSize()
		case OpGroup:
			if it.Terminated {
				n++
			}
		}
	}
	return n
}

// minSize is the MinSize of the message's shortest layout.
func (msg *Message) minSize() int {
	least := -1
	for _, l := range msg.Layouts {
		if s := MinSize(l.Items); least < 0 || s < least {
			least = s
		}
	}
	return max(least, 0)
}

// checkSizes reports a counted group whose elements can take no bytes:
// its count could not be bounded by the bytes left.
func checkSizes(mod *Model, p *problems) {
	var walk func(where string, items []*Item)
	walk = func(where string, items []*Item) {
		for _, it := range items {
			if it.Op == OpGroup && !it.Terminated && len(it.Elem) > 0 && MinSize(it.Elem) == 0 {
				p.addf("%s: group %s has elements that can take no bytes, so its count cannot be bounded", where, it.Field)
			}
			walk(where, it.Elem)
		}
	}
	for _, msg := range mod.Messages {
		for _, l := range msg.Layouts {
			walk("pg"+majorList(l.Majors)+" "+msg.Slug, l.Items)
		}
	}
}
