package emit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
)

// scope is where generated code reads or writes fields: the message (m),
// a group element (e), or the value of a flattened group (v).
type scope struct {
	recv string
	// value, when set, is the variable holding a flattened group's value.
	value string
	// prefix names the enclosing group in error messages ("Fields.").
	prefix string
}

func (sc scope) target(it *model.Item) *jen.Statement {
	if sc.value != "" {
		return jen.Id(sc.value)
	}
	return jen.Id(sc.recv).Dot(it.Field)
}

func (sc scope) name(it *model.Item) string {
	if it.Field == "" {
		return strings.TrimSuffix(sc.prefix, ".")
	}
	return sc.prefix + it.Field
}

// widthSuffix is the reader/writer method suffix of an integer width.
func widthSuffix(width int) string { return fmt.Sprint(8 * width) }

// fixedValue renders a fixed value: a tag as a character literal.
func fixedValue(it *model.Item) *jen.Statement {
	if it.Width == 1 && it.Value >= ' ' && it.Value < 127 {
		return jen.LitRune(rune(it.Value))
	}
	return jen.Lit(int(it.Value))
}

// fixedName is how a fixed row is named in errors: its format.
func fixedName(it *model.Item) string {
	if it.Op == model.OpTag {
		return "tag"
	}
	return it.Row.Format
}

// condition is the Go condition under which an item is on the wire, nil
// when it always is.
func condition(it *model.Item, sc scope) *jen.Statement {
	var conds []*jen.Statement
	switch it.Cond.Gate {
	case model.GateStreamed:
		conds = append(conds, jen.Id("p").Dot("Streaming").Op("&").Id("Streamed").Op("!=").Lit(0))
	case model.GateParallel:
		conds = append(conds, jen.Id("p").Dot("Streaming").Op("&").Id("ParallelStreaming").Op("!=").Lit(0))
	}
	if v := it.Cond.SinceLogical; v > 0 {
		conds = append(conds, jen.Id("p").Dot("LogicalVersion").Op(">=").Lit(v))
	}
	if w := it.Cond.When; w != nil {
		field := func() *jen.Statement { return jen.Id(sc.recv).Dot(w.Field) }
		if len(w.Tags) == 0 {
			conds = append(conds, field().Op("!=").Lit(0))
		} else {
			var c *jen.Statement
			for _, tag := range w.Tags {
				if w.Choice != nil && w.Choice.Choice != nil && !bytes.ContainsRune(w.Choice.Choice.Tags, rune(tag)) {
					continue // not a value of this layout's choice ('b' before 14)
				}
				eq := field().Op("==").LitRune(rune(tag))
				if c == nil {
					c = eq
				} else {
					c = c.Op("||").Add(eq)
				}
			}
			if c == nil { // none of its tags is this layout's
				c = jen.False()
			}
			conds = append(conds, jen.Parens(c))
		}
	}
	if len(conds) == 0 {
		return nil
	}
	c := conds[0]
	for _, o := range conds[1:] {
		c = c.Op("&&").Add(o)
	}
	return c
}

// readLayout is the body of a layout's read: zero the fields the layout
// lacks, then read every item in order.
func (e *emitter) readLayout(l *model.Layout) []jen.Code {
	present := map[string]bool{}
	for _, it := range l.Items {
		if it.Field != "" && it.Op != model.OpCount {
			present[it.Field] = true
		}
	}
	var out []jen.Code
	for _, f := range e.msg.Fields {
		if !present[f.Name] {
			out = append(out, zero(jen.Id("m").Dot(f.Name), f.Type)...)
		}
	}
	items := l.Items
	if _, _, _, fast := e.fastItems(false); fast {
		// Decode's fast path has checked tag and length (a replication or
		// pgoutput message: tag and the input's length) and found them
		// wrong, or something after them.
	} else if tag, ok := framedBy(items); ok {
		// Tag and length in one check on the path every message takes; the
		// separate reads only run to say what is wrong.
		out = append(out, jen.If(jen.Id("r").Dot("framed").Call(tag)).Block(
			jen.Id("r").Dot("rest").Op("=").Id("r").Dot("rest").Index(jen.Lit(5), jen.Empty()),
		).Else().Block(
			jen.Id("r").Op("=").Id("r").Dot("tag").Call(tag).Dot("length").Call(),
		))
		items = items[2:]
	}
	return append(out, e.readItems(items, scope{recv: "m"})...)
}

