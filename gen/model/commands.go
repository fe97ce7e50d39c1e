package model

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Command is one replication command across majors: its Go type, the
// items that become its fields and the grammar of each syntax.
type Command struct {
	Slug   string
	Name   string // the command word, BASE_BACKUP
	GoName string
	// Doc is the newest description; Synopsis the newest main synopsis.
	Doc, Synopsis string
	Majors        []int
	Items         []*CommandItem
	Forms         []*CommandForm
	Results       []*ResultSet
	Follows       []string
}

// CommandItem is one field of a command: a parameter or an option.
type CommandItem struct {
	Name   string // as the manual writes it: TWO_PHASE, slot_name, XXX/XXX
	GoName string
	// Kind is a spec.Value* kind, or ItemPluginOptions; a flag in some
	// majors and a boolean in others is a boolean.
	Kind    string
	Majors  []int
	Values  []string
	Default string
	Doc     string
	Option  bool
	// ExactValues: the server compares a quoted value with Values as
	// written, not in any case (the overlay's options, with evidence).
	ExactValues bool
	// BooleanValues: the server reads a value as a boolean first, so
	// Values' yes and no have every spelling parse_bool takes (MANIFEST).
	BooleanValues bool
}

// ItemPluginOptions is logical START_REPLICATION's ( option_name [ option_value ] [, ...] ).
const ItemPluginOptions = "plugin-options"

// CommandForm is one syntax of a command in some majors; Main forms are
// what Append writes, the others (a legacy syntax still documented) are
// read and written only when the main one cannot hold a value.
type CommandForm struct {
	Majors []int
	Main   bool
	Seq    []Node
}

// Node ops of a form's grammar.
const (
	OpLit    = "lit"    // the keyword Lit
	OpValue  = "value"  // Items[Item]: its keyword Lit first when set
	OpOpt    = "opt"    // Kids[0], when something in it is given
	OpAlt    = "alt"    // the first of Kids with something given, else Kids[0]
	OpList   = "list"   // ( option [, ...] ) of List
	OpPlugin = "plugin" // ( option_name [ option_value ] [, ...] ) into Items[Item]
	OpAny    = "any"    // Kids in any order, each at most once (keyword-syntax options)
)

// Node is one element of a form's grammar.
type Node struct {
	Op   string
	Lit  string
	Item int
	List []int
	Kids [][]Node
}

// ResultSet is a result set's Go type.
type ResultSet struct {
	GoName  string
	Rows    string
	Columns []*ResultColumn
	Majors  []int
	// Prose says the manual describes the set only in a sentence; Reason
	// is the overlay's, which names its columns.
	Prose  bool
	Reason string
}

// ResultColumn is one typed column.
type ResultColumn struct {
	Name, GoName, Type, Doc string
	// GoKind: string, int64, uint32, bytes, lsn; Null says NULL is possible.
	GoKind string
	Null   bool
}

