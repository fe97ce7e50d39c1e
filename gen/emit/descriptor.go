package emit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// descriptors emits the message's MessageDescriptor, its Descriptor method
// and the descriptors of the element structs it owns: one table each, read
// by the runtime's MessageDescriptor methods and by tools.
func (e *emitter) descriptors(owned []*model.Struct) error {
	msg := e.msg
	fields, err := e.fieldDescs(msg.Fields, func(name string) []*model.Item { return topItems(msg.Layouts, name) })
	if err != nil {
		return err
	}
	d := jen.Dict{
		jen.Id("Name"):   jen.Lit(msg.GoName),
		jen.Id("Slug"):   jen.Lit(msg.Slug),
		jen.Id("Layer"):  jen.Id(layerConst[msg.Layer]),
		jen.Id("Majors"): jen.Id(e.majorsConst()),
		jen.Id("Fields"): fields,
	}
	if c := directionCode(msg.Direction); c != nil {
		d[jen.Id("Direction")] = c
	}
	if msg.Tag != 0 {
		d[jen.Id("Tag")] = jen.LitRune(rune(msg.Tag))
	}
	if msg.SinceLogical > 0 {
		d[jen.Id("SinceLogical")] = jen.Lit(msg.SinceLogical)
	}
	e.f.Line()
	e.f.Var().Id(descVar(msg.GoName)).Op("=").Id("MessageDescriptor").Values(d)
	e.f.Line()
	e.f.Comment("Descriptor describes " + msg.GoName + " and its fields.")
	e.f.Func().Params(jen.Op("*").Id(msg.GoName)).Id("Descriptor").Params().Op("*").Id("MessageDescriptor").Block(
		jen.Return(jen.Op("&").Id(descVar(msg.GoName))))
	for _, st := range owned {
		fields, err := e.fieldDescs(st.Fields, func(name string) []*model.Item { return elemItems(st, name) })
		if err != nil {
			return err
		}
		e.f.Line()
		e.f.Comment(descVar(st.Name) + " describes " + st.Name + ", an element of " + strings.Join(groupsOf(st), " and ") + ".")
		e.f.Var().Id(descVar(st.Name)).Op("=").Id("MessageDescriptor").Values(jen.Dict{
			jen.Id("Name"):   jen.Lit(st.Name),
			jen.Id("Layer"):  jen.Id(layerConst[msg.Layer]),
			jen.Id("Majors"): jen.Id(e.majorsConst()),
			jen.Id("Fields"): fields,
		})
	}
	return nil
}

func descVar(goName string) string { return lowerFirst(goName) + "Descriptor" }

var layerConst = map[string]string{
	spec.LayerFrontendBackend:      "LayerFrontendBackend",
	spec.LayerLogicalReplication:   "LayerLogicalReplication",
	spec.LayerStreamingReplication: "LayerStreamingReplication",
}

func directionCode(d model.Direction) jen.Code {
	var ids []string
	if d&model.FromFrontend != 0 {
		ids = append(ids, "FromFrontend")
	}
	if d&model.FromBackend != 0 {
		ids = append(ids, "FromBackend")
	}
	if len(ids) == 0 {
		return nil
	}
	return jen.Id(strings.Join(ids, "|"))
}

var wireConst = map[model.Op]string{
	model.OpInt: "WireInt", model.OpByte: "WireByte", model.OpChoice: "WireChoice", model.OpString: "WireString",
	model.OpBytesN: "WireBytesN", model.OpRaw: "WireRaw", model.OpRest: "WireRest", model.OpBytes: "WireBytes",
	model.OpPart: "WirePart", model.OpGroup: "WireGroup",
}

var meaningConst = map[model.Meaning]string{
	model.MeaningLSN: "MeaningLSN", model.MeaningTimestamp: "MeaningTimestamp", model.MeaningOID: "MeaningOID",
	model.MeaningXid: "MeaningXid", model.MeaningFullXid: "MeaningFullXid",
}

