package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
)

// Decode's fast path. Most messages a session sees are small and of one
// layout that Params do not change (ReadyForQuery, CommandComplete,
// ParameterStatus, CopyData, the Authentication requests): their cost is
// per call, not per byte, and the reader's bookkeeping (field names, the
// error value, offsets) is most of it. Such a message's Decode first reads
// it straight from src with fastReader, or with constant indexes when its
// length is fixed, and returns at once when every read fits; anything else
// goes to decode, the full reader, which checks the same and names what is
// wrong. So errors are decode's alone, and the fast path only has to agree
// with decode on the input it accepts: each of its reads is the one decode
// makes, and decode assigns every field again.

// fastItems is what follows a message's tag and length when its one layout
// has a fast path: only fields always on the wire, of the kinds fastReader
// reads, filling every field of the message. ok is false otherwise. head is
// the bytes before items: 5, or for Decode (not encode) 1, the tag of a
// replication or pgoutput message, which no length follows (the input
// ends it). Encode's fast path (encode) takes as well an array of integers
// after its count (Parse's ParameterOIDs), whose length it knows as well
// as a string's.
func (e *emitter) fastItems(encode bool) (items []*model.Item, tag *jen.Statement, head int, ok bool) {
	if len(e.msg.Layouts) != 1 || e.msg.Part {
		return nil, nil, 0, false
	}
	l := e.msg.Layouts[0]
	if tag, ok = framedBy(l.Items); ok {
		items, head = l.Items[2:], 5
	} else if tag, ok = taggedBy(l.Items); ok && !encode {
		items, head = l.Items[1:], 1
	} else {
		return nil, nil, 0, false
	}
	present := map[string]bool{}
	for i, it := range items {
		if !it.Cond.Always() {
			return nil, nil, 0, false
		}
		switch it.Op {
		case model.OpInt, model.OpByte, model.OpFixed, model.OpBytesN, model.OpString:
		case model.OpRest:
			if len(it.Lengths) > 0 {
				return nil, nil, 0, false
			}
		case model.OpCount:
			if !encode || i+1 == len(items) || !intArray(items[i+1]) || items[i+1].Field != it.Field {
				return nil, nil, 0, false
			}
		case model.OpGroup:
			if !encode || i == 0 || items[i-1].Op != model.OpCount || !intArray(it) {
				return nil, nil, 0, false
			}
		default:
			return nil, nil, 0, false
		}
		present[it.Field] = true
	}
	for _, f := range e.msg.Fields {
		if !present[f.Name] {
			return nil, nil, 0, false
		}
	}
	return items, tag, head, true
}

// intArray is whether the group it is an array of integers (its one field's
// values, always on the wire, after their count).
func intArray(it *model.Item) bool {
	return it.Op == model.OpGroup && it.Struct == nil && !it.Terminated && len(it.Elem) == 1 &&
		it.Elem[0].Op == model.OpInt && it.Elem[0].Cond.Always()
}

// fixedWidth is the length of items' body when it is the same for every
// message (only fixed-width items), or the least length when only the bytes
// to the end follow them (rest), and whether it is either.
func fixedWidth(items []*model.Item) (width int, rest, ok bool) {
	n := 0
	for i, it := range items {
		switch {
		case it.Op == model.OpRest && i == len(items)-1:
			return n, true, true
		case it.Op == model.OpString, it.Op == model.OpRest, it.Op == model.OpCount, it.Op == model.OpGroup:
			return 0, false, false
		case it.Op == model.OpByte:
			n++
		default:
			n += it.Width
		}
	}
	return n, false, true
}

