// Package model is the pipeline's third stage, spec/pgNN.json +
// spec/overlay.json → Model: it resolves the committed spec and the reviewed
// overlay (spec/overlay.json) into what the codec generator emits: one Go type
// per message across all majors, its fields, and the distinct wire layouts it
// has had. Nothing here reads HTML or writes Go.
package model

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Model is every message of every major, resolved.
type Model struct {
	// Majors lists the majors of the spec, increasing.
	Majors []int
	// Released lists those whose manual is of a release (18.6), not of a
	// release candidate or beta (19rc1).
	Released []int
	Messages []*Message
	// ErrorFields are the ErrorResponse/NoticeResponse field codes.
	ErrorFields []*ErrorField
	// Commands are the replication commands (the commands layer).
	Commands []*Command
	// Pgoutput are pgoutput's parameters and PgoutputVersions its
	// proto_versions, as each major's manual gives them (commands layer).
	Pgoutput         []*PgoutputParam
	PgoutputVersions []*PgoutputVersion
	// Defaults lists what was derived from the manual rather than read
	// from the overlay, one line each, sorted.
	Defaults []Default
	// Rules are the reviewed rule tables the model was built with
	// (spec/layers.json, spec/logicalversions.json).
	Rules *spec.Rules
	// Flow is the conversation the trackers follow (spec/flow.json), nil
	// when the model was built without it.
	Flow *Flow
	// FlowLists are the message lists of protocol-flow.html by key
	// ("protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1") and major: the
	// messages the server may send in one phase, as each major lists them.
	FlowLists map[string]map[int]*spec.FlowList
	// ProtocolMinors is the newest minor of protocol 3 each major of the
	// spec speaks (18: 2), from the manual's notes on what a minor changed;
	// a selection keeps every major's, the newest naming what a server of a
	// major the codec lacks may speak.
	ProtocolMinors map[int]int
	// DirectTLS is, by major, protocol-flow.html's paragraph on connections
	// that begin TLS without SSLRequest, for the majors whose page has it.
	DirectTLS map[int]*spec.DirectTLS
}

// Find returns the message with the slug, nil when there is none.
func (m *Model) Find(slug string) *Message {
	for _, msg := range m.Messages {
		if msg.Slug == slug {
			return msg
		}
	}
	return nil
}

// Default is the major Params.Major 0 stands for: the newest released one,
// as pgspec's own --version defaults to (the newest of all when none is).
func (m *Model) Default() int {
	if n := len(m.Released); n > 0 {
		return m.Released[n-1]
	}
	return m.Newest()
}

// Newest is the newest major of the model.
func (m *Model) Newest() int { return m.Majors[len(m.Majors)-1] }

// Message is one message (or message part) across all majors.
type Message struct {
	Slug   string
	GoName string
	// Name is the manual's name in the newest major that has the message;
	// Names lists every name it was printed with and where.
	Name      string
	Names     []NameRange
	Layer     string
	Direction Direction
	Part      bool
	// Tag is the first byte of every layout, 0 when untagged.
	Tag   byte
	State string
	// Majors the manual documents the message in, increasing.
	Majors  []int
	Layouts []*Layout
	// Fields is the union of the fields of every major, in wire order of the
	// newest layout first.
	Fields []*Field
	// Structs are the element types of repeated groups.
	Structs []*Struct
	// Doc is the manual's description of the message (newest major), then
	// its notes.
	Doc []string
	// SinceLogical is the pgoutput protocol version that brought the
	// message (the manual's "The following messages … are available since
	// protocol version N"), 0 when it came with version 1.
	SinceLogical int
	// Changes says, per major, how the layout differs from the previous one.
	Changes []Change
	// AnswerTo is the slug of the request whose one-byte answer this
	// message is (SSLRequest's 'S' or 'N'), "" for the manual's messages.
	AnswerTo string
}

// Change is how a message's layout in Major differs from the previous
// major's, in words ("adds Xid").
type Change struct {
	Major int
	Text  string
}

// String is the change as the documentation reads it.
func (c Change) String() string { return fmt.Sprintf("PostgreSQL %d: %s.", c.Major, c.Text) }

// NameRange is a name the manual printed for a message and the majors it did.
type NameRange struct {
	Name   string
	Majors []int
}

