//go:build ignore

package codec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Command is what every generated replication command implements: a
// string sent in a Query on a replication connection.
type Command interface {
	// Append writes the command in the syntax of p.Major's manual. An
	// option or form that major lacks is a *CommandError before anything
	// is written.
	Append(dst []byte, p Params) ([]byte, error)
	// String is the command for the newest major, or the text it was
	// parsed from while its fields are unchanged; "" when it cannot be
	// written.
	String() string
	// CommandName is the command word, BASE_BACKUP.
	CommandName() string
	// Majors is the set of majors whose manual documents the command.
	Majors() MajorSet
	desc() *commandDesc
	spell() *spelling
	// values are the fields' values in the order of desc's items;
	// setValues stores them (both generated per command: no reflection).
	values() []cmdValue
	setValues(v []cmdValue)
}

// ErrCommand marks every error about a replication command's text or options.
var ErrCommand = errors.New("replication command")

// CommandError says what is wrong with a command: an option (or the command)
// that Major's manual lacks, with the majors that have it, a value out of
// its set, or text that is no command of that major (Offset into it).
type CommandError struct {
	Command string
	// Option is the option or parameter concerned, "" for the command.
	Option string
	Major  int
	// Majors have Option (or the command) when Major lacks it.
	Majors MajorSet
	// Offset is the byte offset in the parsed text, -1 when not parsing.
	Offset int
	Reason string
}

func (e *CommandError) Error() string {
	var b strings.Builder
	b.WriteString(e.Command)
	if e.Option != "" {
		b.WriteString(" " + e.Option)
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (byte %d)", e.Offset)
	}
	b.WriteString(": " + e.Reason)
	if e.Majors != 0 {
		fmt.Fprintf(&b, " (it is in PostgreSQL %s)", majorRanges(e.Majors.Majors()))
	}
	return b.String()
}

func (e *CommandError) Unwrap() error { return ErrCommand }