// readWhole is readLayout for a layout that ends with the input: bytes
// left over are ErrTrailingBytes after its last item.
func (e *emitter) readWhole(l *model.Layout) []jen.Code {
	return append(e.readLayout(l), endCheck(l))
}

// endCheck fails with ErrTrailingBytes, naming the layout's last item, when
// input is left.
func endCheck(l *model.Layout) jen.Code {
	last := l.Items[len(l.Items)-1]
	name := last.Field
	switch {
	case name != "":
	case last.Op == model.OpLength:
		name = "length"
	default:
		name = fixedName(last)
	}
	return rcall(nil, "end", jen.Lit(name))
}

// framedBy reports whether a layout starts with a tag byte and the length
// (every frontend/backend message but the startup ones), and the tag.
func framedBy(items []*model.Item) (*jen.Statement, bool) {
	if len(items) < 2 || items[0].Op != model.OpTag || items[1].Op != model.OpLength ||
		condition(items[0], scope{}) != nil || condition(items[1], scope{}) != nil {
		return nil, false
	}
	return fixedValue(items[0]), true
}

// taggedBy is the tag of items when they begin with it and no length
// follows (a replication or pgoutput message, whose input ends it).
func taggedBy(items []*model.Item) (*jen.Statement, bool) {
	if len(items) < 1 || items[0].Op != model.OpTag || condition(items[0], scope{}) != nil ||
		len(items) > 1 && items[1].Op == model.OpLength {
		return nil, false
	}
	return fixedValue(items[0]), true
}

func (e *emitter) readItems(items []*model.Item, sc scope) []jen.Code {
	var out []jen.Code
	for i := 0; i < len(items); i++ {
		if run := condRun(items[i:]); len(run) > 0 {
			// Fields under one condition are read in one if; when it does
			// not hold they are zeroed, so a reused value keeps no stale one.
			var zeros []jen.Code
			for _, it := range run {
				zeros = append(zeros, zero(sc.target(it), it.Type)...)
			}
			out = append(out, jen.If(condition(run[0], sc)).Block(e.readItems(unconditional(run), sc)...).Else().Block(zeros...))
			i += len(run) - 1
			continue
		}
		if run := fixedRun(items[i:], sc); len(run) > 1 {
			out = append(out, e.readRun(run, sc))
			i += len(run) - 1
			continue
		}
		out = append(out, e.readItem(items[i], sc)...)
	}
	return out
}

// condRun is the run of items under the condition items starts with, empty
// when the first item is always on the wire.
func condRun(items []*model.Item) []*model.Item {
	if len(items) == 0 || items[0].Cond.Always() {
		return nil
	}
	n := 1
	for n < len(items) && items[n].Cond.Equal(items[0].Cond) {
		n++
	}
	return items[:n] // never a count: the model gives counts no condition
}

// unconditional is a run of items as read or written inside the if that
// tests their condition.
func unconditional(run []*model.Item) []*model.Item {
	out := make([]*model.Item, len(run))
	for i, it := range run {
		c := *it
		c.Cond = model.Cond{}
		out[i] = &c
	}
	return out
}

// rcall is a reader call: the reader is a value, so each call returns it,
// after the value read when there is one (targets).
func rcall(targets []jen.Code, method string, args ...jen.Code) *jen.Statement {
	return jen.List(append(targets, jen.Id("r"))...).Op("=").Id("r").Dot(method).Call(args...)
}