// Field is one Go field of a message or group element.
type Field struct {
	Name string
	Type GoType
	// Doc is the manual's description of the field (newest major that has
	// it) followed by what decides its presence.
	Doc    []string
	Majors []int
	// Meaning is what an integer field (or the elements of a slice of
	// them) stands for; Secret marks a field PostgreSQL never logs.
	Meaning Meaning
	Secret  bool
	// Carries is the layer whose messages the field holds (the layer's in,
	// spec/layers.json): CopyData's Data, XLogData's WALData; "" for any
	// other field, and in a selection without that layer's messages.
	Carries string
	// Struct is the element type of a group field, nil for other fields.
	Struct *Struct
}

// Struct is the element type of a repeated group.
type Struct struct {
	Name string
	// Msg is the message whose field Group holds the elements.
	Msg    *Message
	Group  string
	Fields []*Field
	// Doc is the manual's paragraph that opens the group.
	Doc string
	// Same lists the structs of that name in the model, this one among
	// them, in the order of their messages: messages share an element type
	// when its fields are the same in all (checkNames), and the first
	// declares it.
	Same []*Struct
}

// ErrorField is one error/notice field code.
type ErrorField struct {
	Code   byte
	GoName string
	Doc    string
	Majors []int
}

// Layout is the wire layout a message has in some majors.
type Layout struct {
	Majors []int
	Items  []*Item
}

// Item is one step of a layout.
type Item struct {
	Op Op
	// Field is the Go field the item reads or writes; for OpCount the group
	// it counts; "" for constants and for the value of a flattened group.
	Field string
	// Sizes is the group or array item an OpCount counts.
	Sizes *Item
	Type  GoType
	// Width in bytes of OpFixed, OpInt, OpCount, OpBytesN and OpRaw.
	Width int
	// Value of OpTag and OpFixed.
	Value int64
	// Choice is the tags of OpChoice.
	Choice *Choice
	// Nullable OpBytes: a length of -1 means nil.
	Nullable bool
	// Lengths bounds OpRest by protocol minor; empty means any length.
	Lengths []ProtocolLength
	// Part is the message part of OpPart. In a layout of Resolve, which
	// builds no model, it is known by its slug and name only.
	Part *Message
	// OpGroup: Elem are the element's items, Struct its element type (nil
	// when flattened to the one field's values), Terminated when a zero
	// byte ends the group, otherwise CountWidth is the width of its OpCount.
	Elem       []*Item
	Struct     *Struct
	Terminated bool
	CountWidth int
	// Cond is what puts the item on the wire.
	Cond Cond
	// Meaning of an OpInt: the manual's annotation or the overlay's kind.
	Meaning Meaning
	// Row is the manual's row the item comes from (the Byten of OpBytes,
	// the first tag of OpChoice); nil for a group. Lead is the paragraph
	// that opens a group.
	Row  *spec.Row
	Lead string
	// Latest is the row of the newest major sharing the layout, whose
	// format may carry an annotation Row's lacks; nil when Row is it.
	Latest *spec.Row
	// Entry is the overlay entry that named the item's row, GroupEntry the
	// one that named its group; nil when the generator derived the item.
	Entry      *spec.FieldEntry
	GroupEntry *spec.GroupEntry
}

// ProtocolLength bounds a Byten from protocol minor Minor on.
type ProtocolLength struct {
	Minor, Min, Max int
}

