package model

import (
	"fmt"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// resolve builds the message's Go fields as the union of its layouts,
// newest first, gives every item the union's Go type, and writes the docs
// (the majors a field is in said against all, the model's).
func (msg *Message) resolve(all []int, p *problems) {
	structs := map[string]*Struct{}
	for li := len(msg.Layouts) - 1; li >= 0; li-- {
		l := msg.Layouts[li]
		msg.union(l.Items, l.Majors, &msg.Fields, structs, p)
	}
	for _, l := range msg.Layouts {
		setTypes(l.Items, msg.Fields)
	}
	msg.present(msg.Fields, all)
	for _, st := range msg.Structs {
		msg.present(st.Fields, all)
	}
}

// union adds the named items of one layout to fields. The groups of every
// layout whose elements have one name share the first one's struct.
func (msg *Message) union(items []*Item, majors []int, fields *[]*Field, structs map[string]*Struct, p *problems) {
	for _, it := range items {
		if it.Op == OpPart && it.Part != nil { // else a problem already
			it.Type = GoType{Kind: KindPart, Name: it.Part.GoName}
		}
		if it.Op == OpGroup && it.Struct != nil {
			st := structs[it.Struct.Name]
			if st == nil {
				st = it.Struct
				st.Msg = msg
				structs[st.Name] = st
				msg.Structs = append(msg.Structs, st)
			}
			it.Struct = st
			msg.union(it.Elem, majors, &st.Fields, structs, p)
		}
		if it.Op == OpGroup && it.Struct == nil && len(it.Elem) > 0 {
			v := it.Elem[len(it.Elem)-1]
			msg.union([]*Item{v}, majors, new([]*Field), structs, p)
			it.Type = SliceOf(v.Type)
		}
		if it.Field == "" || it.Op == OpCount {
			continue
		}
		f := findField(*fields, it.Field)
		if f == nil {
			*fields = append(*fields, &Field{Name: it.Field, Type: it.Type, Doc: itemDoc(it), Struct: it.Struct})
			f = (*fields)[len(*fields)-1]
		} else if t, ok := reconcile(f.Type, it.Type); ok {
			f.Type = t
		} else {
			p.addf("%s: field %s is %s in pg%s but %s in pg%s", msg.Slug, f.Name, f.Type, majorList(f.Majors), it.Type, majorList(majors))
		}
		f.Majors = mergeMajors(f.Majors, majors)
		m := it.Meaning
		if it.Op == OpGroup && it.Struct == nil && len(it.Elem) > 0 {
			m = it.Elem[len(it.Elem)-1].Meaning
		}
		switch {
		case m == MeaningNone:
		case f.Meaning == MeaningNone:
			f.Meaning = m
		case f.Meaning != m:
			p.addf("%s: field %s means %d in some majors and %d in pg%s", msg.Slug, f.Name, f.Meaning, m, majorList(majors))
		}
	}
}

// linkStructs gives every struct the structs of its name in the model's
// messages (Struct.Same).
func (m *Model) linkStructs() {
	same := map[string][]*Struct{}
	for _, msg := range m.Messages {
		for _, st := range msg.Structs {
			same[st.Name] = append(same[st.Name], st)
		}
	}
	for _, msg := range m.Messages {
		for _, st := range msg.Structs {
			st.Same = same[st.Name]
		}
	}
}

// secrets marks the fields the overlay says PostgreSQL never logs, and
// asks for a meaning of every 64-bit integer: a number that wide is a WAL
// position, a time or a full xid more often than a count, and a tool must
// not guess which.
func (msg *Message) secrets(me *spec.MessageEntry, p *problems) {
	if me != nil {
		for _, name := range me.Secret {
			if f := findField(msg.Fields, name); f != nil {
				f.Secret = true
			} else {
				p.addf("overlay %s: secret %s is no field of the message", msg.Slug, name)
			}
		}
	}
	check := func(owner string, fields []*Field) {
		for _, f := range fields {
			t := f.Type
			if t.Kind == KindSlice {
				t = *t.Elem
			}
			if (t.Kind == KindInt || t.Kind == KindUint) && t.Bits == 64 && f.Meaning == MeaningNone {
				p.addf("%s: 64-bit field %s.%s has no annotation in the manual; give its overlay entry a kind (%s)", msg.Slug, owner, f.Name, strings.Join(spec.Kinds, ", "))
			}
		}
	}
	check(msg.GoName, msg.Fields)
	for _, st := range msg.Structs {
		check(st.Name, st.Fields)
	}
}

// reconcile gives two majors' Go types of one field a common type: they must
// agree, except that an integer the manual annotated in some majors (Int32
// (Oid)) and not in others keeps its unsigned annotated type.
func reconcile(a, b GoType) (GoType, bool) {
	switch {
	case a.Equal(b):
		return a, true
	case a.Kind == KindSlice && b.Kind == KindSlice:
		t, ok := reconcile(*a.Elem, *b.Elem)
		return SliceOf(t), ok
	case a.Bits == b.Bits && (a.Kind == KindInt || a.Kind == KindUint) && (b.Kind == KindInt || b.Kind == KindUint):
		return GoType{Kind: KindUint, Bits: a.Bits}, true
	}
	return GoType{}, false
}

// setTypes gives every item the Go type of its union field.
func setTypes(items []*Item, fields []*Field) {
	for _, it := range items {
		if f := findField(fields, it.Field); f != nil && it.Op != OpCount {
			it.Type = f.Type
		}
		if it.Op != OpGroup {
			continue
		}
		if it.Struct != nil {
			setTypes(it.Elem, it.Struct.Fields)
		} else if len(it.Elem) > 0 {
			it.Elem[len(it.Elem)-1].Type = *it.Type.Elem
		}
	}
}

// present notes the majors of fields that the message does not always have.
func (msg *Message) present(fields []*Field, all []int) {
	for _, f := range fields {
		if len(f.Majors) != len(msg.Majors) {
			f.Doc = append(f.Doc, "Only in PostgreSQL "+Span(f.Majors, all)+"; with another Params.Major, Decode sets it to "+zeroWord(f.Type)+" and Encode writes nothing for it.")
		}
	}
}

func findField(fields []*Field, name string) *Field {
	for _, f := range fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func mergeMajors(a, b []int) []int {
	set := map[int]bool{}
	for _, m := range append(append([]int(nil), a...), b...) {
		set[m] = true
	}
	return sortedKeys(set)
}

// itemDoc is the manual's description of an item and what decides its
// presence.
func itemDoc(it *Item) []string {
	var doc []string
	switch {
	case it.Op == OpChoice:
		for _, r := range it.Choice.Alternatives {
			doc = append(doc, fmt.Sprintf("%s: %s", r.Format, r.Description.En))
		}
		held := "It holds the tag that is sent: " + quoteTags(it.Choice.Tags) + "."
		if it.Choice.Optional {
			held = "It holds the tag that is sent, " + quoteTags(it.Choice.Tags) + ", or 0 when none is."
		}
		doc = append(doc, held)
	case it.Op == OpGroup && it.Lead != "":
		doc = append(doc, it.Lead)
		if it.Struct == nil {
			for _, e := range it.Elem {
				if e.Row != nil && e.Op != OpFixed {
					doc = append(doc, e.Row.Description.En)
				}
			}
		}
	case it.Row != nil:
		doc = append(doc, it.Row.Description.En)
	}
	if it.Nullable || it.Op == OpGroup && len(it.Elem) > 0 && it.Elem[len(it.Elem)-1].Nullable {
		doc = append(doc, "nil is NULL, the length -1 on the wire.")
	}
	if t := it.Type; t.Kind == KindBytes || t.Kind == KindSlice && t.Elem != nil && t.Elem.Kind == KindBytes {
		doc = append(doc, "Decode points it into src without copying: bytes.Clone it (or Clone the message) to keep it after src is reused.")
	}
	if len(it.Lengths) > 0 {
		var from []string
		for _, pl := range it.Lengths {
			n := fmt.Sprintf("%d to %d bytes", pl.Min, pl.Max)
			if pl.Min == pl.Max {
				n = fmt.Sprintf("%d bytes", pl.Min)
			}
			from = append(from, fmt.Sprintf("%s from protocol 3.%d", n, pl.Minor))
		}
		if len(from) == 1 && it.Lengths[0].Minor == 0 {
			doc = append(doc, "Its length is "+strings.TrimSuffix(from[0], " from protocol 3.0")+", whatever Params.ProtocolMinor says.")
		} else {
			doc = append(doc, "Its length depends on Params.ProtocolMinor: "+strings.Join(from, ", ")+".")
		}
	}
	if s := presence(it); s != "" {
		doc = append(doc, s)
	}
	return doc
}

// presence says in Go terms when a conditional item is on the wire.
func presence(it *Item) string {
	what := ""
	switch it.Cond.Gate {
	case GateStreamed:
		what = " inside a streamed transaction:"
	case GateParallel:
		what = " with parallel streaming:"
	}
	when := it.Cond.Words()
	if when == "" {
		return ""
	}
	return fmt.Sprintf("Present only%s when %s. Otherwise Decode sets it to %s, and Encode refuses it set (ErrNotOnWire) rather than drop it.",
		what, when, zeroWord(it.Type))
}

// Words says what puts an item with the condition on the wire, "" when
// it always is: "Params.Streaming has Streamed and Params.LogicalVersion >= 2".
func (c Cond) Words() string {
	var when []string
	switch c.Gate {
	case GateStreamed:
		when = append(when, "Params.Streaming has Streamed")
	case GateParallel:
		when = append(when, "Params.Streaming has ParallelStreaming")
	}
	if v := c.SinceLogical; v > 0 {
		when = append(when, fmt.Sprintf("Params.LogicalVersion >= %d", v))
	}
	if w := c.When; w != nil {
		if len(w.Tags) == 0 {
			when = append(when, w.Field+" != 0")
		} else {
			when = append(when, w.Field+" is "+quoteTags(w.Tags))
		}
	}
	return strings.Join(when, " and ")
}

// zeroWord names the zero value of t for a doc comment.
func zeroWord(t GoType) string {
	switch t.Kind {
	case KindString:
		return `""`
	case KindBytes:
		return "nil"
	case KindSlice, KindPart:
		return "empty"
	case KindArray:
		return "zeros"
	}
	return "0"
}

// quoteTags lists tags as Go rune literals: 'K' or 'O'.
func quoteTags(tags []byte) string {
	q := make([]string, len(tags))
	for i, t := range tags {
		q[i] = "'" + string(rune(t)) + "'"
	}
	return strings.Join(q, " or ")
}

// errorFields names the error/notice field codes of every major: by the
// label the manual gives each ("Severity:"), unless the overlay decides.
func errorFields(specs []*spec.Spec, ov *spec.Overlay, p *problems, d *defaults) []*ErrorField {
	byCode := map[byte]*ErrorField{}
	for _, s := range specs {
		for _, t := range s.ErrorFields {
			if len(t.Term) != 1 {
				p.addf("pg%d: error field %q is not one byte", s.Major, t.Term)
				continue
			}
			ef := byCode[t.Term[0]]
			if ef == nil {
				ef = &ErrorField{Code: t.Term[0]}
				byCode[ef.Code] = ef
				derived := errorFieldName(t.Description.En)
				switch e := ov.ErrorFields[t.Term]; {
				case e != nil && e.Name == derived:
					p.addf("overlay error_fields %q: name %s restates the manual's label; remove it", t.Term, e.Name)
				case e != nil:
					ef.GoName = e.Name
				case !spec.IsGoName(derived):
					p.addf("pg%d: error field %q has no label to name it by; name it in the overlay", s.Major, t.Term)
				default:
					ef.GoName = derived
					d.addf("", "error field %s: Go name %s (the manual's label)", t.Term, derived)
				}
			}
			ef.Doc = t.Description.En
			ef.Majors = append(ef.Majors, s.Major)
		}
	}
	for _, code := range sortedKeys(ov.ErrorFields) {
		if len(code) == 1 && byCode[code[0]] == nil {
			p.addf("overlay error_fields %q: matches no error field in any major", code)
		}
	}
	var out []*ErrorField
	for _, c := range sortedKeys(byCode) {
		out = append(out, byCode[c])
	}
	return out
}