func (e *emitter) readItem(it *model.Item, sc scope) []jen.Code {
	name := sc.name(it)
	switch it.Op {
	case model.OpTag:
		return []jen.Code{rcall(nil, "tag", fixedValue(it))}
	case model.OpFixed:
		return []jen.Code{rcall(nil, "fixed", jen.Lit(fixedName(it)), jen.Lit(it.Width), fixedValue(it))}
	case model.OpLength:
		return []jen.Code{rcall(nil, "length")}
	case model.OpCount:
		n := "n" + it.Field
		return []jen.Code{
			jen.Var().Id(n).Int(),
			e.countCall(n, name, it.Width, model.MinSize(it.Sizes.Elem)), // never 0: the model checks
		}
	case model.OpBytesN:
		return []jen.Code{rcall(nil, "fill", jen.Lit(name), sc.target(it).Index(jen.Empty(), jen.Empty()))}
	case model.OpRest:
		return e.byProtocol(it, func(lo, hi jen.Code, _ string) []jen.Code {
			return []jen.Code{rcall([]jen.Code{sc.target(it)}, "remaining", jen.Lit(name), lo, hi)}
		})
	case model.OpPart:
		// Read only while nothing failed, so that in names the part of an
		// error inside it, and no earlier one.
		return []jen.Code{jen.If(jen.Id("r").Dot("err").Op("==").Nil()).Block(
			jen.Id("r").Op("=").Add(sc.target(it)).Dot("read").Call(jen.Id("r"), jen.Id("p")).Dot("in").Call(jen.Lit(name)))}
	case model.OpGroup:
		return e.readGroup(it, sc)
	case model.OpString:
		return []jen.Code{keptOr(jen.Id("r").Dot("rest"), sc.target(it), rcall([]jen.Code{sc.target(it)}, e.strMethod(it, sc), jen.Lit(name), sc.target(it)))}
	}
	return []jen.Code{readValue(sc.target(it), it, name)}
}

// keptOr reads the string target from rest (r.rest, or fastReader f) with
// read, unless kept finds that target holds the bytes already: then it is
// kept, so that a reused value costs no copy, and rest steps over them and
// their terminator with no call but kept's, which needs no stack frame.
func keptOr(rest, target jen.Code, read jen.Code) *jen.Statement {
	return jen.If(jen.Id("kept").Call(rest, target)).Block(
		jen.Add(rest).Op("=").Add(rest).Index(jen.Len(target).Op("+").Lit(1), jen.Empty()),
	).Else().Block(read)
}

// countCall reads a count into n: Int16 counts through the inlined count16.
func (e *emitter) countCall(n, name string, width, minElem int) *jen.Statement {
	if width == 2 {
		return rcall([]jen.Code{jen.Id(n)}, "count16", jen.Lit(name), jen.Lit(minElem))
	}
	return rcall([]jen.Code{jen.Id(n)}, "count", jen.Lit(name), jen.Lit(width), jen.Lit(minElem))
}

// readValue reads one scalar value into target.
func readValue(target jen.Code, it *model.Item, name string) *jen.Statement {
	to := []jen.Code{target}
	switch it.Op {
	case model.OpInt:
		method := "u" + widthSuffix(it.Width) // the model checked Type is Width wide
		if it.Type.Unsigned() {
			return rcall(to, method, jen.Lit(name))
		}
		read := jen.Id("r").Dot(method).Call(jen.Lit(name))
		return jen.List(target, jen.Id("r")).Op("=").Id("signed").Types(typeCode(it.Type)).Call(read)
	case model.OpByte:
		return rcall(to, "u8", jen.Lit(name))
	case model.OpChoice:
		return rcall(to, "choice", jen.Lit(name), jen.Lit(string(it.Choice.Tags)), jen.Lit(it.Choice.Optional))
	case model.OpString:
		return keptOr(jen.Id("r").Dot("rest"), target, rcall(to, "str", jen.Lit(name), target))
	case model.OpRaw:
		return rcall(to, "take", jen.Lit(name), jen.Lit(it.Width))
	case model.OpBytes:
		return rcall(to, "bytes32", jen.Lit(name), jen.Lit(it.Nullable))
	}
	panic("emit: no read expression for " + it.String())
}

// bulkBytes reports a counted group of nothing but Int32-length-prefixed
// values (DataRow's columns, Bind's parameters): the runtime reads and
// writes those in one loop (bytes32s) rather than one call per value.
func bulkBytes(it *model.Item) bool {
	return it.Struct == nil && !it.Terminated && len(it.Elem) == 1 &&
		it.Elem[0].Op == model.OpBytes && it.Elem[0].Cond.Always()
}

