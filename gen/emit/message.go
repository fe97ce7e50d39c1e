package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
)

// emitter writes one message's file.
type emitter struct {
	mod *model.Model
	msg *model.Message
	f   *jen.File
}

func (e *emitter) message() error {
	msg := e.msg
	docComment(e.f, e.typeDoc())
	e.f.Type().Id(msg.GoName).Struct(fieldDecls(msg.Fields)...)
	var owned []*model.Struct // the element types the message declares
	for _, st := range msg.Structs {
		if st.Same[0] != st {
			continue
		}
		owned = append(owned, st)
		e.f.Line()
		docComment(e.f, []string{fmt.Sprintf("%s is one element of %s. The manual opens the group with: %s",
			st.Name, strings.Join(groupsOf(st), " and "), quoteName(st.Doc))})
		e.f.Type().Id(st.Name).Struct(fieldDecls(st.Fields)...)
	}
	majors := e.majorsConst()
	e.f.Line()
	e.f.Const().Id(majors).Id("MajorSet").Op("=").Add(majorSetCode(msg.Majors, e.mod.Majors)).Comment("PostgreSQL " + model.Span(msg.Majors, e.mod.Majors))

	recv := func() *jen.Statement { return jen.Params(jen.Id("m").Op("*").Id(msg.GoName)) }
	e.f.Line()
	e.f.Comment(fmt.Sprintf("Slug returns %q, the message's identity in the spec.", msg.Slug))
	e.f.Func().Params(jen.Op("*").Id(msg.GoName)).Id("Slug").Params().String().Block(jen.Return(jen.Lit(msg.Slug)))
	e.f.Line()
	e.f.Comment("Majors returns the PostgreSQL majors whose manual documents the message, of those")
	e.f.Comment("the codec was generated for.")
	e.f.Func().Params(jen.Op("*").Id(msg.GoName)).Id("Majors").Params().Id("MajorSet").Block(jen.Return(jen.Id(majors)))

	versionErr := jen.Op("&").Id("VersionError").Values(jen.Dict{
		jen.Id("Message"): jen.Lit(msg.GoName),
		jen.Id("Major"):   jen.Id("p").Dot("major").Call(),
	})
	// A message part is read and written inside other messages, and a message
	// with several layouts chooses one by major: both get read/write methods.
	// A message with one layout has its body right in Decode and Encode.
	inline := len(msg.Layouts) == 1 && !msg.Part
	readBody := []jen.Code{jen.Id("r").Op("=").Id("m").Dot("read").Call(jen.Id("r"), jen.Id("p"))}
	writeBody := []jen.Code{jen.Id("w").Op("=").Id("m").Dot("write").Call(jen.Id("w"), jen.Id("p"))}
	if inline {
		readBody, writeBody = e.readWhole(msg.Layouts[0]), e.writeLayout(msg.Layouts[0])
	}
	decode := append(append([]jen.Code{
		jen.If(jen.Op("!").Id(majors).Dot("Has").Call(jen.Id("p").Dot("Major"))).Block(jen.Return(versionErr)),
		jen.Id("r").Op(":=").Id("reader").Values(jen.Dict{jen.Id("rest"): jen.Id("src")}),
	}, readBody...), jen.Return(jen.Id("r").Dot("done").Call(jen.Lit(msg.GoName), jen.Len(jen.Id("src")), jen.Id("p"))))
	srcParams := func() *jen.Statement { return jen.Params(jen.Id("src").Index().Byte(), jen.Id("p").Id("Params")) }
	e.f.Line()
	e.f.Comment("Decode replaces m's fields with the message in src, which must hold exactly")
	e.f.Comment("its bytes. Strings are copies; byte slices point into src.")
	if fast := e.fastDecode(); fast != nil {
		e.f.Func().Add(recv()).Id("Decode").Add(srcParams()).Error().Block(
			append(fast, jen.Return(jen.Id("m").Dot("decode").Call(jen.Id("src"), jen.Id("p"))))...)
		e.f.Line()
		e.f.Comment("decode is Decode for the input its fast path does not take: it checks every")
		e.f.Comment("field and names the first that is wrong.")
		e.f.Func().Add(recv()).Id("decode").Add(srcParams()).Error().Block(decode...)
	} else {
		e.f.Func().Add(recv()).Id("Decode").Add(srcParams()).Error().Block(decode...)
	}
	e.f.Line()
	e.f.Comment("Encode appends the message to dst; on error dst is returned unchanged.")
	encode := append(append([]jen.Code{
		jen.If(jen.Op("!").Id(majors).Dot("Has").Call(jen.Id("p").Dot("Major"))).Block(jen.Return(jen.Id("dst"), versionErr)),
		jen.Id("w").Op(":=").Id("writer").Values(jen.Dict{jen.Id("buf"): jen.Id("dst")}),
	}, writeBody...), jen.Return(jen.Id("w").Dot("result").Call(jen.Lit(msg.GoName), jen.Len(jen.Id("dst")))))
	dstParams := func() *jen.Statement { return jen.Params(jen.Id("dst").Index().Byte(), jen.Id("p").Id("Params")) }
	results := func() *jen.Statement { return jen.Params(jen.Index().Byte(), jen.Error()) }
	if fast := e.fastEncode(); fast != nil {
		e.f.Func().Add(recv()).Id("Encode").Add(dstParams()).Add(results()).Block(
			append(fast, jen.Return(jen.Id("m").Dot("encode").Call(jen.Id("dst"), jen.Id("p"))))...)
		e.f.Line()
		e.f.Comment("encode is Encode for the messages its fast path does not take: it checks every")
		e.f.Comment("field and names the first that is wrong.")
		e.f.Func().Add(recv()).Id("encode").Add(dstParams()).Add(results()).Block(encode...)
	} else {
		e.f.Func().Add(recv()).Id("Encode").Add(dstParams()).Add(results()).Block(encode...)
	}
	if !inline {
		read := e.readWhole
		if msg.Part {
			// A part ends where its message goes on; its own Decode checks the end.
			read = e.readLayout
			readBody = append(readBody, endCheck(msg.Layouts[len(msg.Layouts)-1]))
		}
		e.layouts("read", jen.Id("r").Id("reader"), jen.Id("reader"), read)
		e.layouts("write", jen.Id("w").Id("writer"), jen.Id("writer"), e.writeLayout)
	}
	if msg.Part {
		e.f.Line()
		e.f.Comment("reset empties m when the part is absent, keeping its slices for reuse.")
		var body []jen.Code
		for _, f := range msg.Fields {
			body = append(body, zero(jen.Id("m").Dot(f.Name), f.Type)...)
		}
		e.f.Func().Add(recv()).Id("reset").Params().Block(body...)
		e.f.Line()
		e.f.Comment("set reports whether any field of m is set: Encode refuses a part that is set where")
		e.f.Comment("the layout leaves it out.")
		var any *jen.Statement
		for _, f := range msg.Fields {
			if any == nil {
				any = isSet(jen.Id("m").Dot(f.Name), f.Type)
			} else {
				any = any.Op("||").Add(isSet(jen.Id("m").Dot(f.Name), f.Type))
			}
		}
		e.f.Func().Add(recv()).Id("set").Params().Bool().Block(jen.Return(any))
	}
	e.clones(owned)
	return e.descriptors(owned)
}

