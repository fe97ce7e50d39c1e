package emit

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// dispatcher decodes one stream's messages by their first bytes into one
// reused value per message type: a row of spec/layers.json and the
// messages of the model that travel in its stream.
type dispatcher struct {
	*spec.DispatcherRule
	members []*model.Message
}

// dispatchers groups the model's messages by the stream they travel in:
// those of the dispatcher's layer, not parts nor one-byte answers, tagged or not as it is, from
// its direction when it has one.
func dispatchers(mod *model.Model) []*dispatcher {
	var ds []*dispatcher
	for _, l := range mod.Rules.Layers {
		for _, r := range l.Dispatchers {
			d := &dispatcher{DispatcherRule: r}
			for _, m := range mod.Messages {
				from := r.From == "" || strings.Contains(m.Direction.String(), r.From)
				if m.Layer == l.Layer && !m.Part && m.AnswerTo == "" && (m.Tag != 0) == r.Tagged && from {
					d.members = append(d.members, m)
				}
			}
			ds = append(ds, d)
		}
	}
	return ds
}

// dispatchFile renders the dispatchers and the AuthState type.
func dispatchFile(mod *model.Model, o Options) (*jen.File, error) {
	f := o.newFile()
	var states []*model.Message
	for _, m := range mod.Messages {
		if m.State != "" {
			states = append(states, m)
		}
	}
	sort.Slice(states, func(i, j int) bool { return states[i].State < states[j].State })
	f.Comment("AuthState is the state of the authentication exchange, which alone tells the")
	f.Comment("frontend messages tagged 'p' apart. The zero value is no state: a 'p' then fails.")
	f.Type().Id("AuthState").Int()
	f.Line()
	var consts []jen.Code
	for i, m := range states {
		c := jen.Comment(fmt.Sprintf("Auth%s means a 'p' from the frontend is a %s.", m.State, m.GoName))
		consts = append(consts, c, jen.Id("Auth"+m.State).Id("AuthState").Op("=").Lit(i+1))
	}
	f.Const().Defs(consts...)
	for _, d := range dispatchers(mod) {
		if len(d.members) == 0 {
			continue // a spec without such messages gets no dispatcher
		}
		if err := d.emit(f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (d *dispatcher) emit(f *jen.File) error {
	sortMessages(d.members)
	var fields []jen.Code
	if d.AuthState {
		fields = append(fields, jen.Comment("Auth selects the message a 'p' is."), jen.Id("Auth").Id("AuthState"), jen.Line())
	}
	for _, m := range d.members {
		fields = append(fields, jen.Id(lowerFirst(m.GoName)).Id(m.GoName))
	}
	f.Line()
	docComment(f, []string{d.Doc, "Each message decodes into a value the " + d.Name + " keeps and reuses: it is valid until the next Decode."})
	f.Type().Id(d.Name).Struct(fields...)

	body, err := d.pick()
	if err != nil {
		return err
	}
	f.Line()
	f.Comment("Decode decodes the one message in src, chosen by its first bytes.")
	f.Func().Params(jen.Id("d").Op("*").Id(d.Name)).Id("Decode").Params(jen.Id("src").Index().Byte(), jen.Id("p").Id("Params")).Params(jen.Id("Message"), jen.Error()).Block(
		body...)
	return nil
}

// fail returns a dispatch error naming what was being read.
func (d *dispatcher) fail(field string, off int, cause jen.Code) jen.Code {
	return jen.Return(jen.Nil(), jen.Id("dispatchError").Call(jen.Lit(d.What), jen.Lit(field), jen.Lit(off), cause))
}

// pick is the switch choosing the message and decoding it. Each case calls
// its message's Decode directly, not through the Message interface: a
// direct call the compiler can see is cheaper, and this is once per message
// of a stream. decoded returns no message with an error: a half-filled one
// must not be mistaken for a message.
func (d *dispatcher) pick() ([]jen.Code, error) {
	decode := func(m *model.Message) jen.Code {
		field := func() *jen.Statement { return jen.Id("d").Dot(lowerFirst(m.GoName)) }
		return jen.Return(jen.Id("decoded").Call(jen.Op("&").Add(field()), field().Dot("Decode").Call(jen.Id("src"), jen.Id("p"))))
	}
	if !d.Tagged {
		c, err := d.byCode(d.members, 4, decode, nil)
		if err != nil {
			return nil, err
		}
		return []jen.Code{
			jen.If(jen.Len(jen.Id("src")).Op("<").Lit(8)).Block(d.fail("request code", 4, jen.Id("ErrTruncated"))),
			c,
		}, nil
	}
	byTag, tags := d.byTag()
	var cases []jen.Code
	for _, t := range tags {
		ms := byTag[t]
		var stmt []jen.Code
		switch {
		case allStates(ms):
			// Even one of them, when a selection left the others out: only
			// the state tells it from theirs.
			var sc []jen.Code
			for _, m := range ms {
				sc = append(sc, jen.Case(jen.Id("Auth"+m.State)).Add(decode(m)))
			}
			sc = append(sc, jen.Default().Add(d.fail("Auth", 0, jen.Id("errNoAuthState"))))
			stmt = []jen.Code{jen.Switch(jen.Id("d").Dot("Auth")).Block(sc...)}
		case len(ms) == 1:
			stmt = []jen.Code{decode(ms[0])}
		default:
			c, err := d.byCode(ms, 5, decode, nil)
			if err != nil {
				return nil, err
			}
			stmt = []jen.Code{jen.If(jen.Len(jen.Id("src")).Op("<").Lit(9)).Block(d.fail("subtype", 5, jen.Id("ErrTruncated"))), c}
		}
		cases = append(cases, jen.Case(jen.LitRune(rune(t))).Block(stmt...))
	}
	cases = append(cases, jen.Default().Add(d.fail("tag", 0, jen.Id("unknownTag").Call(jen.Id("src").Index(jen.Lit(0)), jen.Lit(string(tags))))))
	return []jen.Code{
		jen.If(jen.Len(jen.Id("src")).Op("==").Lit(0)).Block(d.fail("tag", 0, jen.Id("ErrTruncated"))),
		jen.Switch(jen.Id("src").Index(jen.Lit(0))).Block(cases...),
	}, nil
}

// byTag groups the members by tag; tags are in byte order.
func (d *dispatcher) byTag() (map[byte][]*model.Message, []byte) {
	byTag := map[byte][]*model.Message{}
	var tags []byte
	for _, m := range d.members {
		if byTag[m.Tag] == nil {
			tags = append(tags, m.Tag)
		}
		byTag[m.Tag] = append(byTag[m.Tag], m)
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i] < tags[j] })
	return byTag, tags
}

// byCode switches on the Int32 fixed value that follows the length at off
// (an authentication subtype, a request code); at most one message without
// one is the default. A message decode gives nil has no case; without a
// default, an unknown code is miss, or when miss is nil a dispatch error
// naming the codes.
func (d *dispatcher) byCode(ms []*model.Message, off int, decode func(*model.Message) jen.Code, miss jen.Code) (jen.Code, error) {
	var cases []jen.Code
	var codes []int
	var dflt *model.Message
	for _, m := range ms {
		code, ok, err := fixedAfterLength(m)
		if err != nil {
			return nil, err
		}
		if !ok {
			if dflt != nil {
				return nil, fmt.Errorf("%s: %s and %s share a tag and have no code to tell them apart", d.Name, dflt.GoName, m.GoName)
			}
			dflt = m
			continue
		}
		if c := decode(m); c != nil {
			cases = append(cases, jen.Case(jen.Lit(int(code))).Add(c))
		}
		codes = append(codes, int(code))
	}
	switch {
	case dflt != nil && decode(dflt) != nil:
		cases = append(cases, jen.Default().Add(decode(dflt)))
	case miss != nil:
		cases = append(cases, jen.Default().Add(miss))
	default:
		sort.Ints(codes)
		want := make([]string, len(codes))
		for i, c := range codes {
			want[i] = strconv.Itoa(c)
		}
		cases = append(cases, jen.Default().Add(d.fail("subtype", off, jen.Id("unknownSubtype").Call(jen.Qual("encoding/binary", "BigEndian").Dot("Uint32").Call(jen.Id("src").Index(jen.Lit(off), jen.Empty())), jen.Lit(strings.Join(want, ", "))))))
	}
	return jen.Switch(jen.Qual("encoding/binary", "BigEndian").Dot("Uint32").Call(jen.Id("src").Index(jen.Lit(off), jen.Empty()))).Block(cases...), nil
}

// fixedAfterLength is the Int32 fixed value right after a message's length,
// the same in all its layouts (the codes are never negative: -1 is none).
func fixedAfterLength(m *model.Message) (int64, bool, error) {
	code := int64(-1)
	for i, l := range m.Layouts {
		j := 0
		for j < len(l.Items) && (l.Items[j].Op == model.OpTag || l.Items[j].Op == model.OpLength) {
			j++
		}
		c := int64(-1)
		if j < len(l.Items) && l.Items[j].Op == model.OpFixed && l.Items[j].Width == 4 {
			c = l.Items[j].Value
		}
		if i > 0 && c != code {
			return 0, false, fmt.Errorf("%s: layouts disagree on the code after the length", m.GoName)
		}
		code = c
	}
	return code, code >= 0, nil
}

// sortMessages sorts ms by Go name.
func sortMessages(ms []*model.Message) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].GoName < ms[j].GoName })
}

