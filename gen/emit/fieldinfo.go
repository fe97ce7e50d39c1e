package emit

import (
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
)

// decodeInfo renders what a DecodeError adds when decoding fails, looked up
// only then: the manual's format of every field by "Message.Field", and
// which Params a message's layout depends on, so that an error typical of a
// wrong Params can say so.
func decodeInfo(f *jen.File, mod *model.Model) {
	type key struct {
		msg, field string // Go names; field is scope.name's
		count      bool
	}
	formats := map[key]map[string]bool{}
	var uses []jen.Code
	for _, m := range mod.Messages {
		var u paramsUse
		for _, l := range m.Layouts {
			var lu layoutUse
			walkFields(l.Items, "", &lu, func(name string, count bool, format string) {
				k := key{m.GoName, name, count}
				if formats[k] == nil {
					formats[k] = map[string]bool{}
				}
				formats[k][format] = true
			})
			u.add(lu, l.Majors)
		}
		if u.used() {
			uses = append(uses, jen.Lit(m.GoName).Op(":").Values(u.dict(mod.Majors)))
		}
	}
	var keys []key
	for k := range formats {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.msg != b.msg {
			return a.msg < b.msg
		}
		return a.field < b.field || a.field == b.field && !a.count && b.count
	})
	var entries []jen.Code
	for _, k := range keys {
		var fs []string
		for f := range formats[k] {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		entries = append(entries, jen.Line().Values(jen.Lit(k.msg), jen.Lit(k.field), jen.Lit(k.count)).Op(":").Lit(strings.Join(fs, " or ")))
	}
	f.Line()
	f.Comment("fieldFormats is the manual's format of each field, for DecodeError.")
	f.Var().Id("fieldFormats").Op("=").Map(jen.Id("fieldKey")).String().Values(append(entries, jen.Line())...)
	f.Line()
	f.Comment("paramsUses says which Params decide a message's layout, for DecodeError's hint.")
	f.Var().Id("paramsUses").Op("=").Map(jen.String()).Id("paramsUse").Values(uses...)
}

// layoutUse is what decides the presence of one layout's fields.
type layoutUse struct {
	streamed, parallel, protocol bool
	sinceLogical                 int
}

// paramsUse mirrors the runtime's paramsUse: the majors whose layout each
// Params setting changes, so that a hint names a setting only where it
// would make a difference.
type paramsUse struct {
	streamed, parallel, protocol []int
	sinceLogical                 int
}

func (u *paramsUse) add(lu layoutUse, majors []int) {
	for _, c := range []struct {
		on  bool
		set *[]int
	}{{lu.streamed, &u.streamed}, {lu.parallel, &u.parallel}, {lu.protocol, &u.protocol}} {
		if c.on {
			*c.set = append(*c.set, majors...)
		}
	}
	if v := lu.sinceLogical; v > 0 && (u.sinceLogical == 0 || v < u.sinceLogical) {
		u.sinceLogical = v
	}
}

func (u paramsUse) used() bool {
	return len(u.streamed)+len(u.parallel)+len(u.protocol) > 0 || u.sinceLogical > 0
}

func (u paramsUse) dict(all []int) jen.Dict {
	d := jen.Dict{}
	for name, majors := range map[string][]int{"streamed": u.streamed, "parallel": u.parallel, "protocol": u.protocol} {
		if len(majors) > 0 {
			sort.Ints(majors)
			d[jen.Id(name)] = majorSetCode(majors, all)
		}
	}
	if u.sinceLogical > 0 {
		d[jen.Id("sinceLogical")] = jen.Lit(u.sinceLogical)
	}
	return d
}

// walkFields calls add with the name decoders give each item of items (as
// scope.name does) and its manual format, parts' items included under their
// own names, and notes in u what decides their presence.
func walkFields(items []*model.Item, prefix string, u *layoutUse, add func(name string, count bool, format string)) {
	for _, it := range items {
		switch it.Cond.Gate {
		case model.GateStreamed:
			u.streamed = true
		case model.GateParallel:
			u.parallel = true
		}
		if v := it.Cond.SinceLogical; v > 0 && (u.sinceLogical == 0 || v < u.sinceLogical) {
			u.sinceLogical = v
		}
		if len(it.Lengths) > 1 {
			u.protocol = true // the length depends on Params.ProtocolMinor
		}
		// A count is read under its group's name, as the group's values
		// are: its format is kept apart for the errors only a count has.
		switch {
		case it.Field == "" || it.Row == nil:
		case it.Op == model.OpCount:
			add(prefix+it.Field, true, it.Row.Format)
		case it.Op == model.OpChoice:
			add(prefix+it.Field, false, strings.SplitN(it.Row.Format, "(", 2)[0]) // Byte1, not the first alternative's Byte1('n')
		default:
			add(prefix+it.Field, false, it.Row.Format)
		}
		switch {
		case it.Op == model.OpGroup && it.Struct == nil:
			// One value per element, read under the group's name.
			for _, el := range it.Elem {
				if el.Row != nil {
					add(prefix+it.Field, false, el.Row.Format)
				}
			}
		case it.Op == model.OpGroup:
			walkFields(it.Elem, prefix+it.Field+".", u, add)
		case it.Op == model.OpPart:
			for _, l := range it.Part.Layouts {
				walkFields(l.Items, prefix+it.Field+".", u, add)
			}
		}
	}
}
