package model

import (
	"fmt"
	"strconv"

	"github.com/pgspec/pgspec/spec"
)

// A message's layout in one major is built in phases, each in a file of its
// own: the rows and the groups their leads open, each row given its overlay
// entry (segment.go); the rows the codec derives, paired with what they
// describe (pair.go); items made of rows and groups (items.go), each checked
// for its op when it is made (check.go); what puts an item on the wire
// (cond.go); checks of the whole layout (finish.go). Once every message has
// its layouts, Build resolves their Go fields and shared structs across
// majors (union.go) and checks their sizes (size.go).

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
	rules *spec.Rules
	s     *spec.Spec
	m     *spec.Message
	ov    *spec.Overlay
	me    *spec.MessageEntry
	// msgs are the messages by slug, the parts items point at.
	msgs  map[string]*Message
	p     *problems
	d     *defaults
	where string
}

func buildLayout(s *spec.Spec, m *spec.Message, ov *spec.Overlay, me *spec.MessageEntry, msgs map[string]*Message, p *problems, d *defaults, used usage) *Layout {
	b := &builder{rules: ov.RuleTables(), s: s, m: m, ov: ov, me: me, msgs: msgs, p: p, d: d, where: fmt.Sprintf("pg%d %s", s.Major, m.Slug)}
	top := b.segment(used)
	b.matchEntries(top, used)
	b.frame(top)
	items := b.items(top, nil)
	b.finish(items)
	return &Layout{Items: items}
}

// atoi is the number s spells, 0 when it spells none.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// short is a row's description cut for a problem report.
func short(r *spec.Row) string {
	d := r.Description.En
	if len(d) > 60 {
		d = d[:60] + "…"
	}
	return d
}