func allStates(ms []*model.Message) bool {
	for _, m := range ms {
		if m.State == "" {
			return false
		}
	}
	return true
}

// constantsFile renders the majors, the error field codes and NewMessages.
func constantsFile(mod *model.Model, o Options) *jen.File {
	f := o.file(true)
	f.Comment("The PostgreSQL majors the codec was generated for.")
	f.Const().Defs(
		jen.Id("OldestMajor").Op("=").Lit(mod.Majors[0]),
		jen.Id("NewestMajor").Op("=").Lit(mod.Newest()),
		jen.Comment("DefaultMajor is what Params.Major 0 means: the newest released major generated"),
		jen.Comment("(a release candidate's only when no released one is)."),
		jen.Id("DefaultMajor").Op("=").Lit(mod.Default()),
		jen.Id("GeneratedMajors").Id("MajorSet").Op("=").Op(fmt.Sprintf("%#x", majorSet(mod.Majors))).Comment("PostgreSQL "+model.MajorList(mod.Majors)),
	)
	f.Line()
	f.Comment("errorPrefix begins every error the package returns: its name, as Go's own")
	f.Comment("packages do (\"strconv: …\").")
	f.Const().Id("errorPrefix").Op("=").Lit(o.pkg() + ": ")
	var defs []jen.Code
	for i, ef := range mod.ErrorFields {
		if i > 0 {
			defs = append(defs, jen.Line())
		}
		doc := ef.Doc
		if len(ef.Majors) != len(mod.Majors) {
			doc += " Only in PostgreSQL " + model.Span(ef.Majors, mod.Majors) + "."
		}
		defs = append(defs, comment([]string{fmt.Sprintf("ErrorField%s is the code %q. %s", ef.GoName, rune(ef.Code), doc)})...)
		defs = append(defs, jen.Id("ErrorField"+ef.GoName).Byte().Op("=").LitRune(rune(ef.Code)))
	}
	if len(defs) > 0 { // a package without ErrorResponse has no codes
		f.Line()
		f.Comment("Codes of the fields of ErrorResponse and NoticeResponse (the manual's")
		f.Comment("\"Error and Notice Message Fields\"), for ErrorField.Code.")
		f.Const().Defs(defs...)
	}
	f.Line()
	f.Comment("NewMessages returns a new value of every message type, in slug order.")
	var vals []jen.Code
	for _, m := range mod.Messages {
		vals = append(vals, jen.Op("&").Id(m.GoName).Values())
	}
	f.Func().Id("NewMessages").Params().Index().Id("Message").Block(jen.Return(jen.Index().Id("Message").Values(vals...)))
	decodeInfo(f, mod)
	return f
}