// layouts emits name (read or write) and, when the message has several
// layouts, one nameNN per layout chosen by major. The reader or writer is a
// value (param) that the functions return (result).
func (e *emitter) layouts(name string, param, result *jen.Statement, layoutBody func(*model.Layout) []jen.Code) {
	msg := e.msg
	recv := jen.Params(jen.Id("m").Op("*").Id(msg.GoName))
	sig := func(fn string) *jen.Statement {
		return jen.Func().Add(recv.Clone()).Id(fn).Params(param.Clone(), jen.Id("p").Id("Params")).Add(result.Clone())
	}
	body := func(l *model.Layout) []jen.Code { return append(layoutBody(l), jen.Return(jen.Id(name[:1]))) }
	e.f.Line()
	if len(msg.Layouts) == 1 {
		e.f.Add(sig(name).Block(body(msg.Layouts[0])...))
		return
	}
	var cases []jen.Code
	for i, l := range msg.Layouts {
		call := jen.Return(jen.Id("m").Dot(layoutFunc(name, l)).Call(jen.Id(name[:1]), jen.Id("p")))
		if i == len(msg.Layouts)-1 {
			cases = append(cases, jen.Default().Add(call))
			continue
		}
		var majors []jen.Code
		for _, m := range l.Majors {
			majors = append(majors, jen.Lit(m))
		}
		cases = append(cases, jen.Case(majors...).Add(call))
	}
	e.f.Add(sig(name).Block(jen.Switch(jen.Id("p").Dot("major").Call()).Block(cases...)))
	for _, l := range msg.Layouts {
		e.f.Line()
		e.f.Comment(fmt.Sprintf("%s is the layout of PostgreSQL %s.", layoutFunc(name, l), model.Span(l.Majors, e.mod.Majors)))
		e.f.Add(sig(layoutFunc(name, l)).Block(body(l)...))
	}
}