func (e *emitter) readGroup(it *model.Item, sc scope) []jen.Code {
	name := sc.name(it)
	target := func() *jen.Statement { return sc.target(it) }
	// A counted group is sized to its count first, reusing its array.
	sized := func() *jen.Statement {
		return target().Op("=").Id("grow").Call(target(), jen.Id("n"+it.Field)).Index(jen.Empty(), jen.Id("n"+it.Field))
	}
	if bulkBytes(it) {
		return []jen.Code{sized(), rcall(nil, "bytes32s", jen.Lit(name), target(), jen.Lit(it.Elem[0].Nullable))}
	}
	if it.Terminated {
		// Elements until a zero byte, read in place into the slice's whole
		// capacity; when it is full, the elements left are counted
		// (terminated) and room made for them at once.
		fixed, strs := terminatedShape(it)
		loop := jen.For(jen.Empty(), jen.Op("!").Id("r").Dot("ended").Call(), jen.Id("i").Op("++"))
		full := jen.If(jen.Id("i").Op("==").Len(target())).Block(
			target().Op("=").Id("room").Call(target(), jen.Id("r").Dot("terminated").Call(jen.Lit(fixed), jen.Lit(strs))))
		return append([]jen.Code{
			target().Op("=").Add(target()).Index(jen.Empty(), jen.Cap(target())),
			jen.Var().Id("i").Int(),
		}, append(e.readElems(it, sc, target, loop, full),
			target().Op("=").Add(target()).Index(jen.Empty(), jen.Id("i")),
			rcall(nil, "terminate", jen.Lit(name)))...)
	}
	if tag, value, ok := taggedValues(it); ok {
		loop := jen.For(jen.Empty(), jen.Id("i").Op("<").Len(target()), jen.Id("i").Op("++"))
		return append(append([]jen.Code{sized()}, readTagged(target, tag, value)...), e.readElems(it, sc, target, loop)...)
	}
	loop := jen.For(jen.Id("i").Op(":=").Range().Add(target()))
	return append([]jen.Code{sized()}, e.readElems(it, sc, target, loop)...)
}

// readElems is loop reading a group's elements in place (first statements
// first), every field of each assigned (or zeroed when absent), so a reused
// value keeps no stale one.
func (e *emitter) readElems(it *model.Item, sc scope, target func() *jen.Statement, loop *jen.Statement, first ...jen.Code) []jen.Code {
	name := sc.name(it)
	body := first
	if it.Struct == nil {
		v := it.Elem[len(it.Elem)-1]
		body = append(append(body, e.readItems(it.Elem[:len(it.Elem)-1], sc)...), readValue(target().Index(jen.Id("i")), v, name))
	} else {
		inner := scope{recv: "e", prefix: name + "."}
		body = append(body, jen.Id("e").Op(":=").Op("&").Add(target()).Index(jen.Id("i")))
		body = append(body, e.readItems(it.Elem, inner)...)
	}
	// An element that failed is named by its index in the error.
	body = append(body, jen.If(jen.Id("r").Dot("err").Op("!=").Nil()).Block(
		jen.Id("r").Op("=").Id("r").Dot("at").Call(jen.Lit(name), jen.Id("i")), jen.Break()))
	return []jen.Code{loop.Block(body...)}
}

// terminatedShape is what reader.terminated needs to count a zero-terminated
// group's elements: how many fixed bytes each starts with, then how many
// zero-terminated strings follow. The model holds every such group to that
// shape (ErrorResponse's code and value, StartupMessage's name and value,
// AuthenticationSASL's mechanisms).
func terminatedShape(g *model.Item) (fixed, strs int) {
	for _, it := range g.Elem {
		switch it.Op {
		case model.OpString:
			strs++
		case model.OpByte, model.OpInt:
			fixed += it.Width
		}
	}
	return fixed, strs
}

// byProtocol chooses an item's length bounds by Params.ProtocolMinor; body
// also gets what a later protocol allows beyond them ("" for the last), for
// an error to name.
func (e *emitter) byProtocol(it *model.Item, body func(lo, hi jen.Code, later string) []jen.Code) []jen.Code {
	if len(it.Lengths) == 0 {
		return body(jen.Lit(0), jen.Id("anyLength"), "")
	}
	later := func(i int) string {
		if i+1 == len(it.Lengths) {
			return ""
		}
		pl := it.Lengths[i+1]
		return fmt.Sprintf("Params.ProtocolMinor %d (protocol 3.%d) allows %d to %d bytes", pl.Minor, pl.Minor, pl.Min, pl.Max)
	}
	last := it.Lengths[0]
	stmt := body(jen.Lit(last.Min), jen.Lit(last.Max), later(0))
	for i, pl := range it.Lengths[1:] {
		stmt = []jen.Code{jen.If(jen.Id("p").Dot("ProtocolMinor").Op(">=").Lit(pl.Minor)).
			Block(body(jen.Lit(pl.Min), jen.Lit(pl.Max), later(i+1))...).Else().Block(stmt...)}
	}
	return stmt
}

