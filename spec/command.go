package spec

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// LayerCommands is the replication commands of protocol-replication.html:
// strings sent in a Query on a replication connection, not wire messages.
const LayerCommands = "commands"

// Command syntaxes: how a command's options are written.
const (
	// SyntaxList is the parenthesized, comma-separated option list of 15 and
	// later: BASE_BACKUP ( LABEL 'x', PROGRESS ).
	SyntaxList = "list"
	// SyntaxKeyword is the older form: options as bare keywords after the
	// command, BASE_BACKUP LABEL 'x' PROGRESS.
	SyntaxKeyword = "keyword"
	// SyntaxNone: the command takes no options (IDENTIFY_SYSTEM, SHOW name).
	SyntaxNone = "none"
)

// Value kinds of a command's parameter or option, read from its term.
const (
	ValueFlag       = "flag"       // a bare keyword: present or not (TEMPORARY, NOWAIT)
	ValueBoolean    = "boolean"    // KEYWORD [ boolean ]
	ValueKeyword    = "keyword"    // one of Values: KEYWORD { 'a' | 'b' } or a bare set
	ValueString     = "string"     // a quoted string literal: LABEL 'label'
	ValueInteger    = "integer"    // MAX_RATE rate
	ValueLSN        = "lsn"        // XXX/XXX
	ValueTimeline   = "timeline"   // TIMELINE tli
	ValueIdentifier = "identifier" // slot_name, output_plugin, a parameter name
)

// Command is one entry of the replication page's command list as one major
// documents it.
type Command struct {
	// Slug is the command's identity across majors: the kebab-case name,
	// with -physical/-logical for START_REPLICATION's two forms and -legacy
	// for an older syntax a later major still documents "for compatibility".
	Slug string `json:"slug"`
	// Name is the command word: CREATE_REPLICATION_SLOT.
	Name   string `json:"name"`
	Anchor string `json:"anchor,omitempty"`
	// Synopsis is the entry's term as the English page prints it.
	Synopsis string `json:"synopsis"`
	// SynopsisZh is the Chinese page's term where it differs.
	SynopsisZh string `json:"synopsis_zh,omitempty"`
	// Syntax is SyntaxList, SyntaxKeyword or SyntaxNone.
	Syntax string `json:"syntax"`
	// Legacy marks the older syntax documented beside the current one.
	Legacy bool `json:"legacy,omitempty"`
	// Description is the paragraphs before the first list.
	Description Text `json:"description"`
	// Parameters are the command's positional parts (slot_name, TEMPORARY).
	Parameters []CommandItem `json:"parameters,omitempty"`
	// Options are what the option list (or, in the keyword syntax, the
	// keywords after the command) may carry.
	Options []CommandItem `json:"options,omitempty"`
	// Results are the ordinary result sets the server answers with, in order.
	Results []ResultSet `json:"results,omitempty"`
	// Follows names the sub-protocol the command starts: CopyBothResponse,
	// CopyOutResponse, CopyInResponse.
	Follows []string `json:"follows,omitempty"`
}

// CommandItem is a parameter or an option of a command.
type CommandItem struct {
	// Term is the list entry as printed: "SNAPSHOT { 'export' | 'use' | 'nothing' }".
	Term string `json:"term"`
	// Name is the keyword (TWO_PHASE) or the placeholder (slot_name).
	Name string `json:"name"`
	// Kind is one of the Value* kinds.
	Kind string `json:"kind"`
	// Values are the allowed values of a keyword kind, as written.
	Values []string `json:"values,omitempty"`
	// Default is the value the manual says applies when the item is left out.
	Default     string `json:"default,omitempty"`
	Description Text   `json:"description"`
}

// Result set row counts.
const (
	RowsOne  = "one"
	RowsMany = "many"
)

// ResultSet is one ordinary result set of a command.
type ResultSet struct {
	// Lead is the paragraph that introduces it.
	Lead Text `json:"lead"`
	// Rows is RowsOne or RowsMany.
	Rows    string   `json:"rows"`
	Columns []Column `json:"columns"`
	// Prose marks a result set the manual describes only in a sentence
	// ("a single row with two columns. The first column contains …"): its
	// columns have no name, and a type only where the sentence gives one.
	Prose bool `json:"prose,omitempty"`
}

// Column is a result column: "systemid (text)".
type Column struct {
	// Name and Type are "" where a prose result set does not give them.
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description Text   `json:"description"`
}

// PluginOption is one of pgoutput's parameters, given in
// START_REPLICATION's option list.
type PluginOption struct {
	Name string `json:"name"`
	// Type is the option's type where the manual prints one (19: "integer").
	Type        string `json:"type,omitempty"`
	Description Text   `json:"description"`
	Page        string `json:"page"`
	Anchor      string `json:"anchor,omitempty"`
}