// majorRanges writes 10, 12–14, 17 and later: a range reaching the
// newest major is open, as the manual's "PostgreSQL 17 and later" is, so
// the message stays the same when a new major is generated.
func majorRanges(ms []int) string {
	var parts []string
	for i := 0; i < len(ms); {
		j := i
		for j+1 < len(ms) && ms[j+1] == ms[j]+1 {
			j++
		}
		switch {
		case ms[j] == NewestMajor:
			parts = append(parts, strconv.Itoa(ms[i])+" and later")
		case j == i:
			parts = append(parts, strconv.Itoa(ms[i]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", ms[i], ms[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// PluginOption is one option_name [ option_value ] of logical
// START_REPLICATION's list, passed to the output plugin as written.
type PluginOption struct {
	Name string
	// Value is the option_value string constant; HasValue false leaves it out.
	Value    string
	HasValue bool
}

// Value kinds of command items: how a value is written and read.
const (
	kindFlag          = iota // a bare keyword
	kindBoolean              // KEYWORD [ boolean ]; a flag in the keyword syntax
	kindKeyword              // one of a set, written as a string constant
	kindString               // 'string constant'
	kindInteger              // digits
	kindLSN                  // XXX/XXX
	kindTimeline             // digits
	kindIdentifier           // "double-quoted identifier"
	kindPluginOptions        // ( option_name [ option_value ] [, ...] )
)

// commandDesc describes a command for Append and Parse: its items (the Go
// fields) and its forms, each the grammar of one syntax in some majors.
type commandDesc struct {
	name   string
	majors MajorSet
	items  []itemDesc
	forms  []commandForm
}

// itemDesc is one Go field: a parameter or an option.
type itemDesc struct {
	name    string
	kind    int
	majors  MajorSet // majors whose manual documents it
	values  []string // a keyword's allowed values
	exact   bool     // values compared as written, not in any case
	boolean bool     // yes and no spelled as any boolean parse_bool takes
}

// commandForm is one syntax: main is the form Append writes in its majors;
// the others are only read.
type commandForm struct {
	majors MajorSet
	main   bool
	seq    []tmpl
}

// Template node ops.
const (
	opLit    = iota // the keyword lit
	opValue         // item's value (its keyword first when lit is set)
	opOpt           // kids[0] when anything in it is set
	opAlt           // the first of kids with something set, else the first
	opList          // ( option [, ...] ): items, each NAME [value]
	opPlugin        // ( option_name [ option_value ] [, ...] ) into item
	opAny           // keyword-syntax options: kids in any order, each at most once
)

// tmpl is one node of a form's grammar.
type tmpl struct {
	op    int
	lit   string
	item  int
	items []int
	kids  [][]tmpl
}

// The generated forms are written with these, so a form reads like its
// synopsis: seq(val(0), opt(kw(1, "TEMPORARY")), alt(seq(lit("PHYSICAL")), …)).

func seq(nodes ...tmpl) []tmpl         { return nodes }
func lit(keyword string) tmpl          { return tmpl{op: opLit, lit: keyword} }
func val(item int) tmpl                { return tmpl{op: opValue, item: item} }
func kw(item int, keyword string) tmpl { return tmpl{op: opValue, item: item, lit: keyword} }
func opt(nodes ...tmpl) tmpl           { return tmpl{op: opOpt, kids: [][]tmpl{nodes}} }
func alt(kids ...[]tmpl) tmpl          { return tmpl{op: opAlt, kids: kids} }
func anyOf(kids ...[]tmpl) tmpl        { return tmpl{op: opAny, kids: kids} }
func list(items ...int) tmpl           { return tmpl{op: opList, items: items} }
func pluginOptions(item int) tmpl      { return tmpl{op: opPlugin, item: item} }

// cmdValue is one item's value; set says it is given.
type cmdValue struct {
	set  bool
	b    bool
	s    string
	n    int64
	opts []PluginOption
	off  int // where in the text it was given, when parsed
}

// spelling is the text a command was parsed from and the canonical form
// of its values then: String and Append give the text back while the
// values still render as they did.
type spelling struct {
	text  string
	canon string
	major int
}

// appendCommand writes c for p.Major.
func appendCommand(dst []byte, c Command, p Params) ([]byte, error) {
	out, err := renderCommand(c.desc(), c.values(), p.major())
	if err != nil {
		return dst, err
	}
	if sp := c.spell(); sp.text != "" && sp.canon == out && sp.major == p.major() {
		return append(dst, sp.text...), nil
	}
	return append(dst, out...), nil
}

// AppendCanonical writes c for p.Major the way Append writes a command
// built in Go: keywords in capitals, identifiers double-quoted, values as
// string constants, options joined by ", ", whatever text c was parsed from.
func AppendCanonical(dst []byte, c Command, p Params) ([]byte, error) {
	out, err := renderCommand(c.desc(), c.values(), p.major())
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

// commandString is String for every command.
func commandString(c Command) string {
	sp := c.spell()
	major := sp.major
	if major == 0 {
		major = NewestMajor
	}
	b, err := appendCommand(nil, c, Params{Major: major})
	if err != nil {
		return ""
	}
	return string(b)
}

// renderCommand writes the canonical text of vals in major's main form:
// keywords upper case, identifiers double-quoted, values as string
// constants, options joined by ", ".
func renderCommand(d *commandDesc, vals []cmdValue, major int) (string, error) {
	fail := func(item, reason string, majors MajorSet) (string, error) {
		return "", &CommandError{Command: d.name, Option: item, Major: major, Majors: majors, Offset: -1, Reason: reason}
	}
	if !d.majors.Has(major) {
		return fail("", fmt.Sprintf("not in PostgreSQL %d", major), d.majors)
	}
	for i, it := range d.items {
		if !vals[i].set {
			continue
		}
		if !it.majors.Has(major) {
			return fail(it.name, fmt.Sprintf("not in PostgreSQL %d", major), it.majors)
		}
		if it.kind == kindKeyword && len(it.values) > 0 && !containsString(it.values, vals[i].s) {
			return fail(it.name, fmt.Sprintf("value %q is not one of %s", vals[i].s, strings.Join(it.values, ", ")), 0)
		}
		// The server would cut a longer name and use another than given.
		long := ""
		if it.kind == kindIdentifier && len(vals[i].s) > maxIdentifier {
			long = vals[i].s
		}
		for _, o := range vals[i].opts {
			if len(o.Name) > maxIdentifier && long == "" {
				long = o.Name
			}
		}
		if long != "" {
			return fail(it.name, fmt.Sprintf("%q is %d bytes: the server cuts an identifier to %d (NAMEDATALEN-1)", long, len(long), maxIdentifier), 0)
		}
	}
	// The main form, then a legacy one the major still documents: the
	// first that writes every given value. A value no form holds is
	// refused, never dropped.
	lost := ""
	for _, main := range []bool{true, false} {
		for fi := range d.forms {
			f := &d.forms[fi]
			if f.main != main || !f.majors.Has(major) {
				continue
			}
			// Room for the name and a few dozen bytes an item.
			r := renderer{d: d, vals: vals, b: append(make([]byte, 0, len(d.name)+32*len(d.items)), d.name...), wrote: make([]bool, len(d.items))}
			if err := r.seq(f.seq, true); err != nil {
				return fail(err.Error(), "is required", 0)
			}
			lost = ""
			for i, it := range d.items {
				if vals[i].set && !r.wrote[i] && lost == "" {
					lost = it.name
				}
			}
			if lost == "" {
				return string(r.b), nil
			}
		}
	}
	return fail(lost, fmt.Sprintf("cannot be written together with the other options in PostgreSQL %d's syntax", major), 0)
}

type renderer struct {
	d     *commandDesc
	vals  []cmdValue
	b     []byte
	wrote []bool // by item
}

// seq writes nodes; required says a missing value is an error (its item
// name is the error's text).
func (r *renderer) seq(nodes []tmpl, required bool) error {
	for _, n := range nodes {
		switch n.op {
		case opLit:
			r.b = append(r.b, ' ')
			r.b = append(r.b, n.lit...)
		case opValue:
			v := r.vals[n.item]
			if !v.set {
				if required {
					return errors.New(r.d.items[n.item].name)
				}
				continue
			}
			r.wrote[n.item] = true
			it := r.d.items[n.item]
			if n.lit != "" {
				r.b = append(r.b, ' ')
				r.b = append(r.b, n.lit...)
			}
			if it.kind == kindFlag || it.kind == kindBoolean && n.lit != "" && it.name == n.lit && v.b {
				continue // a bare keyword: the flag itself
			}
			r.b = append(r.b, ' ')
			r.b = appendValue(r.b, it.kind, v)
		case opOpt:
			if r.anySet(n.kids[0]) {
				if err := r.seq(n.kids[0], true); err != nil {
					return err
				}
			}
		case opAlt:
			k := 0
			for i, kid := range n.kids {
				if r.anySet(kid) {
					k = i
					break
				}
			}
			if err := r.seq(n.kids[k], required); err != nil {
				return err
			}
		case opAny:
			for _, kid := range n.kids {
				if r.anySet(kid) {
					if err := r.seq(kid, true); err != nil {
						return err
					}
				}
			}
		case opList:
			first := true
			for _, i := range n.items {
				v := r.vals[i]
				if !v.set || r.d.items[i].kind == kindFlag && !v.b {
					continue
				}
				r.wrote[i] = true
				if first {
					r.b = append(r.b, " ("...)
				} else {
					r.b = append(r.b, ", "...)
				}
				first = false
				it := r.d.items[i]
				r.b = append(r.b, it.name...)
				if it.kind == kindFlag || it.kind == kindBoolean && v.b {
					continue
				}
				r.b = append(r.b, ' ')
				r.b = appendValue(r.b, it.kind, v)
			}
			if !first {
				r.b = append(r.b, ')')
			}
		case opPlugin:
			if v := r.vals[n.item]; v.set {
				r.wrote[n.item] = true
				r.b = appendPluginOptions(r.b, v.opts)
			}
		}
	}
	return nil
}

// anySet says whether a value under nodes is given (a false flag is not).
func (r *renderer) anySet(nodes []tmpl) bool {
	for _, n := range nodes {
		switch n.op {
		case opValue:
			v := r.vals[n.item]
			if v.set && (r.d.items[n.item].kind != kindFlag || v.b) && (r.d.items[n.item].kind != kindBoolean || n.lit == "" || v.b || n.lit != r.d.items[n.item].name) {
				return true
			}
		case opOpt, opAlt, opAny:
			for _, k := range n.kids {
				if r.anySet(k) {
					return true
				}
			}
		case opList:
			for _, i := range n.items {
				if r.vals[i].set {
					return true
				}
			}
		case opPlugin:
			if r.vals[n.item].set {
				return true
			}
		}
	}
	return false
}

func appendPluginOptions(b []byte, opts []PluginOption) []byte {
	if len(opts) == 0 {
		return b
	}
	b = append(b, " ("...)
	for i, o := range opts {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendIdent(b, o.Name)
		if o.HasValue {
			b = append(b, ' ')
			b = appendQuoted(b, o.Value)
		}
	}
	return append(b, ')')
}

// appendValue writes a value of kind as the replication grammar reads it.
func appendValue(b []byte, kind int, v cmdValue) []byte {
	switch kind {
	case kindBoolean:
		return strconv.AppendBool(b, v.b)
	case kindInteger, kindTimeline:
		return strconv.AppendInt(b, v.n, 10)
	case kindLSN:
		return appendLSN(b, LSN(v.n))
	case kindIdentifier:
		return appendIdent(b, v.s)
	}
	return appendQuoted(b, v.s)
}

// appendIdent double-quotes an identifier, doubling its quotes.
func appendIdent(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}

// appendQuoted writes a string constant as standard_conforming_strings
// reads it: quotes doubled, backslashes as they are.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '\'')
	b = append(b, strings.ReplaceAll(s, `'`, `''`)...)
	return append(b, '\'')
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Token kinds of the replication grammar's scanner.
const (
	tokWord   = iota // keyword or unquoted identifier
	tokQIdent        // "identifier"
	tokString        // 'constant'
	tokNumber        // digits (UCONST: a sign is a character of its own)
	tokLSN           // hex/hex
	tokPunct         // ( ) , ;
)

type token struct {
	kind int
	text string // the value: unquoted, escapes undone
	off  int
}

// MaxCommand bounds the text Parse reads: the server's own limit on a
// query is far larger, but a replication command is short.
const MaxCommand = 1 << 16

// tokenize splits a command the way repl_scanner.l does. Its keywords are
// rules of their own, in capitals, with no caseless option: a keyword
// matches only as written (Parse compares them exactly), and any other
// word is an identifier, which the scanner downcases.
func tokenize(s string) ([]token, error) {
	out := make([]token, 0, min(len(s)/5+2, 32)) // a token and its space: 5 bytes or more, mostly
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '(' || c == ')' || c == ',' || c == ';':
			out = append(out, token{tokPunct, s[i : i+1], i})
			i++
		case c == '"' || c == '\'':
			// The text between the quotes, copied only when a doubled
			// quote must be undone.
			j, from, val := i+1, i+1, []byte(nil)
			for {
				if j >= len(s) {
					return nil, &CommandError{Offset: i, Reason: "unterminated quoted text"}
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						val = append(val, s[from:j+1]...)
						j += 2
						from = j
						continue
					}
					break
				}
				j++
			}
			text := s[i+1 : j]
			if val != nil {
				text = string(append(val, s[from:j]...))
			}
			k := tokString
			if c == '"' {
				k, text = tokQIdent, truncateIdentifier(text)
			}
			out = append(out, token{k, text, i})
			i = j + 1
		default:
			j := wordEnd(s, i)
			w := s[i:j]
			k := tokWord
			if _, ok := parseLSN(w); ok {
				k = tokLSN
			} else if strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }) < 0 {
				k = tokNumber
			} else if isIdentifier(w) {
				w = truncateIdentifier(w)
			}
			out = append(out, token{k, w, i})
			i = j
		}
	}
	return out, nil
}

// wordEnd is where the word at s[i] ends: at a space, a bracket, a comma,
// a semicolon or a quote.
func wordEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v', '(', ')', ',', ';', '"', '\'':
			return i
		}
	}
	return i
}