// writeLayout is the body of a layout's write: the message's fields the
// layout lacks must not be set, then every item in order.
func (e *emitter) writeLayout(l *model.Layout) []jen.Code {
	present := map[string]bool{}
	for _, it := range l.Items {
		present[it.Field] = true
	}
	var out []jen.Code
	for _, f := range e.msg.Fields {
		if !present[f.Name] {
			out = append(out, jen.If(isSet(jen.Id("m").Dot(f.Name), f.Type)).Block(
				wcall("absent", jen.Lit(f.Name), jen.Lit("in PostgreSQL "+model.Span(f.Majors, e.mod.Majors)))))
		}
	}
	items := l.Items
	if tag, ok := framedBy(items); ok {
		out = append(out, jen.List(jen.Id("w"), jen.Id("start")).Op(":=").Id("w").Dot("header").Call(tag))
		items = items[2:]
	}
	out = append(out, e.writeItems(items, scope{recv: "m"})...)
	for _, it := range l.Items {
		if it.Op == model.OpLength {
			out = append(out, wcall("finish", jen.Id("start")))
		}
	}
	return out
}

func (e *emitter) writeItems(items []*model.Item, sc scope) []jen.Code {
	var out []jen.Code
	declared := false // the run variable, once per Go block
	for i := 0; i < len(items); i++ {
		if run := condRun(items[i:]); len(run) > 0 {
			// A field the condition leaves off the wire must not be set:
			// writing nothing for it would drop it silently.
			var absent []jen.Code
			for _, it := range run {
				if it.Field != "" {
					absent = append(absent, jen.If(isSet(sc.target(it), it.Type)).Block(
						wcall("absent", jen.Lit(sc.name(it)), jen.Lit("when "+it.Cond.Words()))))
				}
			}
			out = append(out, jen.If(condition(run[0], sc)).Block(e.writeItems(unconditional(run), sc)...).Else().Block(absent...))
			i += len(run) - 1
			continue
		}
		if run := fixedRun(items[i:], sc); len(run) > 1 {
			if !declared {
				out = append(out, jen.Var().Id("run").Index().Byte())
				declared = true
			}
			out = append(out, writeRun(run, sc)...)
			i += len(run) - 1
			continue
		}
		out = append(out, e.writeItem(items[i], sc)...)
	}
	return out
}

// wcall is a writer call: the writer is a value, so each call returns it.
func wcall(method string, args ...jen.Code) *jen.Statement {
	return jen.Id("w").Op("=").Id("w").Dot(method).Call(args...)
}

func (e *emitter) writeItem(it *model.Item, sc scope) []jen.Code {
	name := jen.Lit(sc.name(it))
	v := func() *jen.Statement { return sc.target(it) }
	switch it.Op {
	case model.OpTag, model.OpFixed:
		return []jen.Code{wcall("u"+widthSuffix(it.Width), fixedValue(it))}
	case model.OpLength:
		return []jen.Code{jen.List(jen.Id("w"), jen.Id("start")).Op(":=").Id("w").Dot("begin").Call()}
	case model.OpCount:
		return []jen.Code{wcall("count"+widthSuffix(it.Width), name, jen.Len(jen.Id(sc.recv).Dot(it.Field)))}
	case model.OpInt:
		val := v()
		if !it.Type.Unsigned() {
			val = typeCode(model.Uint(it.Width)).Call(v())
		}
		return []jen.Code{wcall("u"+widthSuffix(it.Width), val)}
	case model.OpByte:
		return []jen.Code{wcall("u8", v())}
	case model.OpChoice:
		return []jen.Code{wcall("choice", name, v(), jen.Lit(string(it.Choice.Tags)), jen.Lit(it.Choice.Optional))}
	case model.OpString:
		return []jen.Code{wcall("str", name, v())}
	case model.OpBytesN:
		return []jen.Code{wcall("bytes", v().Index(jen.Empty(), jen.Empty()))}
	case model.OpRaw:
		return []jen.Code{wcall("raw", name, v(), jen.Lit(it.Width), jen.Lit(it.Width), jen.Lit(""))}
	case model.OpRest:
		if len(it.Lengths) == 0 { // any length: nothing to check
			return []jen.Code{wcall("bytes", v())}
		}
		return e.byProtocol(it, func(lo, hi jen.Code, later string) []jen.Code {
			return []jen.Code{wcall("raw", name, v(), lo, hi, jen.Lit(later))}
		})
	case model.OpBytes:
		return []jen.Code{wcall("bytes32", name, v(), jen.Lit(it.Nullable))}
	case model.OpPart:
		return []jen.Code{jen.Id("w").Op("=").Add(v()).Dot("write").Call(jen.Id("w"), jen.Id("p"))}
	case model.OpGroup:
		return e.writeGroup(it, sc)
	}
	panic("emit: cannot write " + it.String())
}