// FlowList is one list of messages the flow chapter gives for a phase of
// the conversation ("The possible response messages from the backend
// are:"), as one major's page prints it.
type FlowList struct {
	Page string `json:"page"`
	// Section is the id of the section holding the list; where a page gives
	// a made-up id (id-1.2.2.7.3), the one later majors give it, from the
	// title (PROTOCOL-FLOW-START-UP).
	Section string `json:"section"`
	// Title is the section's title, without its number: "Start-up".
	Title Text `json:"title"`
	// Index is the list's 1-based place among the section's lists.
	Index int `json:"index"`
	// Lead is the paragraph before the list.
	Lead  Text       `json:"lead"`
	Items []FlowItem `json:"items"`
}

// Key names the list across majors: "protocol-flow.html#PROTOCOL-FLOW-START-UP/2".
func (l *FlowList) Key() string { return FlowListKey(l.Page, l.Section, l.Index) }

// FlowListKey is the Key of the index-th list of a page's section.
func FlowListKey(page, section string, index int) string {
	return page + "#" + section + "/" + strconv.Itoa(index)
}

// DirectTLS is what protocol-flow.html says of direct TLS: "The server
// will recognize connections which immediately begin SSL negotiation
// without any previous SSLRequest packets".
type DirectTLS struct {
	Page string `json:"page"`
	// Section is the id of the section holding the paragraph.
	Section string `json:"section"`
	// ALPN is the protocol name a client must offer ("postgresql").
	ALPN string `json:"alpn"`
	// Text is the paragraph.
	Text Text `json:"text"`
}

// FlowItem is one message a flow list names.
type FlowItem struct {
	Slug string `json:"slug"`
	// Name is the English term; NameZh the Chinese one where it differs.
	Name        string `json:"name"`
	NameZh      string `json:"name_zh,omitempty"`
	Description Text   `json:"description"`
}

// FindCommand returns the command with slug, or nil.
func (s *Spec) FindCommand(slug string) *Command {
	for i := range s.Commands {
		if s.Commands[i].Slug == slug {
			return &s.Commands[i]
		}
	}
	return nil
}

// Place is where the manual prints the command:
// "protocol-replication.html#PROTOCOL-REPLICATION-BASE-BACKUP", the page
// alone where the major gives the entry no id.
func (c *Command) Place() string {
	if c.Anchor == "" {
		return "protocol-replication.html"
	}
	return "protocol-replication.html#" + c.Anchor
}

// WriteCommand prints a command the way the manual presents it: synopsis,
// description, its parameters and options with kind, values and default,
// each result set's columns, and what follows.
func WriteCommand(w io.Writer, s *Spec, c *Command, lang string) {
	release, synopsis := s.Release, c.Synopsis
	if lang == "zh" {
		release = s.ReleaseZh
		if c.SynopsisZh != "" {
			synopsis = c.SynopsisZh
		}
	}
	untranslated := "(no translation)"
	fmt.Fprintf(w, "%s — PostgreSQL %d (%s), %s\n", synopsis, s.Major, release, c.Place())
	fmt.Fprintf(w, "syntax: %s\n", c.Syntax)
	if d := c.Description.Pick(lang); d != "" || lang == "zh" {
		fmt.Fprintf(w, "\n    %s\n", orDefault(d, untranslated))
	}
	for _, group := range []struct {
		title string
		items []CommandItem
	}{{"parameters", c.Parameters}, {"options", c.Options}} {
		if len(group.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", group.title)
		for _, it := range group.items {
			kind := it.Kind
			if len(it.Values) > 0 {
				kind += " " + strings.Join(it.Values, "|")
			}
			if it.Default != "" {
				kind += ", default " + it.Default
			}
			fmt.Fprintf(w, "  %s  (%s)  %s\n", it.Term, kind, orDefault(it.Description.Pick(lang), "(not described)"))
		}
	}
	for i, r := range c.Results {
		fmt.Fprintf(w, "\nresult set %d (%s row%s):\n", i+1, r.Rows, map[bool]string{true: "s"}[r.Rows == RowsMany])
		if r.Prose {
			fmt.Fprintf(w, "  (described in prose: %s)\n", orDefault(r.Lead.Pick(lang), untranslated))
		}
		for i, col := range r.Columns {
			fmt.Fprintf(w, "  %s (%s)  %s\n", orDefault(col.Name, fmt.Sprintf("column %d", i+1)), orDefault(col.Type, "type not given"), orDefault(col.Description.Pick(lang), untranslated))
		}
	}
	if len(c.Follows) > 0 {
		fmt.Fprintf(w, "\nthen: %s\n", strings.Join(c.Follows, ", "))
	}
}
