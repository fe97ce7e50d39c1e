package model

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// usage counts what each overlay entry matched, across all majors.
type usage struct {
	fields map[*spec.FieldEntry]int
	groups map[*spec.GroupEntry]int
}

// Derived roles: rows that are not Go fields because the codec computes them.
const (
	roleTag    = "tag"
	roleLength = "length"
	roleFixed  = "fixed"
	roleCount  = "count"
	roleSize   = "size" // the Int32 length of the Byten after it
)

// node is a row, or a repeated group of rows, of one message in one major.
type node struct {
	row   *spec.Row
	entry *spec.FieldEntry
	role  string
	// sizes is the group or array a count row counts.
	sizes *node
	group *group
}

type group struct {
	entry      *spec.GroupEntry
	lead       string
	terminated bool
	nodes      []*node
}

// builder turns one message of one major into a Layout.
type builder struct {
	s     *spec.Spec
	m     *spec.Message
	ov    *spec.Overlay
	me    *spec.MessageEntry
	p     *problems
	d     *defaults
	where string
}

// lengthWord recognises the Int32 that gives the length of the Byten after
// it ("The length of the parameter value", "Length of the content").
var lengthWord = regexp.MustCompile(`(?i)\blength\b`)

func buildLayout(s *spec.Spec, m *spec.Message, ov *spec.Overlay, me *spec.MessageEntry, p *problems, d *defaults, used usage) *Layout {
	b := &builder{s: s, m: m, ov: ov, me: me, p: p, d: d, where: fmt.Sprintf("pg%d %s", s.Major, m.Slug)}
	top := b.segment(used)
	b.matchEntries(top, used)
	if len(top) > 0 && top[0].row != nil && !m.Part && top[0].row.Type.Kind == spec.KindByte && top[0].row.Type.Tag != "" {
		top[0].role = roleTag
		top[0].entry = nil
	}
	for _, n := range top {
		if n.row != nil && spec.Has(n.row.Annotations, spec.AnnLengthOfSelf) {
			n.role = roleLength
		}
	}
	items := b.items(top, nil)
	b.checkExclusive(items)
	for i, it := range items {
		if it.Op == OpRest && i != len(items)-1 {
			b.p.addf("%s: %s runs to the end of the message but is not its last field", b.where, it.Field)
		}
	}
	return &Layout{Items: items}
}

// segment splits the message's blocks into top-level rows and the groups
// their lead paragraphs open. A lead recognised as "Or" continues the group
// it is in; "After the last X" closes it.
func (b *builder) segment(used usage) []*node {
	var top []*node
	var cur *group
	for bi := range b.m.Blocks {
		blk := &b.m.Blocks[bi]
		if blk.Lead != nil {
			text := strings.TrimSpace(blk.Lead.Text.En)
			ge := b.groupEntry(text)
			switch {
			case ge != nil:
				used.groups[ge]++
				cur = &group{entry: ge, lead: text, terminated: spec.Has(blk.Lead.Annotations, spec.AnnTerminated)}
				if ge.Terminated != nil {
					cur.terminated = *ge.Terminated
				}
				top = append(top, &node{group: cur})
			case spec.Has(blk.Lead.Annotations, spec.AnnRepeatEach):
				b.p.addf("%s: lead %q opens a group that no overlay group entry names", b.where, text)
				cur = &group{lead: text}
				top = append(top, &node{group: cur})
			case spec.Has(blk.Lead.Annotations, spec.AnnAfterGroup):
				cur = nil
			case spec.Has(blk.Lead.Annotations, spec.AnnAlternative):
				// "Or": the rows after it are an alternative to the ones
				// before, in the same group; they become one choice.
			}
		}
		for ri := range blk.Rows {
			n := &node{row: &blk.Rows[ri]}
			if cur != nil {
				cur.nodes = append(cur.nodes, n)
			} else {
				top = append(top, n)
			}
		}
	}
	return top
}