// maxIdentifier is NAMEDATALEN-1: the scanner cuts every identifier,
// quoted or not, to 63 bytes (truncate_identifier, with a NOTICE).
const maxIdentifier = 63

// truncateIdentifier cuts s as the server does: to maxIdentifier bytes,
// back to a character's first byte (pg_mbcliplen in a UTF-8 database; a
// physical replication connection has no database and cuts at byte 63,
// which differs only for a name no slot, plugin or setting can have).
func truncateIdentifier(s string) string {
	if len(s) <= maxIdentifier {
		return s
	}
	n := maxIdentifier
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// isIdentifier says whether w is the scanner's {identifier}: a letter,
// underscore or non-ASCII byte, then those, digits or dollars.
func isIdentifier(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		letter := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c >= 0x80
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '$')) {
			return false
		}
	}
	return w != ""
}

// parseCommand reads text as a command of major: the first form, of the
// first command named by text's first word (commandDescs), whose grammar
// takes every token; newCommand(i) makes commandDescs[i]'s command, only
// once it is the one.
func parseCommand(text string, major int, newCommand func(int) Command) (Command, error) {
	if len(text) > MaxCommand {
		return nil, &CommandError{Command: "replication command", Offset: MaxCommand, Reason: fmt.Sprintf("longer than %d bytes", MaxCommand)}
	}
	// A first word that names no command in any case (SQL, most of the
	// Queries pgtrace sees) is refused before the text is read.
	if start, w := firstWord(text); isIdentifier(w) && !isCommandWord(w) {
		return nil, &CommandError{Command: w, Offset: start, Reason: fmt.Sprintf("no replication command of PostgreSQL %d", major)}
	}
	toks, err := tokenize(text)
	if err != nil {
		err.(*CommandError).Command = "replication command"
		return nil, err
	}
	if len(toks) > 0 && toks[len(toks)-1].text == ";" && toks[len(toks)-1].kind == tokPunct {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 || toks[0].kind != tokWord {
		return nil, &CommandError{Command: "replication command", Offset: 0, Reason: "no command word"}
	}
	word := toks[0].text
	// The error is the command not in major or, made only at the end, the
	// form that failed furthest (the first of those, after that error).
	var best *CommandError
	var p, failed parser
	formFailed := false
	bestOffset := func() int {
		if formFailed {
			return failed.failOffset()
		}
		return best.Offset
	}
	for di, d := range commandDescs {
		if d.name != word {
			continue
		}
		if !d.majors.Has(major) {
			best, formFailed = &CommandError{Command: d.name, Major: major, Majors: d.majors, Offset: 0, Reason: fmt.Sprintf("not in PostgreSQL %d", major)}, false
			continue
		}
		for _, f := range d.forms {
			if !f.majors.Has(major) {
				continue
			}
			p.reset(d, major, toks)
			n, ok := p.seq(f.seq, 1)
			if ok && n < len(toks) {
				p.note(n, "unexpected text", "")
			}
			if ok && n == len(toks) {
				for i, it := range d.items {
					if p.vals[i].set && !it.majors.Has(major) {
						return nil, &CommandError{Command: d.name, Option: it.name, Major: major, Majors: it.majors, Offset: p.vals[i].off, Reason: fmt.Sprintf("not in PostgreSQL %d", major)}
					}
				}
				c := newCommand(di)
				c.setValues(p.vals)
				canon, err := renderCommand(d, p.vals, major)
				if err != nil {
					// A value out of its set: where it was written.
					if ce, ok := err.(*CommandError); ok {
						for i, it := range d.items {
							if p.vals[i].set && it.name == ce.Option {
								ce.Offset = p.vals[i].off
							}
						}
					}
					return nil, err
				}
				*c.spell() = spelling{text: text, canon: canon, major: major}
				return c, nil
			} else if best == nil && !formFailed || p.failOffset() > bestOffset() {
				failed, formFailed = p, true
			}
		}
	}
	if formFailed {
		best = failed.failure()
	}
	if best == nil {
		reason := fmt.Sprintf("no replication command of PostgreSQL %d", major)
		for _, d := range commandDescs {
			if d.name != word && strings.EqualFold(d.name, word) {
				// The scanner has no rule for it: the server runs it as SQL.
				reason += fmt.Sprintf(" (its keywords are in capitals: %s)", d.name)
				break
			}
		}
		best = &CommandError{Command: word, Offset: toks[0].off, Reason: reason}
	}
	return nil, best
}

// reset makes p a parser of toks for one of d's forms, in the room of the
// last.
func (p *parser) reset(d *commandDesc, major int, toks []token) {
	n := len(d.items)
	if cap(p.vals) < n {
		// The values and, after them, room for the saves of a few nodes.
		room := make([]cmdValue, n, 8*n)
		p.vals, p.saved = room[:n:n], room[n:n]
	}
	*p = parser{d: d, major: major, toks: toks, vals: p.vals[:n], saved: p.saved[:0]}
	clear(p.vals)
}

// parser matches tokens against a form's grammar, backtracking over
// optional parts and alternatives.
type parser struct {
	d     *commandDesc
	major int
	toks  []token
	vals  []cmdValue
	saved []cmdValue // snapshot's stack
	far   int        // the furthest token reached, for the error
	why   string
	what  string    // what why is about, joined to it in failure
	other *itemDesc // the option of other majors the error is about, if any
}

// failure is the error of a form that did not fit, at failOffset.
func (p *parser) failure() *CommandError {
	off := p.failOffset()
	why := p.why + p.what
	if why == "" {
		why = "unexpected text"
	}
	if p.other != nil {
		return &CommandError{Command: p.d.name, Option: p.other.name, Major: p.major, Majors: p.other.majors, Offset: off, Reason: why}
	}
	return &CommandError{Command: p.d.name, Offset: off, Reason: why}
}

func (p *parser) failOffset() int {
	if p.far < len(p.toks) {
		return p.toks[p.far].off
	} else if len(p.toks) > 0 {
		last := p.toks[len(p.toks)-1]
		return last.off + len(last.text)
	}
	return len(p.toks)
}

// note records why token i did not fit, when no token further did: why
// and what, which failure joins, so that a form that fails while another
// is still to be tried makes no string.
func (p *parser) note(i int, why, what string) {
	if i >= p.far {
		p.far, p.why, p.what, p.other = i, why, what, nil
	}
}

// seq matches nodes from token i; it returns the index after them.
func (p *parser) seq(nodes []tmpl, i int) (int, bool) {
	if len(nodes) == 0 {
		return i, true
	}
	n, rest := nodes[0], nodes[1:]
	try := func(j int, ok bool) (int, bool) {
		if !ok {
			return 0, false
		}
		return p.seq(rest, j)
	}
	switch n.op {
	case opLit:
		if i < len(p.toks) && p.toks[i].kind == tokWord && p.toks[i].text == n.lit {
			return try(i+1, true)
		}
		p.note(i, "want ", n.lit)
		return 0, false
	case opValue:
		save := p.snapshot()
		j, ok := p.value(n, i)
		if end, ok2 := try(j, ok); ok2 {
			return end, true
		}
		p.restore(save)
		return 0, false
	case opOpt:
		save := p.snapshot()
		if j, ok := p.seq(n.kids[0], i); ok {
			if end, ok := p.seq(rest, j); ok {
				return end, true
			}
		}
		p.restore(save)
		return p.seq(rest, i)
	case opAlt:
		for _, kid := range n.kids {
			save := p.snapshot()
			if j, ok := p.seq(kid, i); ok {
				if end, ok := p.seq(rest, j); ok {
					return end, true
				}
			}
			p.restore(save)
		}
		return 0, false
	case opAny:
		// A part that is not there is no error of its own.
		far, why, what, other := p.far, p.why, p.what, p.other
		used := make([]bool, len(n.kids))
		j := i
		for progress := true; progress; {
			progress = false
			for k, kid := range n.kids {
				if used[k] {
					continue
				}
				save := p.snapshot()
				if e, ok := p.seq(kid, j); ok && e > j {
					used[k], j, progress = true, e, true
					break
				}
				p.restore(save)
			}
		}
		p.far, p.why, p.what, p.other = far, why, what, other
		return p.seq(rest, j)
	case opList, opPlugin:
		if i >= len(p.toks) || p.toks[i].text != "(" || p.toks[i].kind != tokPunct {
			p.note(i, "want (", "")
			return 0, false
		}
		save := p.snapshot()
		if j, ok := p.list(n, i+1); ok {
			if end, ok := p.seq(rest, j); ok {
				return end, true
			}
		}
		p.restore(save)
		return 0, false
	}
	return 0, false
}

// value reads one item's value (after its keyword when the node has one).
func (p *parser) value(n tmpl, i int) (int, bool) {
	it := p.d.items[n.item]
	if n.lit != "" {
		if i >= len(p.toks) || p.toks[i].kind != tokWord || p.toks[i].text != n.lit {
			p.note(i, "want ", n.lit)
			return 0, false
		}
		i++
		if it.kind == kindFlag || it.kind == kindBoolean && it.name == n.lit {
			p.set(n.item, cmdValue{set: true, b: true}, p.toks[i-1].off)
			return i, true
		}
	}
	if i >= len(p.toks) {
		p.note(i, "want ", it.name)
		return 0, false
	}
	v, ok := p.scalar(it, p.toks[i], false)
	if !ok {
		p.note(i, "want ", it.name)
		return 0, false
	}
	p.set(n.item, v, p.toks[i].off)
	return i + 1, true
}

// scalar reads a token as a value of item's kind. In a parenthesized
// list (generic_option) a value is an identifier (IDENT, quoted or not), a
// string constant or digits, whatever its kind, and the server reads its
// text; elsewhere the grammar takes one token kind only: SCONST for a
// string, UCONST for a number, RECPTR for an LSN.
func (p *parser) scalar(it itemDesc, t token, list bool) (cmdValue, bool) {
	integer := t.kind == tokNumber // UCONST: an Integer node in a list
	if list && (t.kind == tokWord || t.kind == tokQIdent || t.kind == tokNumber) {
		if t.kind == tokWord {
			t.text = downcase(t.text)
		}
		t.kind = tokString
	}
	switch it.kind {
	case kindIdentifier:
		switch t.kind {
		case tokQIdent:
			return cmdValue{set: true, s: t.text}, true
		case tokWord:
			return cmdValue{set: true, s: downcase(t.text)}, true
		}
	case kindString, kindKeyword:
		if t.kind == tokString {
			// A value in another case is the one of the set, unless the
			// server compares as written (SNAPSHOT: strcmp); then it stays
			// as it is, and rendering refuses it as no value of the set.
			s := t.text
			if b, ok := parseAnyBool(s); ok && it.boolean {
				s = "no"
				if b {
					s = "yes"
				}
			}
			if it.kind == kindKeyword && !it.exact {
				for _, v := range it.values {
					if strings.EqualFold(v, s) {
						s = v
					}
				}
			}
			return cmdValue{set: true, s: s}, true
		}
	case kindInteger, kindTimeline:
		if t.kind != tokNumber && (!list || t.kind != tokString) {
			break
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(t.text), 10, 64); err == nil {
			return cmdValue{set: true, n: n}, true
		}
	case kindLSN:
		if l, ok := parseLSN(t.text); ok && (t.kind == tokLSN || list && t.kind == tokString) {
			return cmdValue{set: true, n: int64(l)}, true
		}
	case kindBoolean:
		if integer && (t.text == "0" || t.text == "1") && list {
			return cmdValue{set: true, b: t.text == "1"}, true
		}
		if b, ok := parseBool(t.text); ok && list && !integer {
			return cmdValue{set: true, b: b}, true
		}
	}
	return cmdValue{}, false
}

// downcase folds an unquoted word as the scanner does
// (downcase_truncate_identifier): ASCII letters only, so a multibyte
// character stays as written.
func downcase(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) < 0 {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// IsCommand reports whether text starts with the name of a replication
// command of the generated majors, in any case: whether ParseCommand may
// take it, found without allocating (a proxy asks it of every Query).
func IsCommand(text string) bool {
	_, w := firstWord(text)
	return isCommandWord(w)
}

// firstWord is text's first word and where it starts.
func firstWord(text string) (int, string) {
	start := 0
	for start < len(text) && strings.IndexByte(" \t\n\r\f\v", text[start]) >= 0 {
		start++
	}
	return start, text[start:wordEnd(text, start)]
}

// isCommandWord reports whether w names a command in any case. The names
// are ASCII, so an ASCII word of another length names none: most words
// (SELECT) are refused by their length, without strings.EqualFold, which
// a non-ASCII word still goes through (its K and ſ fold to ASCII letters).
func isCommandWord(w string) bool {
	ascii := true
	for i := range len(w) {
		ascii = ascii && w[i] < utf8.RuneSelf
	}
	if ascii && (len(w) >= 64 || commandLengths&(1<<len(w)) == 0) {
		return false
	}
	for _, d := range commandDescs {
		if (len(d.name) == len(w) || !ascii) && strings.EqualFold(d.name, w) {
			return true
		}
	}
	return false
}

// commandLengths has bit n set when a command's name is n bytes long (all
// are shorter than 64).
var commandLengths = func() (set uint64) {
	for _, d := range commandDescs {
		set |= 1 << len(d.name)
	}
	return set
}()

// parseBool reads a string value as the server's defGetBoolean does:
// true, false, on or off in any case, and nothing else (the integers 0
// and 1 it also takes are tokens of their own, never strings).
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "on":
		return true, true
	case "false", "off":
		return false, true
	}
	return false, false
}

