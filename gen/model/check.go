package model

import (
	"fmt"
	"slices"
)

// Phase 3's check: each item, when it is made, holds what its op needs.

// check reports an item that is ill-formed for its op when it is made.
func (b *builder) check(it *Item) {
	switch why := it.illFormed(); {
	case it.Op == OpPart && it.Part == nil:
		b.p.addf("%s: no message part %q in pg%d", b.where, it.Row.Type.Part, b.s.Major)
	case why != "":
		b.p.addf("%s: %s %s", b.where, it.named(), why)
	}
}

// illFormed says what makes the item ill-formed for its op, "" when
// nothing does: what the generated code reads, writes or sizes must be
// there and agree, so that emit never meets an item it cannot generate.
func (it *Item) illFormed() string {
	switch it.Op {
	case OpTag, OpByte:
		if it.Width != 1 {
			return fmt.Sprintf("is %d bytes wide, not one", it.Width)
		}
	case OpLength:
		if it.Width != 4 {
			return fmt.Sprintf("is %d bytes wide, but a length is an Int32", it.Width)
		}
	case OpFixed:
		if !slices.Contains([]int{1, 2, 4, 8}, it.Width) || it.Value < 0 || it.Width < 8 && it.Value >= 1<<(8*it.Width) {
			return fmt.Sprintf("fixes the value %d in %d bytes", it.Value, it.Width)
		}
	case OpCount:
		if it.Width != 2 && it.Width != 4 {
			return fmt.Sprintf("is %d bytes wide, but a count is an Int16 or Int32", it.Width)
		}
	case OpInt:
		if it.Type.Kind != KindInt && it.Type.Kind != KindUint || it.Type.Bits != 8*it.Width {
			return fmt.Sprintf("is %d bytes wide, but its Go type is %s", it.Width, it.Type)
		}
	case OpChoice:
		if it.Choice == nil || len(it.Choice.Tags) == 0 || len(it.Choice.Tags) != len(it.Choice.Alternatives) {
			return "is a choice of no tags"
		}
	case OpBytesN, OpRaw:
		if it.Width <= 0 {
			return "has no width"
		}
	case OpRest:
		for i, pl := range it.Lengths {
			if pl.Min < 0 || pl.Max < pl.Min || i > 0 && pl.Minor <= it.Lengths[i-1].Minor {
				return fmt.Sprintf("has the length bounds %v, which are not increasing ranges by protocol minor", it.Lengths)
			}
		}
	case OpPart:
		if it.Part == nil {
			return "carries no message part"
		}
	case OpGroup:
		return it.illFormedGroup()
	case OpString, OpBytes:
	default:
		return "has no op"
	}
	return ""
}

// illFormedGroup holds a group to what its reading needs: elements, and
// either a count or, when a zero byte ends it, elements that start with
// fixed bytes then strings only, so that the runtime can count them
// (ErrorResponse's code and value, StartupMessage's name and value).
func (it *Item) illFormedGroup() string {
	if it.GroupEntry == nil && it.Row == nil {
		return "" // a lead no entry names, reported where it is found
	}
	switch {
	case len(it.Elem) == 0:
		return "has no fields per element"
	case it.Terminated:
		strs := false
		for _, el := range it.Elem {
			fixed := el.Op == OpByte || el.Op == OpInt
			if !el.Cond.Always() || el.Op != OpString && (!fixed || strs) {
				return "is ended by a zero byte, but its elements are not fixed bytes then strings, always present"
			}
			strs = strs || el.Op == OpString
		}
	case it.CountWidth == 0:
		return "is counted by no count row"
	}
	return ""
}

// named is how a problem names an item: its row, else its field.
func (it *Item) named() string {
	if it.Row != nil {
		return fmt.Sprintf("%s %q", it.Row.Format, short(it.Row))
	}
	return "group " + it.Field
}