// fastDecode is the fast path in front of decode, nil when the message has
// none.
func (e *emitter) fastDecode() []jen.Code {
	items, tag, head, ok := e.fastItems(false)
	if !ok {
		return nil
	}
	has := jen.Id(e.majorsConst()).Dot("Has").Call(jen.Id("p").Dot("Major"))
	if width, rest, ok := fixedWidth(items); ok {
		// A length known up to the bytes to the end: one check of tag and
		// length, then every field at its constant offset.
		b, off := "src", head
		cond := jen.Id("sized").Call(jen.Id("src"), tag, jen.Lit(4+width))
		switch {
		case head == 1: // the input's length is the message's
			op := "=="
			if rest {
				op = ">="
			}
			cond = jen.Len(jen.Id("src")).Op(op).Lit(1 + width).Op("&&").Id("src").Index(jen.Lit(0)).Op("==").Add(tag)
		case rest:
			cond = jen.Id("framed").Call(jen.Id("src"), tag)
			if width > 0 {
				cond = cond.Op("&&").Len(jen.Id("src")).Op(">=").Lit(5 + width)
			}
		}
		var reads []jen.Code
		for _, it := range items {
			switch it.Op {
			case model.OpFixed:
				cond = cond.Op("&&").Add(uintAt(b, it.Width, off)).Op("==").Lit(int(uint64(it.Value) & (^uint64(0) >> (64 - 8*it.Width))))
			case model.OpBytesN:
				reads = append(reads, jen.Copy(jen.Id("m").Dot(it.Field).Index(jen.Empty(), jen.Empty()), jen.Id(b).Index(jen.Lit(off), jen.Lit(off+it.Width))))
			case model.OpRest: // as reader.remaining: capacity ends with the message
				end := jen.Len(jen.Id(b))
				reads = append(reads, jen.Id("m").Dot(it.Field).Op("=").Id(b).Index(jen.Lit(off), end, end.Clone()))
			default:
				reads = append(reads, jen.Id("m").Dot(it.Field).Op("=").Add(valueAt(b, it, off)))
			}
			if it.Op == model.OpByte {
				off++
			} else {
				off += it.Width
			}
		}
		return []jen.Code{jen.If(cond.Op("&&").Add(has)).Block(append(reads, jen.Return(jen.Nil()))...)}
	}
	// The string that ends the message returns at once when the field
	// holds its bytes again (kept, at the known length); a message that is
	// only that string (CommandComplete) is checked on src before f exists,
	// so that f is not kept across the call for the miss.
	same := func(it *model.Item, fits *jen.Statement, rest jen.Code) jen.Code {
		return jen.If(fits.Op("&&").Id("kept").Call(rest, jen.Id("m").Dot(it.Field))).Block(jen.Return(jen.Nil()))
	}
	var body []jen.Code
	if it := items[0]; len(items) == 1 && it.Op == model.OpString && head == 5 {
		n := jen.Len(jen.Id("m").Dot(it.Field)).Op("+").Lit(5)
		body = append(body, same(it, jen.Id("sized").Call(jen.Id("src"), tag, n), jen.Id("src").Index(jen.Lit(5), jen.Empty())))
	}
	start := "body"
	if head == 1 {
		start = "tagged"
	}
	body = append(body, jen.Id("f").Op(":=").Id(start).Call(jen.Id("src"), tag))
	for i, it := range items {
		last := i == len(items)-1
		if last && it.Op == model.OpString && len(items) > 1 {
			n := jen.Len(jen.Id("m").Dot(it.Field)).Op("+").Lit(1)
			body = append(body, same(it, jen.Len(jen.Id("f")).Op("==").Add(n), jen.Id("f")))
		}
		body = append(body, e.fastRead(it, last))
	}
	body = append(body, jen.If(jen.Id("f").Dot("ended").Call()).Block(jen.Return(jen.Nil())))
	return []jen.Code{jen.If(has).Block(body...)}
}