// list reads the options of a parenthesized list up to its ')'.
func (p *parser) list(n tmpl, i int) (int, bool) {
	for first := true; ; first = false {
		if i < len(p.toks) && p.toks[i].kind == tokPunct && p.toks[i].text == ")" && !first {
			return i + 1, true
		}
		if !first {
			if i >= len(p.toks) || p.toks[i].kind != tokPunct || p.toks[i].text != "," {
				p.note(i, "want , or )", "")
				return 0, false
			}
			i++
		}
		if i >= len(p.toks) {
			p.note(i, "want an option", "")
			return 0, false
		}
		j, ok := p.listOption(n, i)
		if !ok {
			return 0, false
		}
		i = j
	}
}

// listOption reads one NAME [value] of a list, or one option_name
// [ option_value ] of a plugin's.
func (p *parser) listOption(n tmpl, i int) (int, bool) {
	t := p.toks[i]
	if n.op == opPlugin {
		if t.kind != tokWord && t.kind != tokQIdent {
			p.note(i, "want an option name", "")
			return 0, false
		}
		o := PluginOption{Name: t.text}
		if t.kind == tokWord {
			o.Name = downcase(t.text)
		}
		// plugin_opt_arg is a string constant or nothing.
		j := i + 1
		if j < len(p.toks) && p.toks[j].kind == tokString {
			o.Value, o.HasValue = p.toks[j].text, true
			j++
		}
		v := p.vals[n.item]
		if !v.set {
			p.set(n.item, v, t.off)
		}
		v.set = true
		v.opts = append(v.opts, o)
		p.vals[n.item] = v
		return j, true
	}
	for _, idx := range n.items {
		// ident_or_keyword: a keyword as written or any word downcased; a
		// quoted name is compared as it is with the lower-case names the
		// server looks for.
		it := p.d.items[idx]
		if !(t.kind == tokWord && strings.EqualFold(t.text, it.name) || t.kind == tokQIdent && t.text == downcase(it.name)) {
			continue
		}
		if p.vals[idx].set {
			p.note(i, "option "+it.name, " given twice")
			return 0, false
		}
		j := i + 1
		bare := j >= len(p.toks) || p.toks[j].kind == tokPunct
		switch {
		case bare && (it.kind == kindFlag || it.kind == kindBoolean):
			p.set(idx, cmdValue{set: true, b: true}, t.off)
			return j, true
		case bare || it.kind == kindFlag:
			p.note(j, "want the value of ", it.name)
			return 0, false
		}
		v, ok := p.scalar(it, p.toks[j], true)
		if !ok {
			p.note(j, "want the value of ", it.name)
			return 0, false
		}
		p.set(idx, v, t.off)
		return j + 1, true
	}
	// An option the command has in other majors only says which.
	for k := range p.d.items {
		if it := &p.d.items[k]; t.kind == tokWord && strings.EqualFold(t.text, it.name) && !it.majors.Has(p.major) {
			p.note(i, fmt.Sprintf("not in PostgreSQL %d", p.major), "")
			p.other = it
			return 0, false
		}
	}
	p.note(i, "unknown option ", t.text)
	return 0, false
}