// Build resolves every message of specs with the overlay, reporting every
// problem found (in the spec, the overlay or between them) in one error.
func Build(specs []*spec.Spec, ov *spec.Overlay) (*Model, error) {
	var p problems
	var d defaults
	mod := &Model{Rules: ov.RuleTables(), FlowLists: map[string]map[int]*spec.FlowList{}, ProtocolMinors: protocolMinors(specs), DirectTLS: map[int]*spec.DirectTLS{}}
	bySlug := map[string]map[int]*spec.Message{}
	for _, s := range specs {
		mod.Majors = append(mod.Majors, s.Major)
		if s.DirectTLS != nil {
			mod.DirectTLS[s.Major] = s.DirectTLS
		}
		for i := range s.FlowLists {
			l := &s.FlowLists[i]
			if mod.FlowLists[l.Key()] == nil {
				mod.FlowLists[l.Key()] = map[int]*spec.FlowList{}
			}
			mod.FlowLists[l.Key()][s.Major] = l
		}
		if s.Released() {
			mod.Released = append(mod.Released, s.Major)
		}
		for i := range s.Messages {
			m := &s.Messages[i]
			if bySlug[m.Slug] == nil {
				bySlug[m.Slug] = map[int]*spec.Message{}
			}
			if bySlug[m.Slug][s.Major] != nil {
				p.addf("pg%d: slug %q appears twice", s.Major, m.Slug)
			}
			bySlug[m.Slug][s.Major] = m
		}
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("no spec")
	}
	for _, slug := range sortedKeys(ov.Messages) {
		if bySlug[slug] == nil {
			p.addf("overlay %s: matches no message in any major", slug)
		}
	}
	used := usage{fields: map[*spec.FieldEntry]int{}, groups: map[*spec.GroupEntry]int{}}
	// Every message exists before any layout, so that an item of a part
	// points at the part's message when it is made.
	msgs := map[string]*Message{}
	for slug := range bySlug {
		msgs[slug] = &Message{Slug: slug}
	}
	for _, slug := range sortedKeys(bySlug) {
		me := ov.Messages[slug]
		if me == nil {
			me = &spec.MessageEntry{}
		}
		msg := msgs[slug]
		msg.State = me.State
		for _, s := range specs {
			sm := bySlug[slug][s.Major]
			if sm == nil {
				continue
			}
			l := buildLayout(s, sm, ov, me, msgs, &p, &d, used)
			l.Majors = []int{s.Major}
			msg.add(s.Major, sm, l, &p)
		}
		msg.name(me, mod.Rules, &p, &d)
		if mod.Rules.Layer(msg.Layer) == nil {
			p.addf("%s: layer %q has no row in %s", slug, msg.Layer, spec.LayersFile)
		}
		if v := msg.SinceLogical; v > 0 && mod.Rules.LogicalVersion(v) == nil {
			p.addf("%s: available since pgoutput protocol version %d, which %s does not list", slug, v, spec.LogicalVersionsFile)
		}
		mod.Messages = append(mod.Messages, msg)
	}
	for _, msg := range mod.Messages {
		if me := ov.Messages[msg.Slug]; me != nil && me.Answer != nil {
			mod.Messages = append(mod.Messages, answer(msg, me.Answer, &p))
		}
	}
	sort.Slice(mod.Messages, func(i, j int) bool { return mod.Messages[i].Slug < mod.Messages[j].Slug })
	for _, msg := range mod.Messages {
		msg.resolve(mod.Majors, &p)
		msg.secrets(ov.Messages[msg.Slug], &p)
	}
	mod.carriers(&p)
	for i, fe := range ov.Fields {
		if used.fields[fe] == 0 {
			p.addf("overlay fields %d (%q): matches no row in any message", i, fe.Match)
		}
	}
	for _, slug := range sortedKeys(ov.Messages) {
		me := ov.Messages[slug]
		if bySlug[slug] == nil {
			continue
		}
		for i, fe := range me.Fields {
			if used.fields[fe] == 0 {
				p.addf("overlay %s: field %d (%q): matches no row in any major", slug, i, fe.Match)
			}
		}
		for i, ge := range me.Groups {
			if used.groups[ge] == 0 {
				p.addf("overlay %s: group %d (%q): matches no lead in any major", slug, i, ge.Lead)
			}
		}
	}
	mod.ErrorFields = errorFields(specs, ov, &p, &d)
	checkNames(mod, &p)
	if len(p) == 0 { // sizes follow every reference, resolved only then
		checkSizes(mod, &p)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	mod.linkStructs()
	cmds, err := buildCommands(specs, ov.Results, ov.Options)
	if err != nil {
		return nil, err
	}
	mod.Commands = cmds
	if mod.Pgoutput, mod.PgoutputVersions, err = buildPgoutput(specs, ov.Pgoutput); err != nil {
		return nil, err
	}
	mod.Defaults = d.sorted()
	return mod, nil
}

// carriers marks the fields the layers' messages travel in: a []byte,
// the only one of its message. A spec without the message (a fixture of
// a few) has nothing to mark.
func (m *Model) carriers(p *problems) {
	for _, l := range m.Rules.Layers {
		var msg *Message
		if l.In != nil {
			msg = m.Find(l.In.Message)
		}
		if msg == nil {
			continue
		}
		f := findField(msg.Fields, l.In.Field)
		switch {
		case f == nil:
			p.addf("%s: layer %s travels in %s's %s, no field of the message", spec.LayersFile, l.Layer, l.In.Message, l.In.Field)
		case f.Type.Kind != KindBytes || slices.ContainsFunc(msg.Fields, func(g *Field) bool { return g.Carries != "" }):
			p.addf("%s: layer %s travels in %s's %s, which is no []byte or not the message's only carrier", spec.LayersFile, l.Layer, l.In.Message, l.In.Field)
		default:
			f.Carries = l.Layer
		}
	}
}

// name gives the message its Go name: derived from the name the manual
// first printed, unless the overlay decides otherwise.
func (msg *Message) name(me *spec.MessageEntry, rules *spec.Rules, p *problems, d *defaults) {
	first := msg.Names[0].Name
	derived, how := messageName(rules.Layer(msg.Layer), msg.Part, first)
	switch {
	case me.Name == derived:
		p.addf("overlay %s: name %s restates the default (%s); remove it", msg.Slug, me.Name, how)
	case me.Name != "":
		msg.GoName = me.Name
	case !spec.IsGoName(derived):
		p.addf("%s: no Go name can be derived from %q; name it in the overlay", msg.Slug, first)
	default:
		msg.GoName = derived
		d.addf(msg.Slug, "%s: Go name %s, %s %s", msg.Slug, derived, how, quoteName(first))
	}
}

// quoteName quotes a name of the manual.
func quoteName(n string) string { return "\u201c" + n + "\u201d" }

// checkNames rejects two types with one Go name; messages may share a
// group's element type when it has the same fields in both.
func checkNames(mod *Model, p *problems) {
	type claim struct{ who, shape string }
	seen := map[string]claim{}
	take := func(name, who, shape string) {
		if prev, ok := seen[name]; ok && (shape == "" || prev.shape != shape) {
			p.addf("Go name %s is used by both %s and %s", name, prev.who, who)
			return
		}
		seen[name] = claim{who, shape}
	}
	for _, m := range mod.Messages {
		take(m.GoName, m.Slug, "")
		for _, st := range m.Structs {
			take(st.Name, m.Slug, st.shape())
		}
	}
}

// shape renders a struct's fields and types.
func (st *Struct) shape() string {
	var b strings.Builder
	for _, f := range st.Fields {
		b.WriteString(f.Name + " " + f.Type.String() + ";")
	}
	return b.String()
}

// LayoutOf returns the canonical description of the wire layout of message
// slug in one major's spec, one string per top-level item (a group whole,
// with its elements): two majors have the same wire format exactly when
// their strings are equal. Descriptions and annotations such as
// "(TransactionId)" do not enter it; Go field names do, and stay stable
// across majors by the overlay.
func LayoutOf(s *spec.Spec, slug string, ov *spec.Overlay) ([]string, error) {
	l, err := Resolve(s, slug, ov)
	if err != nil {
		return nil, err
	}
	items := make([]string, len(l.Items))
	for i, it := range l.Items {
		items[i] = it.String()
	}
	return items, nil
}

// Resolve returns the layout of message slug in one major's spec, as the
// generator resolves it with the overlay. It builds no model: the part an
// item carries is a Message holding only the part's slug and name.
func Resolve(s *spec.Spec, slug string, ov *spec.Overlay) (*Layout, error) {
	m := s.Find(slug)
	if m == nil {
		return nil, fmt.Errorf("pg%d: no message %q", s.Major, slug)
	}
	me := ov.Messages[slug]
	if me == nil {
		me = &spec.MessageEntry{}
	}
	parts := map[string]*Message{}
	for _, sm := range s.Messages {
		if sm.Part {
			parts[sm.Slug] = &Message{Slug: sm.Slug, Name: sm.Name, Part: true}
		}
	}
	var p problems
	l := buildLayout(s, m, ov, me, parts, &p, &defaults{}, usage{fields: map[*spec.FieldEntry]int{}, groups: map[*spec.GroupEntry]int{}})
	if err := p.err(); err != nil {
		return nil, err
	}
	return l, nil
}

// String renders the layout canonically, one item after another.
func (l *Layout) String() string {
	var b strings.Builder
	writeItems(&b, l.Items)
	return b.String()
}

func writeItems(b *strings.Builder, items []*Item) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(it.String())
	}
}