// fastRead reads one item with fastReader f; last is whether it ends the
// message.
func (e *emitter) fastRead(it *model.Item, last bool) jen.Code {
	target := jen.Id("m").Dot(it.Field)
	fcall := func(targets []jen.Code, method string, args ...jen.Code) *jen.Statement {
		return jen.List(append(targets, jen.Id("f"))...).Op("=").Id("f").Dot(method).Call(args...)
	}
	switch it.Op {
	case model.OpInt:
		method := "u" + widthSuffix(it.Width)
		if it.Type.Unsigned() {
			return fcall([]jen.Code{target}, method)
		}
		return jen.List(target, jen.Id("f")).Op("=").Id("signed").Types(typeCode(it.Type)).Call(jen.Id("f").Dot(method).Call())
	case model.OpByte:
		return fcall([]jen.Code{target}, "u8")
	case model.OpFixed:
		return fcall(nil, "fixed", jen.Lit(it.Width), fixedValue(it))
	case model.OpBytesN:
		return fcall(nil, "fill", target.Clone().Index(jen.Empty(), jen.Empty()))
	case model.OpString:
		read := fcall([]jen.Code{target}, e.strMethod(it, scope{recv: "m"}), target.Clone())
		if last {
			return read // fastDecode checked kept
		}
		return keptOr(jen.Id("f"), target.Clone(), read)
	}
	return fcall([]jen.Code{target}, "remaining") // OpRest, of any length
}

// uintAt is the big-endian unsigned value of width bytes at offset off of
// the slice b.
func uintAt(b string, width, off int) *jen.Statement {
	if width == 1 {
		return jen.Id(b).Index(jen.Lit(off))
	}
	return jen.Qual("encoding/binary", "BigEndian").Dot("Uint" + widthSuffix(width)).Call(jen.Id(b).Index(jen.Lit(off), jen.Empty()))
}

// strMethod is the reader method that reads the string it: secret for a
// secret field of the message, which must never be interned, else str.
func (e *emitter) strMethod(it *model.Item, sc scope) string {
	if sc.recv == "m" && sc.value == "" {
		for _, f := range e.msg.Fields {
			if f.Name == it.Field && f.Secret {
				return "secret"
			}
		}
	}
	return "str"
}

// fastEncode is the fast path in front of encode, for the messages Decode
// has one for and those with an array of integers after its count: their
// length is known before anything is written, so the fast path checks what
// encode would refuse (a count too large for its field, a message over
// math.MaxInt32 bytes) and that dst has room for the whole message, then
// appends the tag and the length, never back-patched, and every field after
// them, each string with putStr, whose one pass copies it and finds a zero
// byte inside; a message that fails a check or holds such a string goes to
// encode, which grows dst or names the field.
func (e *emitter) fastEncode() []jen.Code {
	items, tag, _, ok := e.fastItems(true)
	if !ok {
		return nil
	}
	m := func(it *model.Item) *jen.Statement { return jen.Id("m").Dot(it.Field) }
	if width, rest, ok := fixedWidth(items); ok && !rest {
		return fixedEncode(items, tag, width, e.majorsConst())
	}
	fixed := 4
	var lens []jen.Code
	cond := jen.Id(e.majorsConst()).Dot("Has").Call(jen.Id("p").Dot("Major"))
	var writes, counts []jen.Code
	appendTo := func(v ...jen.Code) {
		writes = append(writes, jen.Id("b").Op("=").Append(append([]jen.Code{jen.Id("b")}, v...)...))
	}
	for _, it := range items {
		switch it.Op {
		case model.OpString:
			fixed++
			lens = append(lens, jen.Len(m(it)))
			writes = append(writes,
				jen.If(jen.Op("!").Id("putStr").Call(jen.Id("strAt").Call(jen.Id("b")), m(it))).Block(
					jen.Return(jen.Id("m").Dot("encode").Call(jen.Id("dst"), jen.Id("p")))),
				jen.Id("b").Op("=").Id("b").Index(jen.Empty(), jen.Len(jen.Id("b")).Op("+").Len(m(it)).Op("+").Lit(1)))
		case model.OpRest:
			lens = append(lens, jen.Len(m(it)))
			appendTo(m(it).Op("..."))
		case model.OpBytesN:
			fixed += it.Width
			appendTo(m(it).Index(jen.Empty(), jen.Empty()).Op("..."))
		case model.OpByte:
			fixed++
			appendTo(m(it))
		case model.OpFixed:
			fixed += it.Width
			if it.Width == 1 {
				appendTo(fixedValue(it))
			} else {
				writes = append(writes, jen.Id("b").Op("=").Qual("encoding/binary", "BigEndian").Dot("AppendUint"+widthSuffix(it.Width)).Call(jen.Id("b"), fixedValue(it)))
			}
		case model.OpCount: // of the array after it, which fastItems checked
			fixed += it.Width
			max := jen.Qual("math", "MaxInt32")
			if it.Width == 2 {
				max = jen.Qual("math", "MaxUint16")
			}
			counts = append(counts, jen.Len(m(it)).Op("<=").Add(max))
			writes = append(writes, appendUint(it.Width, typeCode(model.Uint(it.Width)).Call(jen.Len(m(it)))))
		case model.OpGroup:
			el := it.Elem[0]
			lens = append(lens, jen.Lit(el.Width).Op("*").Len(m(it)))
			v := jen.Id("v")
			if !el.Type.Unsigned() {
				v = typeCode(model.Uint(el.Width)).Call(v)
			}
			writes = append(writes, jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Add(m(it))).Block(appendUint(el.Width, v)))
		default: // OpInt
			fixed += it.Width
			v := m(it)
			if !it.Type.Unsigned() {
				v = typeCode(model.Uint(it.Width)).Call(v)
			}
			writes = append(writes, appendUint(it.Width, v))
		}
	}
	for _, c := range counts {
		cond = cond.Op("&&").Add(c)
	}
	n := jen.Lit(fixed)
	for _, l := range lens {
		n = n.Op("+").Add(l)
	}
	init, length, whole := jen.Null(), n, jen.Lit(1+fixed)
	if len(lens) > 0 {
		init, length, whole = jen.Id("n").Op(":=").Add(n), jen.Id("n"), jen.Lit(1).Op("+").Id("n")
		cond = jen.Id("n").Op("<=").Qual("math", "MaxInt32").Op("&&").Add(cond)
	}
	cond = jen.Id("hasRoom").Call(jen.Id("dst"), whole).Op("&&").Add(cond)
	body := append([]jen.Code{jen.Id("b").Op(":=").Id("putHeader").Call(jen.Id("dst"), tag, length)}, writes...)
	return []jen.Code{jen.If(init, cond).Block(append(body, jen.Return(jen.Id("b"), jen.Nil()))...)}
}