func (p *parser) set(i int, v cmdValue, off int) {
	v.off = off
	p.vals[i] = v
}

// snapshot saves the values on p's stack of saved values, where restore
// finds them: saves are restored last first, as the grammar's nodes nest,
// so one slice holds them all. A value's opts are only ever appended to,
// so the saved slice of them still holds what it held.
func (p *parser) snapshot() int {
	p.saved = append(p.saved, p.vals...)
	return len(p.saved) - len(p.vals)
}

func (p *parser) restore(at int) {
	copy(p.vals, p.saved[at:])
	p.saved = p.saved[:at]
}

// The generated values and setValues read and write a command's fields
// with these, by the Go type of its items' kinds: a flag a bool, a
// boolean a *bool, an integer an *int64, an LSN an LSN, a timeline a
// uint32, plugin options a []PluginOption, any other kind a string. Unset
// is the zero value (an LSN is always set: 0/0 is a position).

func flagValue(b bool) cmdValue                { return cmdValue{set: b, b: b} }
func stringValue(s string) cmdValue            { return cmdValue{set: s != "", s: s} }
func lsnValue(l LSN) cmdValue                  { return cmdValue{set: true, n: int64(l)} }
func timelineValue(t uint32) cmdValue          { return cmdValue{set: t != 0, n: int64(t)} }
func pluginValue(opts []PluginOption) cmdValue { return cmdValue{set: len(opts) > 0, opts: opts} }

