package model

import (
	"fmt"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Manual renders the item in the manual's notation (Int32, Byte4, Byten,
// String), as a reader compares layouts: an Int32 the codec carries as its
// raw bytes reads Byte4, a Byten the length field bounds reads Byten. The
// condition and the protocol gate follow in brackets as String writes them.
func (it *Item) Manual() string {
	var b strings.Builder
	switch it.Op {
	case OpTag:
		fmt.Fprintf(&b, "Byte1(%q)", rune(it.Value))
	case OpLength:
		b.WriteString("Int32 length")
	case OpFixed:
		if it.Row != nil && it.Row.Type.Kind == spec.KindByte {
			fmt.Fprintf(&b, "Byte1(%q)", rune(it.Value))
		} else {
			fmt.Fprintf(&b, "Int%d(%d)", 8*it.Width, it.Value)
		}
	case OpCount:
		fmt.Fprintf(&b, "Int%d count", 8*it.Width)
	case OpInt:
		fmt.Fprintf(&b, "Int%d", 8*it.Width)
	case OpByte:
		b.WriteString("Byte1")
	case OpChoice:
		quoted := make([]string, len(it.Choice.Tags))
		for i, t := range it.Choice.Tags {
			quoted[i] = fmt.Sprintf("%q", rune(t))
		}
		fmt.Fprintf(&b, "Byte1(%s)", strings.Join(quoted, " | "))
		if it.Choice.Optional {
			b.WriteString("?")
		}
	case OpString:
		b.WriteString("String")
	case OpBytesN, OpRaw:
		fmt.Fprintf(&b, "Byte%d", it.Width)
	case OpRest:
		b.WriteString("Byten")
		for _, pl := range it.Lengths {
			if pl.Min == pl.Max {
				fmt.Fprintf(&b, " (3.%d: %d bytes)", pl.Minor, pl.Min)
			} else {
				fmt.Fprintf(&b, " (3.%d: %d–%d bytes)", pl.Minor, pl.Min, pl.Max)
			}
		}
	case OpBytes:
		b.WriteString("Int32 length, Byten")
		if it.Nullable {
			b.WriteString(" (−1: NULL)")
		}
	case OpPart:
		if it.Row != nil {
			b.WriteString(it.Row.Format)
		} else {
			b.WriteString(it.Part.Slug)
		}
	case OpGroup:
		b.WriteString("repeated")
		if it.Terminated {
			b.WriteString(" until a zero byte")
		}
		b.WriteString(" {")
		for i, e := range it.Elem {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + e.Manual())
		}
		b.WriteString(" }")
	}
	return b.String() + it.Cond.notes()
}

// notes renders the condition in brackets after an item's notation.
func (c Cond) notes() string {
	var b strings.Builder
	if g := c.Gate; g != NoGate {
		b.WriteString(" [" + g.String() + "]")
	}
	if v := c.SinceLogical; v != 0 {
		fmt.Fprintf(&b, " [logical protocol %d+]", v)
	}
	if w := c.When; w != nil {
		if len(w.Tags) == 0 {
			b.WriteString(" [if " + w.Field + " set]")
		} else {
			fmt.Fprintf(&b, " [if %s in %q]", w.Field, w.Tags)
		}
	}
	return b.String()
}
