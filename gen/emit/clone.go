package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
)

// clones emits Clone for the message and clone for each element struct it
// owns that holds memory of its own ([]byte): a deep copy that shares no
// memory with the original nor with the bytes it was decoded from, for a
// message kept beyond its Decode. Strings are shared: they never change.
func (e *emitter) clones(owned []*model.Struct) {
	name := e.msg.GoName
	e.f.Line()
	e.f.Comment("Clone returns a deep copy of m: it shares no memory with m, nor with the")
	e.f.Comment("bytes m was decoded from, so it can be kept after they are reused.")
	e.f.Func().Params(jen.Id("m").Op("*").Id(name)).Id("Clone").Params().Op("*").Id(name).Block(
		append(append([]jen.Code{jen.Id("c").Op(":=").Op("*").Id("m")}, cloneFields(e.msg.Fields)...),
			jen.Return(jen.Op("&").Id("c")))...)
	for _, st := range owned {
		if !deep(st) {
			continue
		}
		e.f.Line()
		e.f.Comment("clone is a deep copy of m, for " + name + ".Clone.")
		e.f.Func().Params(jen.Id("m").Id(st.Name)).Id("clone").Params().Id(st.Name).Block(
			append(append([]jen.Code{jen.Id("c").Op(":=").Id("m")}, cloneFields(st.Fields)...),
				jen.Return(jen.Id("c")))...)
	}
}

// cloneFields copies the fields of c (a copy of m) that share memory with m.
func cloneFields(fields []*model.Field) []jen.Code {
	var out []jen.Code
	for _, f := range fields {
		if x := cloneExpr(jen.Id("m").Dot(f.Name), f); x != nil {
			out = append(out, jen.Id("c").Dot(f.Name).Op("=").Add(x))
		}
	}
	return out
}

// cloneExpr is a deep copy of v, the value of field f, nil when a plain
// copy is one. nil slices stay nil and empty ones empty: a NULL column is
// not an empty one.
func cloneExpr(v *jen.Statement, f *model.Field) jen.Code {
	switch t := f.Type; t.Kind {
	case model.KindBytes:
		return jen.Qual("bytes", "Clone").Call(v)
	case model.KindPart:
		return jen.Op("*").Add(v).Dot("Clone").Call()
	case model.KindSlice:
		switch el := *t.Elem; {
		case el.Kind == model.KindBytes:
			return jen.Id("cloneAll").Call(v, jen.Qual("bytes", "Clone"))
		case el.Kind == model.KindPart:
			return jen.Id("cloneAll").Call(v, jen.Func().Params(jen.Id("p").Id(el.Name)).Id(el.Name).Block(jen.Return(jen.Op("*").Id("p").Dot("Clone").Call())))
		case f.Struct != nil && deep(f.Struct):
			return jen.Id("cloneAll").Call(v, jen.Id(el.Name).Dot("clone"))
		}
		return jen.Qual("slices", "Clone").Call(v)
	}
	return nil
}

// deep reports whether an element of st holds memory a plain copy would
// share: a field of bytes, a slice or a part.
func deep(st *model.Struct) bool {
	for _, f := range st.Fields {
		switch f.Type.Kind {
		case model.KindBytes, model.KindSlice, model.KindPart:
			return true
		}
	}
	return false
}