func boolValue(b *bool) cmdValue {
	if b == nil {
		return cmdValue{}
	}
	return cmdValue{set: true, b: *b}
}

func intValue(n *int64) cmdValue {
	if n == nil {
		return cmdValue{}
	}
	return cmdValue{set: true, n: *n}
}

func (v cmdValue) boolPtr() *bool {
	if !v.set {
		return nil
	}
	b := v.b
	return &b
}

func (v cmdValue) intPtr() *int64 {
	if !v.set {
		return nil
	}
	n := v.n
	return &n
}

// ErrResult marks a result set whose columns or values are not what the
// manual documents.
var ErrResult = errors.New("replication command result")

// ResultError names the command, the column and, for a value, the row.
type ResultError struct {
	Command string
	Column  string
	// Row is the 0-based row, -1 for the row description.
	Row    int
	Reason string
}

func (e *ResultError) Error() string {
	if e.Row < 0 {
		return fmt.Sprintf("%s result: column %s: %s", e.Command, e.Column, e.Reason)
	}
	return fmt.Sprintf("%s result: row %d column %s: %s", e.Command, e.Row, e.Column, e.Reason)
}

func (e *ResultError) Unwrap() error { return ErrResult }

// resultReader reads one result set's DataRows by column name.
type resultReader struct {
	command string
	names   []string
	at      []int // the position of each column in the rows
	row     *DataRow
	k       int
	err     error
}