func layoutFunc(name string, l *model.Layout) string {
	return name + strconv.Itoa(l.Majors[0])
}

func (e *emitter) majorsConst() string { return lowerFirst(e.msg.GoName) + "Majors" }

// typeDoc is the message type's comment: what the manual calls it and
// says about it, where it exists and how it changed.
func (e *emitter) typeDoc() []string {
	msg := e.msg
	rule := e.mod.Rules.Layer(msg.Layer) // Build checked every layer has its row
	kind := rule.Kind
	if msg.Part {
		kind = rule.PartKind
	}
	first := fmt.Sprintf("%s is the %s %s", msg.GoName, kind, quoteName(msg.Name))
	if msg.Direction != 0 {
		first += " (" + msg.Direction.String() + ")"
	}
	if msg.AnswerTo != "" {
		first = fmt.Sprintf("%s is a message of the frontend/backend protocol (B) the manual describes only in prose, with no table", msg.GoName)
	}
	doc := []string{first + "."}
	doc = append(doc, msg.Doc...)
	if msg.AnswerTo != "" {
		doc = append(doc, "It has neither tag nor length: after sending the request, read it with FrameReader.NextByte and decode it with this type; no dispatcher decodes it.")
	}
	if v := msg.SinceLogical; v > 0 {
		doc = append(doc, fmt.Sprintf("pgoutput sends it only with protocol version %d and later (Params.LogicalVersion >= %d).", v, v))
	}
	where := "Documented in PostgreSQL " + model.Span(msg.Majors, e.mod.Majors) + "."
	if len(msg.Names) > 1 {
		var names []string
		for _, n := range msg.Names {
			names = append(names, fmt.Sprintf("%s in %s", quoteName(n.Name), model.Span(n.Majors, e.mod.Majors)))
		}
		where += " Named " + strings.Join(names, ", ") + "."
	}
	doc = append(doc, where)
	if len(msg.Changes) > 0 {
		var cs []string
		for _, c := range msg.Changes {
			cs = append(cs, c.String())
		}
		doc = append(doc, "Layout changes: "+strings.Join(cs, " "))
	}
	return doc
}

// groupsOf lists the message fields whose elements are of st's type.
func groupsOf(st *model.Struct) []string {
	var out []string
	for _, s := range st.Same {
		out = append(out, s.Msg.GoName+"."+s.Group)
	}
	return out
}

func quoteName(n string) string { return "\u201c" + n + "\u201d" }

// fieldDecls declares fields with their comments, a blank line between.
func fieldDecls(fields []*model.Field) []jen.Code {
	var out []jen.Code
	for i, f := range fields {
		if i > 0 {
			out = append(out, jen.Line())
		}
		out = append(out, comment(f.Doc)...)
		out = append(out, jen.Id(f.Name).Add(typeCode(f.Type)))
	}
	return out
}

// isSet is whether a field holds anything but its zero value (nil and
// empty slices alike).
func isSet(target *jen.Statement, t model.GoType) *jen.Statement {
	switch t.Kind {
	case model.KindPart:
		return target.Clone().Dot("set").Call()
	case model.KindBytes, model.KindSlice:
		return jen.Len(target.Clone()).Op("!=").Lit(0)
	case model.KindArray:
		return target.Clone().Op("!=").Add(typeCode(t)).Values()
	case model.KindString:
		return target.Clone().Op("!=").Lit("")
	}
	return target.Clone().Op("!=").Lit(0)
}

// zero sets a field to its zero value, keeping slices' backing arrays.
func zero(target *jen.Statement, t model.GoType) []jen.Code {
	switch t.Kind {
	case model.KindPart:
		return []jen.Code{target.Clone().Dot("reset").Call()}
	case model.KindBytes:
		return []jen.Code{target.Clone().Op("=").Nil()}
	case model.KindSlice:
		return []jen.Code{target.Clone().Op("=").Add(target.Clone()).Index(jen.Empty(), jen.Lit(0))}
	case model.KindArray:
		return []jen.Code{target.Clone().Op("=").Add(typeCode(t)).Values()}
	case model.KindString:
		return []jen.Code{target.Clone().Op("=").Lit("")}
	}
	return []jen.Code{target.Clone().Op("=").Lit(0)}
}