// String renders one item: op, width, value and conditions, then the field.
func (it *Item) String() string {
	var b strings.Builder
	b.WriteString(it.Op.String())
	if it.Width != 0 {
		b.WriteString(strconv.Itoa(8 * it.Width))
	}
	switch it.Op {
	case OpTag:
		fmt.Fprintf(&b, "(%q)", rune(it.Value))
	case OpFixed:
		fmt.Fprintf(&b, "(%d)", it.Value)
	case OpChoice:
		fmt.Fprintf(&b, "(%q", it.Choice.Tags)
		if it.Choice.Optional {
			b.WriteString("?")
		}
		b.WriteString(")")
	case OpBytes:
		if it.Nullable {
			b.WriteString("(null)")
		}
	case OpRest:
		for _, pl := range it.Lengths {
			fmt.Fprintf(&b, "(3.%d:%d..%d)", pl.Minor, pl.Min, pl.Max)
		}
	case OpPart:
		if it.Part != nil { // else no part of the manual's name, a problem
			b.WriteString("(" + it.Part.Slug + ")")
		}
	}
	if g := it.Cond.Gate; g != NoGate {
		b.WriteString("[" + g.String() + "]")
	}
	if w := it.Cond.When; w != nil {
		if len(w.Tags) == 0 {
			b.WriteString("[" + w.Field + " set]")
		} else {
			fmt.Fprintf(&b, "[%s in %q]", w.Field, w.Tags)
		}
	}
	if it.Field != "" {
		b.WriteString(":" + it.Field)
	}
	if it.Op == OpGroup {
		if it.Terminated {
			b.WriteString("/zero")
		} else {
			fmt.Fprintf(&b, "/count%d", 8*it.CountWidth)
		}
		if it.Struct != nil {
			b.WriteString(" " + it.Struct.Name)
		}
		b.WriteString("{")
		writeItems(&b, it.Elem)
		b.WriteString("}")
	}
	return b.String()
}