// newResultReader checks a RowDescription against the documented columns:
// the same names, each once, in any order, and the row count.
func newResultReader(command string, desc *RowDescription, names []string, many bool, rows int) (*resultReader, error) {
	r := &resultReader{command: command, names: names, at: make([]int, len(names))}
	if desc == nil {
		return nil, &ResultError{Command: command, Column: names[0], Row: -1, Reason: "no RowDescription"}
	}
	seen := map[string]bool{}
	for i, f := range desc.Fields {
		k := -1
		for j, n := range names {
			if n == f.Name {
				k = j
			}
		}
		if k < 0 || seen[f.Name] {
			return nil, &ResultError{Command: command, Column: f.Name, Row: -1, Reason: fmt.Sprintf("not a column of the result (want %s)", strings.Join(names, ", "))}
		}
		seen[f.Name] = true
		r.at[k] = i
	}
	for _, n := range names {
		if !seen[n] {
			return nil, &ResultError{Command: command, Column: n, Row: -1, Reason: "missing from the RowDescription"}
		}
	}
	if !many && rows != 1 {
		return nil, &ResultError{Command: command, Column: names[0], Row: -1, Reason: fmt.Sprintf("%d rows, the result set has one", rows)}
	}
	return r, nil
}

func (r *resultReader) next(k int, row *DataRow) {
	r.k, r.row = k, row
	if r.err == nil && len(row.Values) != len(r.names) {
		r.err = &ResultError{Command: r.command, Column: r.names[0], Row: k, Reason: fmt.Sprintf("%d values, want %d", len(row.Values), len(r.names))}
	}
}