func (b *builder) groupEntry(lead string) *spec.GroupEntry {
	var found *spec.GroupEntry
	for _, ge := range b.me.Groups {
		if ge.Matches(lead) {
			if found != nil {
				b.p.addf("%s: lead %q matched by two group entries (%q, %q)", b.where, lead, found.Lead, ge.Lead)
			}
			found = ge
		}
	}
	return found
}

// matchEntries gives every row the one overlay entry that names it: its
// message's own, else the one shared entry that matches.
func (b *builder) matchEntries(nodes []*node, used usage) {
	for _, n := range nodes {
		if n.group != nil {
			b.matchEntries(n.group.nodes, used)
			continue
		}
		for _, entries := range [][]*spec.FieldEntry{b.me.Fields, b.ov.Fields} {
			for _, fe := range entries {
				if !fe.Matches(b.s.Major, n.row) {
					continue
				}
				used.fields[fe]++
				if n.entry != nil {
					b.p.addf("%s: row %s %q matched by two entries (%q, %q)", b.where, n.row.Format, short(n.row), n.entry.Match, fe.Match)
					continue
				}
				n.entry = fe
			}
			if n.entry != nil {
				break
			}
		}
	}
}

// pair finds the derived rows of one scope: counts of arrays and groups, and
// the Int32 lengths of Byten.
func (b *builder) pair(scope []*node) {
	for i, n := range scope {
		switch {
		case n.group != nil && !n.group.terminated:
			if c := prevRow(scope, i); c != nil && isCount(c) {
				c.role, c.sizes = roleCount, n
			} else {
				b.p.addf("%s: group %q has no count row before it", b.where, n.group.lead)
			}
		case n.row != nil && n.row.Type.Array != "":
			c := b.countNamed(scope[:i], n.row.Type.Array)
			if c == nil {
				c = prevRow(scope, i)
			}
			if c != nil && isCount(c) {
				c.role, c.sizes = roleCount, n
			} else {
				b.p.addf("%s: array %s has no count row", b.where, n.row.Format)
			}
		case n.row != nil && spec.Has(n.row.Annotations, spec.AnnRepeatField):
			var c *node
			for j := i - 1; j >= 0 && c == nil; j-- {
				if r := scope[j]; r.row != nil && isCount(r) && spec.Has(r.row.Annotations, spec.AnnCount) {
					c = r
				}
			}
			if c != nil {
				c.role, c.sizes = roleCount, n
			} else {
				b.p.addf("%s: repeated field %q has no count row", b.where, short(n.row))
			}
		case n.row != nil && n.row.Type.Kind == spec.KindBytes && n.row.Type.Width == 0 && b.prefixed(scope, i):
			scope[i-1].role, scope[i-1].sizes = roleSize, n
		}
	}
	for _, n := range scope {
		if n.row == nil {
			continue
		}
		if (n.role == roleCount || n.role == roleSize) && n.entry != nil {
			b.p.addf("%s: entry %q matches a %s row, which the codec derives", b.where, n.entry.Match, n.role)
			n.entry = nil
		}
		if n.role == "" && n.entry == nil && n.row.Type.Value != nil {
			n.role = roleFixed
		}
	}
}

// prefixed reports whether the Byten at scope[i] has its length in the
// Int32 just before it: the manual says "n is the above length", or the row
// before is an Int32 about a length; the overlay can say otherwise.
func (b *builder) prefixed(scope []*node, i int) bool {
	prev := prevRow(scope, i)
	candidate := prev != nil && prev.role == "" && prev.row.Type.Kind == spec.KindInt &&
		prev.row.Type.Width == 4 && prev.row.Type.Value == nil && prev.row.Type.Array == ""
	row := scope[i].row
	if spec.Has(row.Annotations, spec.AnnRest) {
		return false
	}
	if e := scope[i].entry; e != nil && e.Prefixed != nil {
		if *e.Prefixed && !candidate {
			b.p.addf("%s: %q is prefixed by the overlay but no Int32 precedes it", b.where, short(row))
		}
		return *e.Prefixed && candidate
	}
	if spec.Has(row.Annotations, spec.AnnLengthFrom) {
		if !candidate {
			b.p.addf("%s: %q says n is the above length but no Int32 precedes it", b.where, short(row))
		}
		return candidate
	}
	return candidate && lengthWord.MatchString(prev.row.Description.En) && !spec.Has(prev.row.Annotations, spec.AnnLengthOfSelf)
}