// add records one major's layout, sharing it with the previous major when
// the wire format is the same.
func (msg *Message) add(major int, sm *spec.Message, l *Layout, p *problems) {
	msg.Majors = append(msg.Majors, major)
	msg.Name = sm.Name
	if n := len(msg.Names); n > 0 && msg.Names[n-1].Name == sm.Name {
		msg.Names[n-1].Majors = append(msg.Names[n-1].Majors, major)
	} else {
		msg.Names = append(msg.Names, NameRange{Name: sm.Name, Majors: []int{major}})
	}
	msg.Layer, msg.Part = sm.Layer, sm.Part
	if d, ok := parseDirection(sm.Direction); ok {
		msg.Direction = d
	} else {
		p.addf("pg%d %s: direction %q is none of F, B, F & B", major, msg.Slug, sm.Direction)
	}
	if len(l.Items) > 0 && l.Items[0].Op == OpTag {
		msg.Tag = byte(l.Items[0].Value)
	}
	msg.Doc = messageDoc(sm)
	msg.SinceLogical = 0
	for _, a := range sm.Annotations {
		if a.Kind == spec.AnnSinceProtocol {
			msg.SinceLogical, _ = strconv.Atoi(a.Value)
		}
	}
	if n := len(msg.Layouts); n > 0 {
		prev := msg.Layouts[n-1]
		if prev.String() == l.String() {
			prev.Majors = append(prev.Majors, major)
			mergeTypes(prev.Items, l.Items)
			return
		}
		msg.Changes = append(msg.Changes, Change{major, diffLayouts(prev, l)})
	}
	msg.Layouts = append(msg.Layouts, l)
}

// mergeTypes gives the items of two majors that share a layout the Go types
// of both: an Int32 the manual annotated (TransactionId) in one major and
// not in the other keeps the annotated type and meaning.
func mergeTypes(into, from []*Item) {
	for i, it := range into {
		if t, ok := reconcile(it.Type, from[i].Type); ok {
			it.Type = t
		}
		if it.Meaning == MeaningNone {
			it.Meaning = from[i].Meaning
		}
		if from[i].Row != nil {
			it.Latest = from[i].Row
		}
		mergeTypes(it.Elem, from[i].Elem)
	}
}

// messageDoc is the manual's text about the message: the description of its
// first row (which says what the message is) and the notes after its table.
func messageDoc(sm *spec.Message) []string {
	var doc []string
	if rows := sm.Rows(); len(rows) > 0 && rows[0].Type.Tag != "" {
		doc = append(doc, rows[0].Description.En)
	}
	for _, n := range sm.Notes {
		if t := strings.TrimSpace(n.Text.En); t != "" {
			doc = append(doc, t)
		}
	}
	return doc
}

