package model

import (
	"sort"
	"strconv"

	"github.com/pgspec/pgspec/spec"
)

// Phase 3: rows and groups become layout items (Op, Go type, width).

// items turns one scope into layout items. In a flattened group (flat) the
// one value row needs no entry.
func (b *builder) items(scope []*node, flat *spec.GroupEntry) []*Item {
	b.pair(scope)
	var out []*Item
	made := map[*node]*Item{}   // the group or array item of a node
	counts := map[*Item]*node{} // what each count sizes
	defer func() {
		for c, n := range counts {
			if c.Sizes = made[n]; c.Sizes == nil {
				b.p.addf("%s: %s counts %q, which is no group or array of the layout", b.where, c.Row.Format, c.Field)
			}
		}
	}()
	// add appends an item once its fields are set, checked for its op.
	add := func(it *Item) {
		b.check(it)
		out = append(out, it)
	}
	for i := 0; i < len(scope); i++ {
		n := scope[i]
		if n.group != nil {
			made[n] = b.groupItem(scope, i)
			add(made[n])
			continue
		}
		t := n.row.Type
		switch n.role {
		case roleTag:
			add(&Item{Op: OpTag, Width: 1, Value: int64(t.Tag[0]), Row: n.row})
			continue
		case roleLength:
			add(&Item{Op: OpLength, Width: 4, Row: n.row})
			continue
		case roleCount:
			c := &Item{Op: OpCount, Field: b.groupName(n.sizes), Width: t.Width, Row: n.row}
			counts[c] = n.sizes
			add(c)
			continue
		case roleSize:
			continue
		case roleFixed:
			add(&Item{Op: OpFixed, Width: t.Width, Value: *t.Value, Row: n.row})
			continue
		}
		e := n.entry
		if e == nil && flat == nil && t.Kind == spec.KindByte && t.Tag != "" && !b.tagRunFrom(scope, i, nil) {
			// A lone Byte1('N') that nothing names is a constant.
			b.d.addf(b.m.Slug, "%s: %s is a constant", b.m.Slug, n.row.Format)
			add(&Item{Op: OpFixed, Width: 1, Value: int64(t.Tag[0]), Row: n.row})
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
		it := &Item{Field: e.Name, Row: n.row, Entry: n.entry, Cond: b.cond(n.row, e, out)}
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
			b.check(elem)
			it.Op, it.Elem, it.Type = OpGroup, []*Item{elem}, SliceOf(elem.Type)
			it.CountWidth = b.countWidth(scope, n)
		default:
			sc := b.scalar(n, e, i > 0 && scope[i-1].role == roleSize && scope[i-1].sizes == n)
			sc.Field, sc.Cond, sc.Entry = it.Field, it.Cond, it.Entry
			it = sc
			if it.Op == OpBytes {
				prev := scope[i-1].row
				it.Nullable = spec.Has(prev.Annotations, spec.AnnNullMinusOne)
				if e.Null != nil {
					it.Nullable = *e.Null
				}
			}
		}
		made[n] = it
		add(it)
	}
	return out
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
		it.Op, it.Part = OpPart, b.part(t.Part)
		it.Type = GoType{Kind: KindPart}
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
	it := &Item{Op: OpGroup, Terminated: g.terminated, Lead: g.lead, GroupEntry: g.entry}
	if g.entry == nil {
		return it
	}
	it.Field = g.entry.Name
	var flat *spec.GroupEntry
	if g.entry.Type == "" {
		flat = g.entry
	} else {
		it.Struct = &Struct{Name: g.entry.Type, Group: it.Field, Doc: it.Lead}
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
		it.Type = SliceOf(GoType{Kind: KindStruct, Name: it.Struct.Name})
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

// part is the message part the manual calls name, nil when the major
// has none (which check reports).
func (b *builder) part(name string) *Message {
	for _, m := range b.s.Messages {
		if m.Part && m.Name == name {
			return b.msgs[m.Slug]
		}
	}
	return nil
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