func (b *builder) countNamed(scope []*node, name string) *node {
	for _, n := range scope {
		if n.row == nil {
			continue
		}
		for _, a := range n.row.Annotations {
			if a.Kind == spec.AnnCountName && a.Value == name {
				return n
			}
		}
	}
	return nil
}

func prevRow(scope []*node, i int) *node {
	if i == 0 || scope[i-1].row == nil {
		return nil
	}
	return scope[i-1]
}

func isCount(n *node) bool {
	t := n.row.Type
	return n.role == "" && t.Kind == spec.KindInt && t.Value == nil && t.Array == "" && (t.Width == 2 || t.Width == 4)
}

// items turns one scope into layout items. In a flattened group (flat) the
// one value row needs no entry.
func (b *builder) items(scope []*node, flat *spec.GroupEntry) []*Item {
	b.pair(scope)
	var out []*Item
	for i := 0; i < len(scope); i++ {
		n := scope[i]
		if n.group != nil {
			out = append(out, b.groupItem(scope, i))
			continue
		}
		t := n.row.Type
		switch n.role {
		case roleTag:
			out = append(out, &Item{Op: OpTag, Width: 1, Value: int64(t.Tag[0]), Row: n.row})
			continue
		case roleLength:
			out = append(out, &Item{Op: OpLength, Width: 4, Row: n.row})
			continue
		case roleCount:
			out = append(out, &Item{Op: OpCount, Field: b.groupName(n.sizes), Width: t.Width, Row: n.row})
			continue
		case roleSize:
			continue
		case roleFixed:
			out = append(out, &Item{Op: OpFixed, Width: t.Width, Value: *t.Value, Row: n.row})
			continue
		}
		e := n.entry
		if e == nil && flat == nil && t.Kind == spec.KindByte && t.Tag != "" && !b.tagRunFrom(scope, i, nil) {
			// A lone Byte1('N') that nothing names is a constant.
			b.d.addf(b.m.Slug, "%s: %s is a constant", b.m.Slug, n.row.Format)
			out = append(out, &Item{Op: OpFixed, Width: 1, Value: int64(t.Tag[0]), Row: n.row})
			continue
		}
		if e == nil && flat == nil {
			b.p.addf("%s: row %s %q is matched by no overlay entry", b.where, n.row.Format, short(n.row))
			continue
		}
		if e != nil && flat != nil && e.Name != flat.Name {
			b.p.addf("%s: row %q of flattened group %s is named %s", b.where, short(n.row), flat.Name, e.Name)
		}
		if e == nil {
			e = &spec.FieldEntry{}
		}
		it := &Item{Field: e.Name, Row: n.row, Cond: b.cond(n.row, e, out)}
		if flat != nil {
			it.Field = ""
		}
		switch {
		case t.Kind == spec.KindByte && t.Tag != "":
			it.Op, it.Type, it.Choice = OpChoice, Byte, &Choice{}
			for ; i < len(scope) && scope[i].row != nil && scope[i].entry == n.entry && scope[i].row.Type.Tag != ""; i++ {
				r := scope[i].row
				it.Choice.Tags = append(it.Choice.Tags, r.Type.Tag...)
				it.Choice.Alternatives = append(it.Choice.Alternatives, r)
				it.Choice.Optional = it.Choice.Optional || spec.Has(r.Annotations, spec.AnnOptional)
			}
			i--
			b.choice(it, e)
		case t.Array != "" || spec.Has(n.row.Annotations, spec.AnnRepeatField):
			elem := b.scalar(n, e, false)
			elem.Field, elem.Cond = "", Cond{}
			it.Op, it.Elem, it.Type = OpGroup, []*Item{elem}, SliceOf(elem.Type)
			it.CountWidth = b.countWidth(scope, n)
		default:
			sc := b.scalar(n, e, i > 0 && scope[i-1].role == roleSize && scope[i-1].sizes == n)
			sc.Field, sc.Cond = it.Field, it.Cond
			it = sc
			if it.Op == OpBytes {
				prev := scope[i-1].row
				it.Nullable = spec.Has(prev.Annotations, spec.AnnNullMinusOne)
				if e.Null != nil {
					it.Nullable = *e.Null
				}
			}
		}
		out = append(out, it)
	}
	return out
}