func (e *emitter) writeGroup(it *model.Item, sc scope) []jen.Code {
	name := sc.name(it)
	if bulkBytes(it) {
		return []jen.Code{wcall("bytes32s", jen.Lit(name), sc.target(it), jen.Lit(it.Elem[0].Nullable))}
	}
	inner := scope{recv: "e", prefix: name + "."}
	first := it.Elem[0]
	var body []jen.Code
	var loop *jen.Statement
	if it.Struct == nil {
		inner.recv, inner.value, first = sc.recv, "v", it.Elem[len(it.Elem)-1]
		loop = jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Add(sc.target(it)))
	} else {
		loop = jen.For(jen.Id("i").Op(":=").Range().Add(sc.target(it)))
		body = append(body, jen.Id("e").Op(":=").Op("&").Add(sc.target(it)).Index(jen.Id("i")))
	}
	if it.Terminated {
		empty := inner.target(first).Op("==").Lit(0)
		if first.Op == model.OpString {
			empty = inner.target(first).Op("==").Lit("")
		}
		body = append(body, wcall("nonzero", jen.Lit(inner.name(first)), empty))
	}
	body = append(body, e.writeItems(it.Elem, inner)...)
	out := []jen.Code{loop.Block(body...)}
	if it.Terminated {
		out = append(out, wcall("u8", jen.Lit(0)))
	}
	return out
}

// fixedRun is the run of fixed-width values items starts with: integers and
// bytes that are always on the wire. Generated code reads and writes a run
// of two or more with one bounds or capacity check, at constant offsets.
func fixedRun(items []*model.Item, sc scope) []*model.Item {
	n := 0
	for _, it := range items {
		if (it.Op != model.OpInt && it.Op != model.OpByte) || !it.Cond.Always() {
			break
		}
		n++
	}
	return items[:n]
}

func runWidth(run []*model.Item) int {
	n := 0
	for _, it := range run {
		n += it.Width
	}
	return n
}

// readRun reads a run from the input when all of it is there; otherwise it
// reads field by field, so that the error names the first field missing.
func (e *emitter) readRun(run []*model.Item, sc scope) jen.Code {
	width := runWidth(run)
	var fast, slow []jen.Code
	off := 0
	for _, it := range run {
		fast = append(fast, sc.target(it).Op("=").Add(valueAt("b", it, off)))
		off += it.Width
		slow = append(slow, e.readItem(it, sc)...)
	}
	fast = append(fast, jen.Id("r").Dot("rest").Op("=").Id("b").Index(jen.Lit(width), jen.Empty()))
	return jen.If(jen.Id("b").Op(":=").Id("r").Dot("rest"), jen.Len(jen.Id("b")).Op(">=").Lit(width)).
		Block(fast...).Else().Block(slow...)
}

// valueAt is the big-endian value of it at offset off of the slice b, as
// its Go type.
func valueAt(b string, it *model.Item, off int) *jen.Statement {
	v := uintAt(b, it.Width, off)
	if it.Type.Unsigned() {
		return v
	}
	return typeCode(it.Type).Call(v)
}

// writeRun grows the buffer by the run's width once (extend) and stores
// each value at its offset in the room made (run).
func writeRun(run []*model.Item, sc scope) []jen.Code {
	out := []jen.Code{jen.List(jen.Id("w"), jen.Id("run")).Op("=").Id("w").Dot("extend").Call(jen.Lit(runWidth(run)))}
	off := 0
	for _, it := range run {
		v := sc.target(it)
		if !it.Type.Unsigned() {
			v = typeCode(model.Uint(it.Width)).Call(v)
		}
		if it.Width == 1 {
			out = append(out, jen.Id("run").Index(jen.Lit(off)).Op("=").Add(v))
		} else {
			out = append(out, jen.Qual("encoding/binary", "BigEndian").Dot("PutUint"+widthSuffix(it.Width)).Call(jen.Id("run").Index(jen.Lit(off), jen.Empty()), v))
		}
		off += it.Width
	}
	return out
}