// buildCommands merges every major's commands by slug; a -legacy entry
// adds a form to its command.
func buildCommands(specs []*spec.Spec, prose map[string][]*spec.ResultEntry, options map[string]map[string]*spec.OptionEntry) ([]*Command, error) {
	var out []*Command
	bySlug := map[string]*Command{}
	var errs []string
	used := map[*spec.ResultEntry]bool{}
	for _, s := range specs {
		for i := range s.Commands {
			sc := &s.Commands[i]
			slug := strings.TrimSuffix(sc.Slug, "-legacy")
			c := bySlug[slug]
			if c == nil {
				c = &Command{Slug: slug, Name: sc.Name, GoName: goWords(slug)}
				bySlug[slug] = c
				out = append(out, c)
			}
			if !sc.Legacy {
				c.Majors = append(c.Majors, s.Major)
				c.Doc, c.Synopsis, c.Follows = firstSentence(sc.Description.En), sc.Synopsis, sc.Follows
			}
			seq, err := c.form(sc, s.Major)
			if err != nil {
				errs = append(errs, fmt.Sprintf("pg%d %s: %v", s.Major, sc.Slug, err))
				continue
			}
			c.addForm(seq, s.Major, !sc.Legacy)
			if !sc.Legacy {
				if err := c.addResults(sc.Results, s.Major, strings.Contains(strings.ToLower(sc.Description.En), "null values"), prose[slug], used); err != nil {
					errs = append(errs, fmt.Sprintf("pg%d %s: %v", s.Major, sc.Slug, err))
				}
			}
		}
	}
	for _, c := range out {
		c.foldForms()
	}
	for _, slug := range slices.Sorted(maps.Keys(prose)) {
		for i, e := range prose[slug] {
			if !used[e] {
				errs = append(errs, fmt.Sprintf("overlay results %s %d (%q): matches no prose result set of any major", slug, i, e.Match))
			}
		}
	}
	for _, slug := range slices.Sorted(maps.Keys(options)) {
		for _, name := range slices.Sorted(maps.Keys(options[slug])) {
			var it *CommandItem
			if c := bySlug[slug]; c != nil {
				if i := slices.IndexFunc(c.Items, func(x *CommandItem) bool { return x.Name == name }); i >= 0 {
					it = c.Items[i]
				}
			}
			switch {
			case it == nil:
				errs = append(errs, fmt.Sprintf("overlay options %s %s: no such option", slug, name))
			case it.Kind != spec.ValueKeyword || len(it.Values) == 0:
				errs = append(errs, fmt.Sprintf("overlay options %s %s: a correction for a %s, not a keyword with values", slug, name, it.Kind))
			case options[slug][name].BooleanValues && (!slices.Contains(it.Values, "yes") || !slices.Contains(it.Values, "no")):
				errs = append(errs, fmt.Sprintf("overlay options %s %s: boolean_values for values without yes and no", slug, name))
			default:
				it.ExactValues = options[slug][name].ExactValues
				it.BooleanValues = options[slug][name].BooleanValues
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("replication commands:\n  %s", strings.Join(errs, "\n  "))
	}
	return out, nil
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// goWords is the Go name of a kebab-case or snake_case name, WAL and LSN
// in capitals.
func goWords(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' || r == '/' }) {
		switch w {
		case "wal", "lsn", "tli":
			b.WriteString(strings.ToUpper(w))
		default:
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// itemGoName names an item: XXX/XXX is the LSN, tli the Timeline, a
// keyword introducing a placeholder (SLOT slot_name) the placeholder.
func itemGoName(it spec.CommandItem) string {
	words := strings.Fields(it.Term)
	switch {
	case it.Name == "XXX/XXX":
		return "LSN"
	case it.Name == "tli":
		return "Timeline"
	case it.Name == "option_name":
		return "Options"
	case it.Kind == spec.ValueIdentifier && len(words) == 2 && strings.ToUpper(words[0]) == words[0]:
		return goWords(words[1])
	}
	return goWords(it.Name)
}

// item returns the index of the item named name, adding it from the
// spec's entry when new, and merges what this major says of it.
func (c *Command) item(it spec.CommandItem, major int, option bool) (int, error) {
	kind := it.Kind
	if it.Name == "option_name" {
		kind = ItemPluginOptions
	}
	i := slices.IndexFunc(c.Items, func(x *CommandItem) bool { return x.Name == it.Name })
	if i < 0 {
		c.Items = append(c.Items, &CommandItem{Name: it.Name, GoName: itemGoName(it), Kind: kind, Option: option})
		i = len(c.Items) - 1
	}
	ci := c.Items[i]
	switch {
	case ci.Kind == kind:
	case ci.Kind == spec.ValueFlag && kind == spec.ValueBoolean, ci.Kind == spec.ValueBoolean && kind == spec.ValueFlag:
		ci.Kind = spec.ValueBoolean
	default:
		return 0, fmt.Errorf("%s is %s in %d but %s before", it.Name, kind, major, ci.Kind)
	}
	if !slices.Contains(ci.Majors, major) {
		ci.Majors = append(ci.Majors, major)
	}
	for _, v := range it.Values {
		if !slices.Contains(ci.Values, v) {
			ci.Values = append(ci.Values, v)
		}
	}
	if it.Description.En != "" {
		ci.Doc = firstSentence(it.Description.En)
	}
	if it.Default != "" {
		ci.Default = it.Default
	}
	ci.Option = ci.Option || option
	return i, nil
}

func (c *Command) addForm(seq []Node, major int, main bool) {
	for _, f := range c.Forms {
		if f.Main == main && nodesEqual(f.Seq, seq) {
			f.Majors = append(f.Majors, major)
			return
		}
	}
	c.Forms = append(c.Forms, &CommandForm{Majors: []int{major}, Main: main, Seq: seq})
}

func nodesEqual(a, b []Node) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// foldForms makes one form of two of a syntax whose grammars differ only
// by options each major has or lacks (BASE_BACKUP's keyword form gains
// NOVERIFY_CHECKSUMS in 11 and MANIFEST in 13; its list gains INCREMENTAL
// in 17): the union, which in each of their majors, without the options
// that major lacks, is that major's grammar again. Append and Parse refuse
// an option by its majors, naming them, so the forms need not.
func (c *Command) foldForms() {
	for i := 0; i < len(c.Forms); i++ {
		for j := i + 1; j < len(c.Forms); {
			a, b := c.Forms[i], c.Forms[j]
			u, ok := unionNodes(a.Seq, b.Seq)
			for _, f := range []*CommandForm{a, b} {
				for _, m := range f.Majors {
					ok = ok && a.Main == b.Main && nodesEqual(c.restrict(u, m), c.restrict(f.Seq, m))
				}
			}
			if !ok {
				j++
				continue
			}
			a.Seq = u
			a.Majors = slices.Sorted(slices.Values(append(a.Majors, b.Majors...)))
			c.Forms = slices.Delete(c.Forms, j, j+1)
		}
	}
}

// unionNodes is the grammar of x with what y adds: the options of its
// lists and its any-order runs; every other node must be the same.
func unionNodes(x, y []Node) ([]Node, bool) {
	if len(x) != len(y) {
		return nil, false
	}
	out := make([]Node, len(x))
	for i, n := range x {
		m := y[i]
		if n.Op != m.Op || n.Lit != m.Lit || n.Item != m.Item {
			return nil, false
		}
		switch n.Op {
		case OpList:
			n.List = slices.Clone(n.List)
			for _, it := range m.List {
				if !slices.Contains(n.List, it) {
					n.List = append(n.List, it)
				}
			}
		case OpAny:
			n.Kids = slices.Clone(n.Kids)
			for _, k := range m.Kids {
				if !slices.ContainsFunc(n.Kids, func(e []Node) bool { return nodesEqual(e, k) }) {
					n.Kids = append(n.Kids, k)
				}
			}
		default:
			if len(n.Kids) != len(m.Kids) {
				return nil, false
			}
			n.Kids = slices.Clone(n.Kids)
			for k := range n.Kids {
				var ok bool
				if n.Kids[k], ok = unionNodes(n.Kids[k], m.Kids[k]); !ok {
					return nil, false
				}
			}
		}
		out[i] = n
	}
	return out, true
}

// restrict is a grammar in major: the options of its lists and any-order
// runs that major lacks left out.
func (c *Command) restrict(seq []Node, major int) []Node {
	has := func(it int) bool { return slices.Contains(c.Items[it].Majors, major) }
	out := make([]Node, len(seq))
	for i, n := range seq {
		switch n.Op {
		case OpList:
			n.List = slices.DeleteFunc(slices.Clone(n.List), func(it int) bool { return !has(it) })
		case OpAny:
			n.Kids = slices.DeleteFunc(slices.Clone(n.Kids), func(k []Node) bool {
				return len(k) == 1 && k[0].Op == OpValue && !has(k[0].Item)
			})
		default:
			kids := make([][]Node, len(n.Kids))
			for k := range n.Kids {
				kids[k] = c.restrict(n.Kids[k], major)
			}
			n.Kids = kids
		}
		out[i] = n
	}
	return out
}

// addResults merges a major's result sets: the same columns keep one type.
// allNull: the command says a row may be all NULL ("Returns a tuple with
// NULL values if the replication slot does not exist").
// A prose set takes its Go name and its columns' names (and types the
// sentence lacks) from the overlay entry that matches its lead; listed
// sets are named CommandResult, CommandResult2, … in order.
func (c *Command) addResults(rs []spec.ResultSet, major int, allNull bool, prose []*spec.ResultEntry, used map[*spec.ResultEntry]bool) error {
	listed := 0
	for i, r := range rs {
		var entry *spec.ResultEntry
		name := c.GoName + "Result"
		if r.Prose {
			k := slices.IndexFunc(prose, func(e *spec.ResultEntry) bool { return e.Matches(r.Lead.En) })
			if k < 0 {
				return fmt.Errorf("result set %d is described only in prose (%q): name it and its columns in the overlay's results", i+1, r.Lead.En)
			}
			entry, name = prose[k], prose[k].Name
			used[entry] = true
			if len(entry.Columns) != len(r.Columns) {
				return fmt.Errorf("result set %d: the overlay names %d columns, the prose has %d", i+1, len(entry.Columns), len(r.Columns))
			}
			r.Columns = slices.Clone(r.Columns)
			for k, ec := range entry.Columns {
				switch {
				case ec.Type != "" && r.Columns[k].Type != "":
					return fmt.Errorf("result set %d column %s: the prose gives the type %s; remove it from the overlay", i+1, ec.Name, r.Columns[k].Type)
				case ec.Type == "" && r.Columns[k].Type == "":
					return fmt.Errorf("result set %d column %s: no type in the prose; give one in the overlay", i+1, ec.Name)
				case ec.Type != "":
					r.Columns[k].Type = ec.Type
				}
				r.Columns[k].Name = ec.Name
				// The sentence's clause, "the next timeline's ID", as a doc sentence.
				if d := r.Columns[k].Description.En; d != "" {
					r.Columns[k].Description.En = strings.ToUpper(d[:1]) + d[1:] + "."
				}
			}
		} else {
			if listed++; listed > 1 {
				name = fmt.Sprintf("%sResult%d", c.GoName, listed)
			}
		}
		if i >= len(c.Results) {
			c.Results = append(c.Results, &ResultSet{GoName: name, Rows: r.Rows, Prose: r.Prose})
			if entry != nil {
				c.Results[i].Reason = entry.Reason
			}
		}
		t := c.Results[i]
		if t.GoName != name {
			return fmt.Errorf("result set %d is %s here, %s in an earlier major", i+1, name, t.GoName)
		}
		t.Majors = append(t.Majors, major)
		for _, col := range r.Columns {
			k := slices.IndexFunc(t.Columns, func(x *ResultColumn) bool { return x.Name == col.Name })
			if k < 0 {
				t.Columns = append(t.Columns, &ResultColumn{Name: col.Name, GoName: goWords(col.Name)})
				k = len(t.Columns) - 1
			}
			rc := t.Columns[k]
			rc.Type, rc.Doc = col.Type, col.Description.En
			rc.Null = rc.Null || allNull || strings.Contains(strings.ToLower(col.Description.En), "null")
			if rc.GoKind != "bytes" { // bytea in one major: raw bytes in all (TIMELINE_HISTORY's content)
				rc.GoKind = columnKind(col)
			}
		}
	}
	// Sets of one name ("in the same format as the start position") are one Go type.
	for i, a := range c.Results {
		for _, b := range c.Results[:i] {
			if a.GoName == b.GoName && columnShape(a) != columnShape(b) {
				return fmt.Errorf("result sets named %s differ: %s and %s", a.GoName, columnShape(b), columnShape(a))
			}
		}
	}
	return nil
}

// columnShape is a set's columns as the Go type holds them.
func columnShape(r *ResultSet) string {
	var b strings.Builder
	for _, c := range r.Columns {
		fmt.Fprintf(&b, "%s %s %v, ", c.Name, c.GoKind, c.Null)
	}
	return b.String()
}

// columnKind is a column's Go kind: text that the manual calls a WAL
// location is an LSN; int4/int8 integers; oid; bytea bytes.
func columnKind(col spec.Column) string {
	d := strings.ToLower(col.Description.En)
	switch {
	case col.Type == "text" && (strings.Contains(d, "wal location") || strings.Contains(d, "wal flush location") || strings.Contains(d, "xlogrecptr format") || strings.Contains(d, "wal end position") || strings.HasSuffix(col.Name, "_lsn")):
		return "lsn"
	case col.Type == "int4" || col.Type == "int8":
		return "int64"
	case col.Type == "oid":
		return "uint32"
	case col.Type == "bytea":
		return "bytes"
	}
	return "string"
}

// splitSynopsis cuts a synopsis into words and the brackets [ ] { } ( ) |.
func splitSynopsis(s string) []string {
	s = strings.NewReplacer("[", " [ ", "]", " ] ", "{", " { ", "}", " } ", "(", " ( ", ")", " ) ", "|", " | ", ",", " , ").Replace(s)
	return strings.Fields(s)
}

// form reads a spec entry's synopsis into the grammar of its form,
// adding its items to c.
func (c *Command) form(sc *spec.Command, major int) ([]Node, error) {
	toks := splitSynopsis(sc.Synopsis)
	if len(toks) == 0 || toks[0] != sc.Name {
		return nil, fmt.Errorf("synopsis %q does not start with %s", sc.Synopsis, sc.Name)
	}
	fb := formBuilder{c: c, sc: sc, major: major, toks: toks, i: 1}
	seq, err := fb.seq(false)
	if err != nil {
		return nil, err
	}
	if fb.i != len(toks) {
		return nil, fmt.Errorf("synopsis %q: unexpected %q", sc.Synopsis, toks[fb.i])
	}
	if sc.Syntax == spec.SyntaxKeyword {
		seq = anyOrder(c, seq)
	}
	return seq, nil
}

type formBuilder struct {
	c     *Command
	sc    *spec.Command
	major int
	toks  []string
	i     int
}

func (fb *formBuilder) find(name string) (spec.CommandItem, bool, bool) {
	for _, it := range fb.sc.Parameters {
		if it.Name == name {
			return it, false, true
		}
	}
	for _, it := range fb.sc.Options {
		if it.Name == name {
			return it, true, true
		}
	}
	return spec.CommandItem{}, false, false
}

// seq reads until a closing bracket or | (not consumed).
func (fb *formBuilder) seq(inAlt bool) ([]Node, error) {
	var out []Node
	for fb.i < len(fb.toks) {
		t := fb.toks[fb.i]
		switch t {
		case "]", "}", "|", ")":
			return out, nil
		case "[", "{":
			fb.i++
			if t == "[" && fb.i < len(fb.toks) && fb.toks[fb.i] == "(" {
				n, err := fb.list()
				if err != nil {
					return nil, err
				}
				if fb.i >= len(fb.toks) || fb.toks[fb.i] != "]" {
					return nil, fmt.Errorf("synopsis %q: unclosed [", fb.sc.Synopsis)
				}
				fb.i++
				out = append(out, n)
				continue
			}
			var kids [][]Node
			for {
				kid, err := fb.seq(t == "{")
				if err != nil {
					return nil, err
				}
				kids = append(kids, kid)
				if fb.i >= len(fb.toks) {
					return nil, fmt.Errorf("synopsis %q: unclosed %s", fb.sc.Synopsis, t)
				}
				close := fb.toks[fb.i]
				fb.i++
				if close != "|" {
					break
				}
			}
			switch {
			case t == "{":
				out = append(out, Node{Op: OpAlt, Kids: kids})
			case len(kids) == 1:
				out = append(out, Node{Op: OpOpt, Kids: kids})
			default:
				out = append(out, Node{Op: OpOpt, Kids: [][]Node{{{Op: OpAlt, Kids: kids}}}})
			}
		case "(":
			n, err := fb.list()
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		default:
			fb.i++
			n, err := fb.word(t, inAlt && len(out) == 0)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
	}
	return out, nil
}

// word makes a keyword or placeholder into a node: a keyword before a
// placeholder introduces that value; the first keyword of an alternative
// is a literal (PHYSICAL | LOGICAL …); another keyword is a flag item.
func (fb *formBuilder) word(t string, altHead bool) (Node, error) {
	isKW := strings.ToUpper(t) == t && t != "XXX/XXX"
	next := ""
	if fb.i < len(fb.toks) {
		next = fb.toks[fb.i]
	}
	if !isKW {
		it, opt, ok := fb.find(t)
		if !ok {
			return Node{}, fmt.Errorf("placeholder %s is no item", t)
		}
		idx, err := fb.c.item(it, fb.major, opt)
		return Node{Op: OpValue, Item: idx}, err
	}
	nextIsValue := next != "" && !strings.ContainsAny(next, "[]{}()|,") && (strings.ToUpper(next) != next || next == "XXX/XXX")
	if nextIsValue {
		fb.i++
		// The value is the placeholder's item, else the keyword's (LABEL 'label').
		if it, opt, ok := fb.find(next); ok {
			idx, err := fb.c.item(it, fb.major, opt)
			return Node{Op: OpValue, Lit: t, Item: idx}, err
		}
		it, opt, ok := fb.find(t)
		if !ok {
			return Node{}, fmt.Errorf("keyword %s before %s is no item", t, next)
		}
		idx, err := fb.c.item(it, fb.major, opt)
		return Node{Op: OpValue, Lit: t, Item: idx}, err
	}
	it, opt, ok := fb.find(t)
	if altHead || !ok {
		return Node{Op: OpLit, Lit: t}, nil
	}
	idx, err := fb.c.item(it, fb.major, opt)
	return Node{Op: OpValue, Lit: t, Item: idx}, err
}

// list reads ( option [, ...] ) or ( option_name [ option_value ] [, ...] ).
func (fb *formBuilder) list() (Node, error) {
	start := fb.i
	depth := 0
	for ; fb.i < len(fb.toks); fb.i++ {
		switch fb.toks[fb.i] {
		case "(":
			depth++
		case ")":
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if fb.i >= len(fb.toks) {
		return Node{}, fmt.Errorf("synopsis %q: unclosed (", fb.sc.Synopsis)
	}
	inner := strings.Join(fb.toks[start+1:fb.i], " ")
	fb.i++
	switch inner {
	case "option [ , ... ]":
		n := Node{Op: OpList}
		for _, it := range fb.sc.Options {
			idx, err := fb.c.item(it, fb.major, true)
			if err != nil {
				return Node{}, err
			}
			n.List = append(n.List, idx)
		}
		return n, nil
	case "option_name [ option_value ] [ , ... ]":
		it, _, ok := fb.find("option_name")
		if !ok {
			return Node{}, fmt.Errorf("no option_name item")
		}
		idx, err := fb.c.item(it, fb.major, true)
		return Node{Op: OpPlugin, Item: idx}, err
	}
	return Node{}, fmt.Errorf("synopsis %q: list ( %s ) of no known shape", fb.sc.Synopsis, inner)
}

// anyOrder makes a keyword syntax's run of optional options one node
// whose parts come in any order, as the grammar takes them.
func anyOrder(c *Command, seq []Node) []Node {
	var out []Node
	var run [][]Node
	flush := func() {
		switch len(run) {
		case 0:
		case 1:
			out = append(out, Node{Op: OpOpt, Kids: run})
		default:
			out = append(out, Node{Op: OpAny, Kids: run})
		}
		run = nil
	}
	for _, n := range seq {
		if n.Op == OpOpt && allOptions(c, n.Kids[0]) {
			run = append(run, n.Kids[0])
			continue
		}
		flush()
		for k := range n.Kids {
			n.Kids[k] = anyOrder(c, n.Kids[k])
		}
		out = append(out, n)
	}
	flush()
	return out
}

func allOptions(c *Command, seq []Node) bool {
	for _, n := range seq {
		switch n.Op {
		case OpValue:
			if !c.Items[n.Item].Option {
				return false
			}
		case OpLit:
			return false
		default:
			for _, k := range n.Kids {
				if !allOptions(c, k) {
					return false
				}
			}
		}
	}
	return len(seq) > 0
}

// only is the command restricted to the majors in says: items, forms and
// result sets of other majors dropped, the items renumbered.
func (c *Command) only(in func(int) bool) *Command {
	out := *c
	out.Majors = filter(c.Majors, in)
	index := map[int]int{}
	out.Items = nil
	for i, it := range c.Items {
		if mj := filter(it.Majors, in); len(mj) > 0 {
			n := *it
			n.Majors = mj
			index[i] = len(out.Items)
			out.Items = append(out.Items, &n)
		}
	}
	out.Forms = nil
	for _, f := range c.Forms {
		if mj := filter(f.Majors, in); len(mj) > 0 {
			out.Forms = append(out.Forms, &CommandForm{Majors: mj, Main: f.Main, Seq: renumber(f.Seq, index)})
		}
	}
	out.Results = nil
	for _, r := range c.Results {
		if mj := filter(r.Majors, in); len(mj) > 0 {
			n := *r
			n.Majors = mj
			out.Results = append(out.Results, &n)
		}
	}
	return &out
}

// renumber maps a grammar's item indices; an item of no selected major
// (index absent) cannot occur in a form of one.
func renumber(seq []Node, index map[int]int) []Node {
	out := make([]Node, len(seq))
	for i, n := range seq {
		n.Item = index[n.Item]
		var list []int
		for _, x := range n.List {
			if j, ok := index[x]; ok {
				list = append(list, j)
			}
		}
		n.List = list
		var kids [][]Node
		for _, k := range n.Kids {
			kids = append(kids, renumber(k, index))
		}
		n.Kids = kids
		out[i] = n
	}
	return out
}

// PgoutputParam is one of pgoutput's parameters across majors, with what
// its prose says it needs.
type PgoutputParam struct {
	Name   string
	Majors []int
	// Corrected are the majors of Majors whose manual is silent about the
	// parameter although their server takes it (the overlay's pgoutput
	// entries, with the source as evidence).
	Corrected []int
	// MinVersion is the proto_version "required to turn it on"; 0 for none.
	MinVersion int
	// Values are the values beside on/off the manual names (streaming's
	// parallel, origin's none and any), each with the majors and version
	// that have it.
	Values []PgoutputValue
}

// PgoutputValue is a named value of a pgoutput parameter.
type PgoutputValue struct {
	Value      string
	Majors     []int
	MinVersion int
}

// PgoutputVersion is a proto_version and the majors whose manual says
// they support it.
type PgoutputVersion struct {
	Version int
	Majors  []int
}

var (
	// "Currently only version 1 is supported", "Currently versions 1, 2, 3, and 4 are supported".
	pgoutputVersionsRE = regexp.MustCompile(`Currently (?:only )?versions? ([0-9, and]+?) (?:is|are) supported`)
	// "Minimum protocol version 2 is required to turn it on", "This requires protocol version 2 or higher".
	pgoutputOnRE = regexp.MustCompile(`Minimum protocol version (\d+) is required to turn it on|When set to on, .*?This requires protocol version (\d+) or higher`)
	// "Minimum protocol version 4 is required for the "parallel" option", "When set to parallel, … requires protocol version 4".
	pgoutputParallelRE = regexp.MustCompile(`Minimum protocol version (\d+) is required for the "?parallel"? (?:option|value)|When set to parallel, .*?This requires protocol version (\d+) or higher`)
	// origin's "Possible values are "none" … or "any"".
	pgoutputValuesRE = regexp.MustCompile(`Possible values are "?([a-z]+)"? .*? or "?([a-z]+)"? `)
)

// buildPgoutput reads pgoutput's parameters of every major, then adds the
// majors the overlay's source corrections give.
func buildPgoutput(specs []*spec.Spec, corrections map[string]*spec.SourceCorrection) ([]*PgoutputParam, []*PgoutputVersion, error) {
	var params []*PgoutputParam
	var versions []*PgoutputVersion
	addValue := func(p *PgoutputParam, v string, major, minVersion int) {
		i := slices.IndexFunc(p.Values, func(x PgoutputValue) bool { return x.Value == v })
		if i < 0 {
			p.Values = append(p.Values, PgoutputValue{Value: v})
			i = len(p.Values) - 1
		}
		p.Values[i].Majors = append(p.Values[i].Majors, major)
		p.Values[i].MinVersion = minVersion
	}
	for _, s := range specs {
		for _, o := range s.PluginOptions {
			i := slices.IndexFunc(params, func(p *PgoutputParam) bool { return p.Name == o.Name })
			if i < 0 {
				params = append(params, &PgoutputParam{Name: o.Name})
				i = len(params) - 1
			}
			p := params[i]
			p.Majors = append(p.Majors, s.Major)
			d := o.Description.En
			if m := pgoutputOnRE.FindStringSubmatch(d); m != nil {
				p.MinVersion = atoiOr(m[1]+m[2], 0)
			}
			if m := pgoutputParallelRE.FindStringSubmatch(d); m != nil {
				addValue(p, "parallel", s.Major, atoiOr(m[1]+m[2], 0))
			}
			if m := pgoutputValuesRE.FindStringSubmatch(d); m != nil {
				addValue(p, m[1], s.Major, 0)
				addValue(p, m[2], s.Major, 0)
			}
			if o.Name != "proto_version" {
				continue
			}
			m := pgoutputVersionsRE.FindStringSubmatch(d)
			if m == nil {
				return nil, nil, fmt.Errorf("pg%d pgoutput proto_version: no \"Currently … supported\" in %q", s.Major, d)
			}
			for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r < '0' || r > '9' }) {
				v := atoiOr(f, 0)
				k := slices.IndexFunc(versions, func(x *PgoutputVersion) bool { return x.Version == v })
				if k < 0 {
					versions = append(versions, &PgoutputVersion{Version: v})
					k = len(versions) - 1
				}
				versions[k].Majors = append(versions[k].Majors, s.Major)
			}
		}
	}
	if err := correctPgoutput(params, specs, corrections); err != nil {
		return nil, nil, err
	}
	return params, versions, nil
}

// correctPgoutput adds to each corrected parameter the majors of the
// entry's range: an entry for a parameter no manual documents, or for a
// major whose manual already documents it, is an error (it would restate
// the manual or correct nothing).
func correctPgoutput(params []*PgoutputParam, specs []*spec.Spec, corrections map[string]*spec.SourceCorrection) error {
	var problems []string
	names := make([]string, 0, len(corrections))
	for name := range corrections {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		lo, hi := corrections[name].Range()
		i := slices.IndexFunc(params, func(p *PgoutputParam) bool { return p.Name == name })
		if i < 0 {
			problems = append(problems, fmt.Sprintf("overlay pgoutput %s: no manual documents such a parameter", name))
			continue
		}
		p := params[i]
		for _, s := range specs {
			switch {
			case s.Major < lo || s.Major > hi:
			case slices.Contains(p.Majors, s.Major):
				problems = append(problems, fmt.Sprintf("overlay pgoutput %s: the manual of %d documents it; remove %d from the entry", name, s.Major, s.Major))
			default:
				p.Majors = append(p.Majors, s.Major)
				p.Corrected = append(p.Corrected, s.Major)
			}
		}
		slices.Sort(p.Majors)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}