// cond is what puts a row on the wire: the streaming state it needs and
// the pgoutput protocol version that brought it, and the choice before it
// that it depends on; derived from the manual unless the entry decides.
func (b *builder) cond(row *spec.Row, e *spec.FieldEntry, before []*Item) Cond {
	var c Cond
	g, why := b.gate(row)
	switch {
	case e.Gate != "" && e.Gate == g.String():
		b.p.addf("%s: the entry %q gives the gate %s the manual already states (%q); remove it", b.where, e.Match, e.Gate, why)
	case e.Gate != "":
		g, _ = ParseGate(e.Gate)
	case g != NoGate:
		b.d.addf(b.m.Slug, "%s %s: gate %s (%s)", b.m.Slug, e.Name, g, quoteName(why))
	}
	c.Gate = g
	for _, a := range row.Annotations {
		if a.Kind == spec.AnnSinceProtocol && b.m.Layer == spec.LayerLogicalReplication && g != NoGate {
			c.SinceLogical, _ = strconv.Atoi(a.Value)
		}
	}
	if tags := previousTags(row); tags != nil {
		var choice *Item
		for _, it := range before {
			if it.Op == OpChoice && len(missing(tags, it.Choice.Tags)) == 0 {
				choice = it
			}
		}
		switch {
		case choice == nil:
			b.p.addf("%s: %q depends on a previous %s part that no choice before it holds", b.where, short(row), quoteTags(tags))
		case sameTags(tags, choice.Choice.Tags):
			c.When = &When{Field: choice.Field}
		default:
			c.When = &When{Field: choice.Field, Tags: tags}
		}
	}
	for _, a := range row.Annotations {
		decided := parallelCondition.MatchString(a.Value) || previousPart.MatchString(a.Value) ||
			row.Type.Tag != "" && spec.Has(row.Annotations, spec.AnnOptional) || e.When != "" || e.Gate != ""
		if a.Kind == spec.AnnPresentIf && !decided {
			b.p.addf("%s: %q is %q, which the generator cannot decide; say when in the overlay", b.where, short(row), a.Phrase)
		}
	}
	if e.When != "" {
		w := &When{Field: e.When, Tags: []byte(e.Tags)}
		if c.When != nil && c.When.Field == w.Field && sameTags(c.When.Tags, w.Tags) {
			b.p.addf("%s: the entry %q gives the condition the manual already states; remove its when", b.where, e.Match)
		}
		c.When = w
	} else if c.When != nil {
		b.d.addf(b.m.Slug, "%s %s: present when %s (%s)", b.m.Slug, e.Name, presenceOf(c.When), quoteName(previousPart.FindString(row.Description.En)))
	}
	return c
}

// presenceOf renders a When in Go terms.
func presenceOf(w *When) string {
	if len(w.Tags) == 0 {
		return w.Field + " != 0"
	}
	return w.Field + " is " + quoteTags(w.Tags)
}

// choice settles whether a choice may be absent: the manual's "This field
// is optional" on its rows, unless the entry decides.
func (b *builder) choice(it *Item, e *spec.FieldEntry) {
	derived := spec.ChoiceRequired
	if it.Choice.Optional {
		derived = spec.ChoiceOptional
	}
	switch {
	case e.Choice == derived:
		b.p.addf("%s: the entry %q makes %s %s, as the manual already does; remove its choice", b.where, e.Match, e.Name, e.Choice)
	case e.Choice != "":
		it.Choice.Optional = e.Choice == spec.ChoiceOptional
	default:
		b.d.addf(b.m.Slug, "%s %s: %s choice of %s", b.m.Slug, e.Name, derived, quoteTags(it.Choice.Tags))
	}
}