// fieldDescs renders the FieldDescriptors of fields, whose items in every
// layout items returns: format and wire type from the newest. A field must
// be present under the same conditions in every layout that has it, so
// that one descriptor holds for all majors.
func (e *emitter) fieldDescs(fields []*model.Field, items func(name string) []*model.Item) (jen.Code, error) {
	var out []jen.Code
	for _, f := range fields {
		its := items(f.Name)
		if len(its) == 0 {
			return nil, fmt.Errorf("%s: field %s is in no layout", e.msg.Slug, f.Name)
		}
		newest := its[len(its)-1]
		for _, it := range its {
			if !it.Cond.Equal(newest.Cond) {
				return nil, fmt.Errorf("%s: field %s is on the wire as %s in one layout and as %s in another; a descriptor cannot say both", e.msg.Slug, f.Name, it, newest)
			}
		}
		d := jen.Dict{
			jen.Id("Name"):   jen.Lit(f.Name),
			jen.Id("Wire"):   jen.Id(wireConst[newest.Op]),
			jen.Id("Majors"): e.fieldMajors(f.Majors),
		}
		if fm := itemFormat(newest); fm != "" {
			d[jen.Id("Format")] = jen.Lit(fm)
		}
		if m, ok := meaningConst[f.Meaning]; ok {
			d[jen.Id("Meaning")] = jen.Id(m)
		}
		if newest.Op == model.OpChoice && newest.Choice.Optional {
			d[jen.Id("Optional")] = jen.True()
		}
		if f.Secret {
			d[jen.Id("Secret")] = jen.True()
		}
		if f.Carries != "" {
			d[jen.Id("Carries")] = jen.Id(layerConst[f.Carries])
		}
		switch newest.Cond.Gate {
		case model.GateStreamed:
			d[jen.Id("Streaming")] = jen.Id("Streamed")
		case model.GateParallel:
			d[jen.Id("Streaming")] = jen.Id("ParallelStreaming")
		}
		if v := newest.Cond.SinceLogical; v > 0 {
			d[jen.Id("SinceLogical")] = jen.Lit(v)
		}
		if w := newest.Cond.When; w != nil {
			idx := -1
			for i, g := range fields {
				if g.Name == w.Field {
					idx = i
				}
			}
			if idx < 0 {
				return nil, fmt.Errorf("%s: field %s depends on %s, which is not beside it", e.msg.Slug, f.Name, w.Field)
			}
			pd := jen.Dict{jen.Id("Field"): jen.Lit(idx)}
			if len(w.Tags) > 0 {
				pd[jen.Id("Tags")] = jen.Lit(string(w.Tags))
			}
			d[jen.Id("When")] = jen.Op("&").Id("Presence").Values(pd)
		}
		switch t := f.Type; {
		case t.Kind == model.KindPart:
			d[jen.Id("Elem")] = jen.Op("&").Id(descVar(t.Name))
		case t.Kind == model.KindSlice && t.Elem.Kind == model.KindStruct:
			d[jen.Id("Elem")] = jen.Op("&").Id(descVar(t.Elem.Name))
		}
		out = append(out, jen.Line().Values(d))
	}
	return jen.Index().Id("FieldDescriptor").Values(append(out, jen.Line())...), nil
}

// fieldMajors is a field's MajorSet: the message's constant when the field
// is in every major of the message, else the set (open-ended as the
// message's is).
func (e *emitter) fieldMajors(majors []int) jen.Code {
	if slices.Equal(majors, e.msg.Majors) {
		return jen.Id(e.majorsConst())
	}
	return majorSetCode(majors, e.mod.Majors)
}

// itemFormat is the manual's format of an item: its row's, each
// alternative's for a choice, the value's for a group of single values.
func itemFormat(it *model.Item) string {
	switch {
	case it.Op == model.OpChoice:
		var fs []string
		for _, r := range it.Choice.Alternatives {
			fs = append(fs, r.Format)
		}
		return strings.Join(fs, " or ")
	case it.Op == model.OpGroup && it.Struct == nil && len(it.Elem) > 0:
		return itemFormat(it.Elem[len(it.Elem)-1])
	case it.Latest != nil:
		return it.Latest.Format
	case it.Row != nil:
		return it.Row.Format
	}
	return ""
}

// topItems are the items of field name in every layout, oldest first.
func topItems(layouts []*model.Layout, name string) []*model.Item {
	var out []*model.Item
	for _, l := range layouts {
		for _, it := range l.Items {
			if it.Field == name && it.Op != model.OpCount {
				out = append(out, it)
			}
		}
	}
	return out
}

// elemItems are the items of field name of struct st in every group whose
// elements are of st's type, in every message that shares it.
func elemItems(st *model.Struct, name string) []*model.Item {
	var out []*model.Item
	var walk func(s *model.Struct, items []*model.Item)
	walk = func(s *model.Struct, items []*model.Item) {
		for _, it := range items {
			if it.Op != model.OpGroup {
				continue
			}
			if it.Struct == s {
				for _, el := range it.Elem {
					if el.Field == name && el.Op != model.OpCount {
						out = append(out, el)
					}
				}
			}
			walk(s, it.Elem)
		}
	}
	for _, s := range st.Same {
		for _, l := range s.Msg.Layouts {
			walk(s, l.Items)
		}
	}
	return out
}