// raw is column i's text; ok false for NULL, which only a nullable column takes.
func (r *resultReader) raw(i int, null bool) (string, bool) {
	if r.err != nil {
		return "", false
	}
	v := r.row.Values[r.at[i]]
	if v == nil {
		if !null {
			r.fail(i, "NULL in a column that is never NULL")
		}
		return "", false
	}
	return string(v), true
}

func (r *resultReader) fail(i int, reason string) {
	if r.err == nil {
		r.err = &ResultError{Command: r.command, Column: r.names[i], Row: r.k, Reason: reason}
	}
}

// set stores v in dst, a T or a *T.
func setColumn[T any](dst any, v T) {
	switch d := dst.(type) {
	case *T:
		*d = v
	case **T:
		*d = &v
	}
}

func (r *resultReader) columnString(i int, null bool, dst any) {
	if s, ok := r.raw(i, null); ok {
		setColumn(dst, s)
	}
}

func (r *resultReader) columnInt64(i int, null bool, dst any) {
	if s, ok := r.raw(i, null); ok {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			r.fail(i, fmt.Sprintf("%q is not an integer", s))
			return
		}
		setColumn(dst, n)
	}
}

func (r *resultReader) columnUint32(i int, null bool, dst any) {
	if s, ok := r.raw(i, null); ok {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			r.fail(i, fmt.Sprintf("%q is not an OID", s))
			return
		}
		setColumn(dst, uint32(n))
	}
}

func (r *resultReader) columnLSN(i int, null bool, dst any) {
	if s, ok := r.raw(i, null); ok {
		l, err := ParseLSN(s)
		if err != nil {
			r.fail(i, err.Error())
			return
		}
		setColumn(dst, l)
	}
}

func (r *resultReader) columnBytes(i int, null bool, dst any) {
	if r.err != nil {
		return
	}
	if v := r.row.Values[r.at[i]]; v != nil {
		*dst.(*[]byte) = append([]byte(nil), v...)
	}
}