// tagRunFrom reports whether the Byte1('x') at scope[i] is followed by
// another one with the same entry: together they are alternatives.
func (b *builder) tagRunFrom(scope []*node, i int, e *spec.FieldEntry) bool {
	next := i + 1
	return next < len(scope) && scope[next].row != nil && scope[next].row.Type.Tag != "" && scope[next].entry == e && scope[next].role == ""
}

// checkExclusive holds the message's choices to its "either a 'K' … or an
// 'O' …, but never both" note: one choice holds exactly those tags, and may
// be absent exactly when the note says "or neither".
func (b *builder) checkExclusive(items []*Item) {
	tags, neither, ok := exclusiveTags(b.m)
	if !ok {
		return
	}
	for _, it := range items {
		if it.Op == OpChoice && sameTags(it.Choice.Tags, tags) {
			if it.Choice.Optional != neither {
				b.p.addf("%s: choice %s is optional=%t but the manual's note says %q", b.where, it.Field, it.Choice.Optional, quoteTags(tags))
			}
			return
		}
	}
	b.p.addf("%s: the manual says only one of %s is sent, but no choice holds them", b.where, quoteTags(tags))
}

// scalar is the item of one value row.
func (b *builder) scalar(n *node, e *spec.FieldEntry, prefixed bool) *Item {
	t := n.row.Type
	it := &Item{Row: n.row}
	switch t.Kind {
	case spec.KindInt:
		if e.AsBytes {
			it.Op, it.Width, it.Type = OpRaw, t.Width, Bytes
			break
		}
		it.Op, it.Width, it.Type = OpInt, t.Width, intType(t, e)
		it.Meaning = b.meaning(n.row, e)
	case spec.KindByte:
		if t.Tag != "" {
			b.p.addf("%s: %s %q needs a fixed or choice entry", b.where, n.row.Format, short(n.row))
		}
		it.Op, it.Width, it.Type = OpByte, 1, Byte
	case spec.KindString:
		it.Op, it.Type = OpString, String
	case spec.KindBytes:
		switch {
		case t.Width > 0:
			it.Op, it.Width, it.Type = OpBytesN, t.Width, GoType{Kind: KindArray, Len: t.Width}
		case prefixed:
			it.Op, it.Type = OpBytes, Bytes
		default:
			it.Op, it.Type = OpRest, Bytes
			it.Lengths = protocolLengths(e.ProtocolLengths)
			for _, pl := range it.Lengths {
				if pl.Minor > 0 && !b.protocolChange(pl.Minor) {
					b.p.addf("%s: %q has its length bounded from protocol 3.%d on, but no note of the manual says the protocol changed it", b.where, short(n.row), pl.Minor)
				}
			}
		}
	case spec.KindPart:
		it.Op, it.Part = OpPart, b.partName(t.Part)
		it.Type = GoType{Kind: KindPart, Name: it.Part}
	default:
		b.p.addf("%s: row %s has unknown kind %q", b.where, n.row.Format, t.Kind)
	}
	return it
}

// protocolChange reports whether a note of the message says what changed
// with protocol 3.minor ("Before protocol version 3.2, …").
func (b *builder) protocolChange(minor int) bool {
	for _, n := range b.m.Notes {
		for _, a := range n.Annotations {
			if a.Kind == spec.AnnProtocolChange && a.Value == "3."+strconv.Itoa(minor) {
				return true
			}
		}
	}
	return false
}

// groupItem is the item of the group at scope[i].
func (b *builder) groupItem(scope []*node, i int) *Item {
	g := scope[i].group
	it := &Item{Op: OpGroup, Terminated: g.terminated, Lead: g.lead}
	if g.entry == nil {
		return it
	}
	it.Field, it.ElemType = g.entry.Name, g.entry.Type
	var flat *spec.GroupEntry
	if g.entry.Type == "" {
		flat = g.entry
	}
	it.Elem = b.items(g.nodes, flat)
	if !g.terminated {
		it.CountWidth = b.countWidth(scope, scope[i])
	}
	values := 0
	for _, e := range it.Elem {
		if e.Op != OpFixed && e.Op != OpCount {
			values++
		}
	}
	switch {
	case flat != nil && values != 1:
		b.p.addf("%s: group %s has %d fields per element; give it a type", b.where, it.Field, values)
	case flat != nil:
		it.Type = SliceOf(it.Elem[len(it.Elem)-1].Type)
	default:
		it.Type = SliceOf(GoType{Kind: KindStruct, Name: it.ElemType})
	}
	if g.terminated && len(it.Elem) > 0 {
		if op := it.Elem[0].Op; op != OpByte && op != OpString {
			b.p.addf("%s: zero-terminated group %s must start with a Byte1 or String", b.where, it.Field)
		}
	}
	return it
}