// appendUint appends the unsigned v of width bytes to b, big-endian.
func appendUint(width int, v jen.Code) jen.Code {
	if width == 1 {
		return jen.Id("b").Op("=").Append(jen.Id("b"), v)
	}
	return jen.Id("b").Op("=").Qual("encoding/binary", "BigEndian").Dot("AppendUint"+widthSuffix(width)).Call(jen.Id("b"), v)
}

// fixedEncode is fastEncode of a message whose length is the same for every
// value (items of width bytes after the tag and length): one append of all
// its bytes, which checks the room once and grows dst when it must, as the
// hand-written encoders do; with nothing to refuse but the major, it needs
// no other check.
func fixedEncode(items []*model.Item, tag *jen.Statement, width int, majors string) []jen.Code {
	bytes := []jen.Code{jen.Id("dst"), tag}
	be := func(v func(shift int) jen.Code, w int) {
		for i := w - 1; i >= 0; i-- {
			bytes = append(bytes, v(8*i))
		}
	}
	be(func(shift int) jen.Code { return jen.Lit(int(byte((4 + width) >> shift))) }, 4)
	for _, it := range items {
		m := jen.Id("m").Dot(it.Field)
		switch it.Op {
		case model.OpByte:
			bytes = append(bytes, m)
		case model.OpBytesN:
			for i := range it.Width {
				bytes = append(bytes, m.Clone().Index(jen.Lit(i)))
			}
		case model.OpFixed:
			be(func(shift int) jen.Code { return jen.Lit(int(byte(uint64(it.Value) >> shift))) }, it.Width)
		default: // OpInt
			be(func(shift int) jen.Code {
				if shift == 0 {
					return jen.Byte().Call(m.Clone())
				}
				return jen.Byte().Call(m.Clone().Op(">>").Lit(shift))
			}, it.Width)
		}
	}
	has := jen.Id(majors).Dot("Has").Call(jen.Id("p").Dot("Major"))
	return []jen.Code{jen.If(has).Block(jen.Return(jen.Append(bytes...), jen.Nil()))}
}
