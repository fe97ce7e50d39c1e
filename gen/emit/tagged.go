package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
)

// Tagged values: a counted group whose elements are a tag byte (a choice)
// and, for some of its tags only, an Int32-length value (TupleData's
// columns: 'n' and 'u' alone, 't' and 'b' with their bytes). A CDC consumer
// reads millions of them, and one reader call per field (its field name,
// its error value, the reader copied back) is most of their cost. So the
// elements are first read in one loop straight from the input, each tag
// matched by a switch and each value sliced as bytes32s does; the first
// element that is not plain (an unknown tag, a length that does not fit,
// input that ends) and those after it go through the reader, which reads
// them again and names what is wrong. Errors are the reader's alone, and
// the fast loop agrees with it on every element it takes.

// taggedValues reports a group of that shape: the tag and the value item.
func taggedValues(it *model.Item) (tag, value *model.Item, ok bool) {
	if it.Struct == nil || it.Terminated || len(it.Elem) != 2 || len(it.Struct.Fields) != 2 {
		return nil, nil, false
	}
	tag, value = it.Elem[0], it.Elem[1]
	w := value.Cond.When
	ok = tag.Op == model.OpChoice && tag.Cond.Always() && !tag.Choice.Optional &&
		value.Op == model.OpBytes && !value.Nullable && value.Cond.Gate == model.NoGate && value.Cond.SinceLogical == 0 &&
		w != nil && w.Field == tag.Field && len(w.Tags) > 0
	return tag, value, ok
}

// readTagged is the fast loop over a tagged group's elements (see above),
// which leaves i at the first element it did not take and the reader after
// the last it did; the reader's loop goes on from i.
func readTagged(target func() *jen.Statement, tag, value *model.Item) []jen.Code {
	valued := map[byte]bool{}
	for _, t := range value.Cond.When.Tags {
		valued[t] = true
	}
	var alone, with []jen.Code
	for _, t := range tag.Choice.Tags {
		if valued[t] {
			with = append(with, jen.LitRune(rune(t)))
		} else {
			alone = append(alone, jen.LitRune(rune(t)))
		}
	}
	e := func(f *model.Item) *jen.Statement { return jen.Id("e").Dot(f.Field) }
	var cases []jen.Code
	if len(alone) > 0 {
		cases = append(cases, jen.Case(alone...).Block(
			e(value).Op("=").Nil(), jen.Id("off").Op("++"), jen.Continue()))
	}
	if len(with) > 0 {
		cases = append(cases, jen.Case(with...).Block(
			jen.If(jen.List(jen.Id("v"), jen.Id("next")).Op(":=").Id("bytes32At").Call(jen.Id("rest"), jen.Id("off").Op("+").Lit(1)),
				jen.Id("next").Op(">").Lit(0)).Block(
				jen.List(e(value), jen.Id("off")).Op("=").List(jen.Id("v"), jen.Id("next")), jen.Continue())))
	}
	return []jen.Code{
		jen.List(jen.Id("i"), jen.Id("off")).Op(":=").List(jen.Lit(0), jen.Lit(0)),
		jen.For(jen.Id("rest").Op(":=").Id("r").Dot("rest"), jen.Id("i").Op("<").Len(target()).Op("&&").Id("off").Op("<").Len(jen.Id("rest")), jen.Id("i").Op("++")).Block(
			jen.Id("e").Op(":=").Op("&").Add(target()).Index(jen.Id("i")),
			jen.Switch(e(tag).Op("=").Id("rest").Index(jen.Id("off")), e(tag)).Block(cases...),
			jen.Break(),
		),
		jen.Id("r").Dot("rest").Op("=").Id("r").Dot("rest").Index(jen.Id("off"), jen.Empty()),
	}
}
