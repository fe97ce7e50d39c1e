package model

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Selection is the part of a model a codec is generated for (pgspec gen's
// -majors, -layers and -messages). A nil field selects everything.
type Selection struct {
	Majors []int
	// Layers are spec layers (spec.Layers).
	Layers []string
	// Messages are slugs, Go names or path.Match globs of either.
	Messages []string
}

// Flags renders the selection as the pgspec gen flags that make it, in one
// canonical form however they were written ("-majors 14-20 -layers
// logical"); "" selects everything. Layers go by their flags in rules.
func (sel Selection) Flags(rules *spec.Rules) string {
	var out []string
	if sel.Majors != nil {
		out = append(out, "-majors "+joinRuns(sel.Majors, "-", ","))
	}
	if sel.Layers != nil {
		var flags []string
		for _, l := range rules.Layers {
			if slices.Contains(sel.Layers, l.Layer) {
				flags = append(flags, l.Flag)
			}
		}
		if slices.Contains(sel.Layers, spec.LayerCommands) {
			flags = append(flags, spec.LayerCommands)
		}
		out = append(out, "-layers "+strings.Join(flags, ","))
	}
	if sel.Messages != nil {
		out = append(out, "-messages "+strings.Join(sel.Messages, ","))
	}
	return strings.Join(out, " ")
}

// ParseLayers reads a comma-separated list of layers, each by its name or
// its flag in rules (frontend, logical, replication), or streaming for
// streaming-replication, or commands (the replication commands).
func ParseLayers(rules *spec.Rules, s string) ([]string, error) {
	names, err := splitList(s, "layer")
	if err != nil {
		return nil, err
	}
	var out, flags []string
	for _, l := range rules.Layers {
		flags = append(flags, l.Flag)
	}
	for _, name := range names {
		if name == spec.LayerCommands { // the replication commands: no message layer, no row
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
			continue
		}
		i := slices.IndexFunc(rules.Layers, func(l *spec.LayerRule) bool {
			return name == l.Layer || name == l.Flag || strings.HasPrefix(l.Layer, name+"-")
		})
		if i < 0 {
			return nil, fmt.Errorf("unknown layer %q (want %s, %s or a layer's full name)", name, strings.Join(flags, ", "), spec.LayerCommands)
		}
		if l := rules.Layers[i].Layer; !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

// ParseMajors reads majors as a comma-separated list of majors and ranges:
// "14-18", "10,12", "10-12,15". The result is increasing, without repeats.
func ParseMajors(s string) ([]int, error) {
	parts, err := splitList(s, "major")
	if err != nil {
		return nil, err
	}
	set := map[int]bool{}
	for _, part := range parts {
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || a <= 0 || b < a || b > 63 {
			return nil, fmt.Errorf("bad major or range %q (want e.g. 14, 14-18 or 10,12-13)", part)
		}
		for m := a; m <= b; m++ {
			set[m] = true
		}
	}
	return sortedKeys(set), nil
}

// splitList splits a comma-separated flag value, trimming spaces. An empty
// value is no list (nil: the default); one of only commas and spaces names
// no item, an error.
func splitList(s, item string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	if out == nil && s != "" {
		return nil, fmt.Errorf("%q names no %s", s, item)
	}
	return out, nil
}

// Select returns the part of m that sel selects: its messages restricted to
// the selected majors (layouts, fields and names of other majors dropped),
// with the message parts they carry whether or not a pattern names them,
// and the defaults derived for what it keeps.
// A major the spec lacks, a pattern that selects nothing, or an empty
// result is an error. Descriptions keep what the manual says of every
// major. m is not modified.
func (m *Model) Select(sel Selection) (*Model, error) {
	majors := m.Majors
	if sel.Majors != nil {
		for _, mj := range sel.Majors {
			if !slices.Contains(m.Majors, mj) {
				return nil, fmt.Errorf("majors: the spec has no PostgreSQL %d (it has %s)", mj, MajorList(m.Majors))
			}
		}
		majors = sel.Majors
	}
	in := func(mj int) bool { return slices.Contains(majors, mj) }
	// eligible: in a selected layer and documented in a selected major.
	eligible := func(msg *Message) bool {
		return (sel.Layers == nil || slices.Contains(sel.Layers, msg.Layer)) && slices.ContainsFunc(msg.Majors, in)
	}
	cmdEligible := func(c *Command) bool {
		return (sel.Layers == nil || slices.Contains(sel.Layers, spec.LayerCommands)) && slices.ContainsFunc(c.Majors, in)
	}
	out := &Model{Majors: majors, Released: filter(m.Released, in), Rules: m.Rules, ProtocolMinors: m.ProtocolMinors, DirectTLS: m.DirectTLS}

	wanted := map[string]bool{}
	for _, pat := range sel.Messages {
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("messages: bad pattern %q: %w", pat, err)
		}
		found := false
		for _, msg := range m.Messages {
			if matches(pat, msg) && eligible(msg) {
				wanted[msg.Slug], found = true, true
			}
		}
		for _, c := range m.Commands {
			if matchesCommand(pat, c) && cmdEligible(c) {
				wanted[c.Slug], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("messages: %q selects no message of PostgreSQL %s in the layers asked for", pat, MajorList(majors))
		}
	}
	keep := func(msg *Message) bool {
		if sel.Messages != nil {
			return wanted[msg.Slug]
		}
		return eligible(msg)
	}
	// The message parts the kept messages carry in the selected majors, and
	// the messages the replication commands' results are read with.
	carried := map[*Message]bool{}
	var carry func(items []*Item)
	carry = func(items []*Item) {
		for _, it := range items {
			if it.Op == OpPart && !carried[it.Part] {
				carried[it.Part] = true
				for _, l := range it.Part.Layouts {
					if slices.ContainsFunc(l.Majors, in) {
						carry(l.Items)
					}
				}
			}
			carry(it.Elem)
		}
	}
	for _, c := range m.Commands {
		if sel.Messages != nil && wanted[c.Slug] || sel.Messages == nil && cmdEligible(c) {
			out.Commands = append(out.Commands, c.only(in))
		}
	}
	if len(out.Commands) > 0 {
		for _, po := range m.Pgoutput {
			if mj := filter(po.Majors, in); len(mj) > 0 {
				n := *po
				n.Majors, n.Corrected, n.Values = mj, filter(po.Corrected, in), nil
				for _, v := range po.Values {
					if vm := filter(v.Majors, in); len(vm) > 0 {
						v.Majors = vm
						n.Values = append(n.Values, v)
					}
				}
				out.Pgoutput = append(out.Pgoutput, &n)
			}
		}
		for _, v := range m.PgoutputVersions {
			if mj := filter(v.Majors, in); len(mj) > 0 {
				out.PgoutputVersions = append(out.PgoutputVersions, &PgoutputVersion{Version: v.Version, Majors: mj})
			}
		}
		// The result types read RowDescription and DataRow.
		carried[m.Find("row-description")], carried[m.Find("data-row")] = true, true
	}
	for _, msg := range m.Messages {
		if keep(msg) {
			for _, l := range msg.Layouts {
				if slices.ContainsFunc(l.Majors, in) {
					carry(l.Items)
				}
			}
		}
	}
	cp := &copier{msgs: map[*Message]*Message{}, items: map[*Item]*Item{}, structs: map[*Struct]*Struct{}}
	for _, msg := range m.Messages {
		if keep(msg) || carried[msg] || msg.AnswerTo != "" && keep(m.Find(msg.AnswerTo)) {
			out.Messages = append(out.Messages, cp.only(msg, in))
		}
	}
	cp.link()
	out.linkStructs()
	out.dropCarried()
	if len(out.Messages) == 0 && len(out.Commands) == 0 {
		return nil, fmt.Errorf("the selection holds no message of PostgreSQL %s", MajorList(majors))
	}
	if slices.ContainsFunc(out.Messages, func(msg *Message) bool { return msg.Layer == spec.LayerFrontendBackend }) {
		for _, ef := range m.ErrorFields {
			if mj := filter(ef.Majors, in); len(mj) > 0 {
				e := *ef
				e.Majors = mj
				out.ErrorFields = append(out.ErrorFields, &e)
			}
		}
	}
	kept := map[string]bool{"": len(out.ErrorFields) > 0} // "": the error field codes
	for _, msg := range out.Messages {
		kept[msg.Slug] = true
	}
	for _, d := range m.Defaults {
		if kept[d.Slug] {
			out.Defaults = append(out.Defaults, d)
		}
	}
	out.Flow = m.Flow.selectFlow(m, out)
	return out, nil
}

// dropCarried unmarks the fields that carry a layer the selection has no
// message of: to its codec their bytes are opaque, as its trackers leave
// them.
func (m *Model) dropCarried() {
	has := map[string]bool{}
	for _, msg := range m.Messages {
		has[msg.Layer] = true
	}
	for _, msg := range m.Messages {
		for _, f := range msg.Fields {
			if !has[f.Carries] {
				f.Carries = ""
			}
		}
	}
}

// matches reports whether pat matches the message's slug or Go name.
func matchesCommand(pat string, c *Command) bool {
	a, _ := path.Match(pat, c.Slug)
	b, _ := path.Match(pat, c.GoName)
	return a || b
}

func matches(pat string, msg *Message) bool {
	a, _ := path.Match(pat, msg.Slug)
	b, _ := path.Match(pat, msg.GoName)
	return a || b
}

// copier deep-copies messages into a selection, so that its references
// point into it: a count at the copy of its group, a condition at the copy
// of its choice, a part at the copy of its message, an element at the copy
// of its struct.
type copier struct {
	msgs    map[*Message]*Message
	items   map[*Item]*Item
	structs map[*Struct]*Struct
}

// only is a copy of msg restricted to the majors in reports true for; its
// references are the originals' until link.
func (cp *copier) only(msg *Message, in func(int) bool) *Message {
	c := *msg
	cp.msgs[msg] = &c
	c.Majors = filter(msg.Majors, in)
	c.Names, c.Layouts, c.Fields, c.Structs = nil, nil, nil, nil
	for _, n := range msg.Names {
		if mj := filter(n.Majors, in); len(mj) > 0 {
			c.Names = append(c.Names, NameRange{Name: n.Name, Majors: mj})
			c.Name = n.Name
		}
	}
	used := map[*Struct]bool{}
	for _, l := range msg.Layouts {
		if mj := filter(l.Majors, in); len(mj) > 0 {
			c.Layouts = append(c.Layouts, &Layout{Majors: mj, Items: cp.copyItems(l.Items, used)})
		}
	}
	c.Fields = onlyFields(msg.Fields, in)
	// A change is the selection's when it comes after its first major.
	c.Changes = nil
	for _, ch := range msg.Changes {
		if in(ch.Major) && len(c.Majors) > 0 && ch.Major > c.Majors[0] {
			c.Changes = append(c.Changes, ch)
		}
	}
	for _, st := range msg.Structs {
		if used[st] {
			cs := *st
			cs.Fields = onlyFields(st.Fields, in)
			cp.structs[st] = &cs
			c.Structs = append(c.Structs, &cs)
		}
	}
	return &c
}

// copyItems copies items and what they own (elements, choice, condition),
// noting the structs of their groups in used.
func (cp *copier) copyItems(items []*Item, used map[*Struct]bool) []*Item {
	out := make([]*Item, len(items))
	for i, it := range items {
		c := *it
		cp.items[it] = &c
		if it.Choice != nil {
			ch := *it.Choice
			c.Choice = &ch
		}
		if it.Cond.When != nil {
			w := *it.Cond.When
			c.Cond.When = &w
		}
		if it.Struct != nil {
			used[it.Struct] = true
		}
		c.Elem = cp.copyItems(it.Elem, used)
		out[i] = &c
	}
	return out
}

// link points the copies' references at the copies.
func (cp *copier) link() {
	for _, c := range cp.items {
		c.Sizes = cp.items[c.Sizes]
		c.Part = cp.msgs[c.Part]
		c.Struct = cp.structs[c.Struct]
		if w := c.Cond.When; w != nil {
			w.Choice = cp.items[w.Choice]
		}
	}
	for _, c := range cp.msgs {
		for _, f := range c.Fields {
			f.Struct = cp.structs[f.Struct]
		}
	}
	for _, c := range cp.structs {
		c.Msg = cp.msgs[c.Msg]
		for _, f := range c.Fields {
			f.Struct = cp.structs[f.Struct]
		}
	}
}

func onlyFields(fields []*Field, in func(int) bool) []*Field {
	var out []*Field
	for _, f := range fields {
		if mj := filter(f.Majors, in); len(mj) > 0 {
			c := *f
			c.Majors = mj
			out = append(out, &c)
		}
	}
	return out
}

func filter(majors []int, in func(int) bool) []int {
	var out []int
	for _, mj := range majors {
		if in(mj) {
			out = append(out, mj)
		}
	}
	return out
}