// diffLayouts says in words what changed between two layouts.
func diffLayouts(a, b *Layout) string {
	parts := diffItems(a.Items, b.Items, "")
	if len(parts) == 0 {
		return "the wire layout changes"
	}
	return strings.Join(parts, ", ")
}

// diffItems lists the fields items b adds, removes or changes from a; the
// fields of group elements are named prefix.Field.
func diffItems(a, b []*Item, prefix string) []string {
	added, removed, changed := fieldDelta(a, b)
	var parts []string
	for _, f := range added {
		parts = append(parts, "adds "+prefix+f)
	}
	for _, f := range removed {
		parts = append(parts, "removes "+prefix+f)
	}
	fa, fb := fieldSet(a), fieldSet(b)
	for _, f := range changed {
		x, y := fa[f], fb[f]
		switch {
		case x.Op == OpGroup && y.Op == OpGroup && x.Terminated == y.Terminated && x.CountWidth == y.CountWidth:
			parts = append(parts, diffItems(x.Elem, y.Elem, prefix+f+".")...)
		case x.Op == OpChoice && y.Op == OpChoice && x.Choice.Optional == y.Choice.Optional:
			if add := missing(y.Choice.Tags, x.Choice.Tags); len(add) > 0 {
				parts = append(parts, fmt.Sprintf("%s%s may also be %s", prefix, f, quoteTags(add)))
			}
			if drop := missing(x.Choice.Tags, y.Choice.Tags); len(drop) > 0 {
				parts = append(parts, fmt.Sprintf("%s%s may no longer be %s", prefix, f, quoteTags(drop)))
			}
		default:
			parts = append(parts, fmt.Sprintf("%s%s changes from %s to %s", prefix, f, x.format(), y.format()))
		}
	}
	return parts
}

// missing lists the tags of a that b lacks.
func missing(a, b []byte) []byte {
	var out []byte
	for _, t := range a {
		if !bytes.ContainsRune(b, rune(t)) {
			out = append(out, t)
		}
	}
	return out
}

// format is how the manual writes an item: its row's format.
func (it *Item) format() string {
	if it.Row != nil {
		return it.Row.Format
	}
	return it.Op.String()
}

// fieldSet maps the named fields of items to their items.
func fieldSet(items []*Item) map[string]*Item {
	out := map[string]*Item{}
	for _, it := range items {
		if it.Field != "" && it.Op != OpCount {
			out[it.Field] = it
		}
	}
	return out
}

// sortedKeys returns a map's keys in increasing order.
func sortedKeys[K interface{ ~string | ~int | ~uint8 }, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// majorList renders majors compactly: "10–13, 15, 18–19".
func majorList(majors []int) string { return joinRuns(majors, "–", ", ") }

// joinRuns renders increasing majors as their runs of consecutive ones,
// each "a" or "a"+dash+"b", joined by sep.
func joinRuns(majors []int, dash, sep string) string {
	var parts []string
	for i := 0; i < len(majors); {
		j := i
		for j+1 < len(majors) && majors[j+1] == majors[j]+1 {
			j++
		}
		part := strconv.Itoa(majors[i])
		if j > i {
			part += dash + strconv.Itoa(majors[j])
		}
		parts = append(parts, part)
		i = j + 1
	}
	return strings.Join(parts, sep)
}

// MajorList renders majors compactly for documentation: "10–13, 15".
func MajorList(majors []int) string { return majorList(majors) }

// OpenFrom reports whether majors are every one of all (the majors of the
// model or codec, increasing) from majors[0] on, and that first major: such
// a set is written open-endedly, so that a new major leaves it as it is.
func OpenFrom(majors, all []int) (first int, ok bool) {
	if len(majors) == 0 {
		return 0, false
	}
	i := slices.Index(all, majors[0])
	return majors[0], i >= 0 && slices.Equal(all[i:], majors)
}

// Span renders majors for documentation against all, the majors of the
// model or codec: "14 and later" when OpenFrom holds, else MajorList's
// "10–13, 15".
func Span(majors, all []int) string {
	if first, ok := OpenFrom(majors, all); ok {
		return strconv.Itoa(first) + " and later"
	}
	return majorList(majors)
}