// countWidth is the width of the count row that counts n.
func (b *builder) countWidth(scope []*node, n *node) int {
	for _, c := range scope {
		if c.role == roleCount && c.sizes == n {
			return c.row.Type.Width
		}
	}
	return 0
}

// groupName is the Go field of a group or array node.
func (b *builder) groupName(n *node) string {
	switch {
	case n.group != nil && n.group.entry != nil:
		return n.group.entry.Name
	case n.row != nil && n.entry != nil:
		return n.entry.Name
	}
	return ""
}

// partName is the Go type of the message part the manual calls name.
func (b *builder) partName(name string) string {
	for _, m := range b.s.Messages {
		if m.Part && m.Name == name {
			return m.Slug
		}
	}
	b.p.addf("%s: no message part %q in pg%d", b.where, name, b.s.Major)
	return name
}

// annotationTypes are the Go types of the manual's annotated integers.
var annotationTypes = map[string]GoType{
	"Oid":           Uint(4),
	"TransactionId": Uint(4),
	"XLogRecPtr":    Uint(8),
	"TimestampTz":   Int(8),
}

// annotationMeanings are the meanings of the manual's annotated integers;
// kindMeanings those an overlay entry's kind gives.
var (
	annotationMeanings = map[string]Meaning{
		"Oid": MeaningOID, "TransactionId": MeaningXid, "XLogRecPtr": MeaningLSN, "TimestampTz": MeaningTimestamp,
	}
	kindMeanings = map[string]Meaning{
		"lsn": MeaningLSN, "timestamp": MeaningTimestamp, "oid": MeaningOID, "xid": MeaningXid,
		"full-xid": MeaningFullXid, "plain": MeaningPlain,
	}
)

// meaning is what an integer row stands for: the manual's annotation, or
// the entry's kind where the manual has none.
func (b *builder) meaning(row *spec.Row, e *spec.FieldEntry) Meaning {
	derived := annotationMeanings[row.Type.Annotation]
	if e.Kind == "" {
		return derived
	}
	if m := kindMeanings[e.Kind]; derived != MeaningNone {
		if m == derived {
			b.p.addf("%s: the entry %q gives the kind %s the manual's annotation (%s) already states; remove it", b.where, e.Match, e.Kind, row.Type.Annotation)
		} else {
			b.p.addf("%s: the entry %q gives the kind %s to a row the manual annotates %s", b.where, e.Match, e.Kind, row.Type.Annotation)
		}
	}
	return kindMeanings[e.Kind]
}

// intType is the Go type of an IntN field: the overlay's, the annotation's,
// or the signed type of its width.
func intType(t spec.Type, e *spec.FieldEntry) GoType {
	if gt, ok := parseIntType(e.Type); ok {
		return gt
	}
	if gt, ok := annotationTypes[t.Annotation]; ok {
		return gt
	}
	return Int(t.Width)
}

// protocolLengths orders the overlay's bounds by protocol minor.
func protocolLengths(m map[string][2]int) []ProtocolLength {
	var out []ProtocolLength
	for k, v := range m {
		minor, _ := strconv.Atoi(k)
		out = append(out, ProtocolLength{Minor: minor, Min: v[0], Max: v[1]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Minor < out[j].Minor })
	return out
}

// short is a row's description cut for a problem report.
func short(r *spec.Row) string {
	d := r.Description.En
	if len(d) > 60 {
		d = d[:60] + "…"
	}
	return d
}
