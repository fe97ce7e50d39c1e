package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/pgspec/pgspec/spec"
)

// PageKind says what one of the corpus pages holds and how to read it.
type PageKind struct {
	File string
	// Section is the id of the page's div.sect1: a page from another chapter lacks it.
	Section string
	// Layer of its messages; empty for the two term pages and the chapter pages.
	Layer string
	// Since is the first major that has the page; 0 for every major.
	Since int
}

// Pages are the five protocol pages of every major, in the order their
// messages appear in the spec.
var Pages = []PageKind{
	{"protocol-message-formats.html", "PROTOCOL-MESSAGE-FORMATS", spec.LayerFrontendBackend, 0},
	{"protocol-logicalrep-message-formats.html", "PROTOCOL-LOGICALREP-MESSAGE-FORMATS", spec.LayerLogicalReplication, 0},
	{"protocol-replication.html", "PROTOCOL-REPLICATION", spec.LayerStreamingReplication, 0},
	{"protocol-message-types.html", "PROTOCOL-MESSAGE-TYPES", "", 0},
	{"protocol-error-fields.html", "PROTOCOL-ERROR-FIELDS", "", 0},
}

// The protocol chapter's other pages, and the logical decoding chapter's
// page that documents pgoutput's parameters from 19 on (10–18 document them
// on PageLogicalReplication). Corpus.Page opens them.
var (
	PageOverview           = PageKind{File: "protocol-overview.html", Section: "PROTOCOL-OVERVIEW"}
	PageFlow               = PageKind{File: "protocol-flow.html", Section: "PROTOCOL-FLOW"}
	PageSASL               = PageKind{File: "sasl-authentication.html", Section: "SASL-AUTHENTICATION"}
	PageLogicalReplication = PageKind{File: "protocol-logical-replication.html", Section: "PROTOCOL-LOGICAL-REPLICATION"}
	PageChanges            = PageKind{File: "protocol-changes.html", Section: "PROTOCOL-CHANGES"}
	PageOutputPlugin       = PageKind{File: "logicaldecoding-output-plugin.html", Section: "LOGICALDECODING-OUTPUT-PLUGIN", Since: 19}
)

// ChapterPages are the pages beside the five, in the order their sources
// appear in the spec.
var ChapterPages = []PageKind{PageOverview, PageFlow, PageSASL, PageLogicalReplication, PageChanges, PageOutputPlugin}

// PagesOf is every page a corpus holds for major (0: a devel snapshot whose
// major is not known yet, which has them all): the five, then the chapter's.
func PagesOf(major int) []PageKind {
	out := slices.Clone(Pages)
	for _, k := range ChapterPages {
		if major == 0 || major >= k.Since {
			out = append(out, k)
		}
	}
	return out
}

// Error names where extraction failed: file, message and 1-based row.
type Error struct {
	File    string
	Message string
	Row     int
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Message != "" {
		fmt.Fprintf(&b, ": message %q", e.Message)
	}
	if e.Row > 0 {
		fmt.Fprintf(&b, ": row %d", e.Row)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoDescription marks a field term whose description is empty.
var ErrNoDescription = errors.New("field has no description")

// Page is what one page yields before the languages are aligned.
type Page struct {
	Release  string
	Messages []spec.Message // Text.En holds the page's text whatever its language
	// Intro is the page's opening paragraphs, before its first list.
	Intro []string
	Terms []spec.Term
	// Commands are the replication page's commands, text in En as for Messages.
	Commands []spec.Command
}

var (
	releaseRE = regexp.MustCompile(`^PostgreSQL (\S+) (Documentation|手册)$`)
	// messageTermRE splits "Bind (F)" and "主要存活消息 (B)" into name and direction.
	messageTermRE = regexp.MustCompile(`^(.*\S)\s*[(（](F|B|F & B)[)）]$`)
)

// Identify says which page data is: the release its home link names
// ("18.6", "19rc1", "20devel") and its language ("en" for Documentation,
// "zh" for 手册). A page of another chapter, or without a release label, is
// an error naming file, and so is one that is not valid UTF-8.
func Identify(data []byte, file string, kind PageKind) (release, lang string, err error) {
	if err := checkUTF8(data); err != nil {
		return "", "", &Error{File: file, Err: err}
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(data))
	if err != nil {
		return "", "", &Error{File: file, Err: err}
	}
	return identify(doc, file, kind)
}

func identify(doc *goquery.Document, file string, kind PageKind) (release, lang string, err error) {
	if doc.Find("div.sect1#"+kind.Section).Length() == 0 {
		return "", "", &Error{File: file, Err: fmt.Errorf("no section %s: not the %s page of the protocol chapter", kind.Section, kind.File)}
	}
	home, _ := doc.Find(`a[accesskey="h"]`).Attr("title")
	m := releaseRE.FindStringSubmatch(home)
	if m == nil {
		return "", "", &Error{File: file, Err: fmt.Errorf("no release label: home link title is %q", home)}
	}
	lang = "en"
	if m[2] == "手册" {
		lang = "zh"
	}
	return m[1], lang, nil
}

var releaseMajorRE = regexp.MustCompile(`^(\d+)(?:\.\d+)*(?:devel|beta\d+|rc\d+)?$`)

// ReleaseMajor is the major of a release label: 18 for "18.6", 19 for
// "19rc1", 20 for "20devel"; false when the label is not one.
func ReleaseMajor(release string) (int, bool) {
	m := releaseMajorRE.FindStringSubmatch(release)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// ParsePage reads one protocol page. Descriptions and prose land in the En
// side of spec.Text whatever the page's language; Align moves Chinese over.
func ParsePage(r io.Reader, file string, kind PageKind) (*Page, error) {
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		return nil, &Error{File: file, Err: err}
	}
	release, _, err := identify(doc, file, kind)
	if err != nil {
		return nil, err
	}
	return parseDoc(doc, release, file, kind)
}

// parseDoc reads the messages or terms of an identified page.
func parseDoc(doc *goquery.Document, release, file string, kind PageKind) (*Page, error) {
	sect := doc.Find("div.sect1#" + kind.Section)
	p := &Page{Release: release}
	var errs []error
	fail := func(msg string, row int, err error) {
		errs = append(errs, &Error{File: file, Message: msg, Row: row, Err: err})
	}
	if kind.Layer == "" {
		sect.Find("dl.variablelist").First().ChildrenFiltered("dt").Each(func(_ int, dt *goquery.Selection) {
			term := termText(dt)
			desc := clean(dt.Next().Text())
			if !dt.Next().Is("dd") || desc == "" {
				fail("", 0, fmt.Errorf("term %q has no description", term))
				return
			}
			p.Terms = append(p.Terms, spec.Term{Term: term, Description: spec.Text{En: desc}})
		})
		if len(p.Terms) == 0 {
			fail("", 0, fmt.Errorf("no terms found"))
		}
		return p, joinErrs(errs)
	}
	sect.Children().EachWithBreak(func(_ int, el *goquery.Selection) bool {
		if el.Is("div.variablelist") {
			return false
		}
		if t := clean(el.Text()); el.Is("p") && t != "" {
			p.Intro = append(p.Intro, t)
		}
		return true
	})
	sect.Find("dt").Each(func(_ int, dt *goquery.Selection) {
		m, ok := messageEntry(dt, kind)
		if !ok {
			return
		}
		m.Page = kind.File
		m.Anchor = anchor(dt, kind.Section)
		dd := dt.Next()
		if !dd.Is("dd") {
			fail(m.Name, 0, fmt.Errorf("message term has no description"))
			return
		}
		m.Lead = pageLead(dt)
		// Field tables are the ones directly inside the entry (term lists
		// inside a row's description belong to that row); one wrapped in
		// prose would be read as a paragraph.
		if nested := dd.ChildrenFiltered(":not(div.variablelist)").Find("div.variablelist").Length(); nested > 0 {
			fail(m.Name, 0, fmt.Errorf("%d field tables nested in prose: rows dropped", nested))
			return
		}
		if !readBody(dd, &m, fail) {
			return
		}
		if len(m.Blocks) == 0 {
			fail(m.Name, 0, fmt.Errorf("message has no field rows"))
			return
		}
		p.Messages = append(p.Messages, m)
	})
	if len(p.Messages) == 0 {
		fail("", 0, fmt.Errorf("no messages found"))
	}
	if kind.Layer == spec.LayerStreamingReplication {
		cmds, err := readCommands(doc, file)
		if err != nil {
			errs = append(errs, err)
		}
		p.Commands = cmds
	}
	return p, joinErrs(errs)
}

// pageLead returns the paragraphs standing between the message list that
// dt opens and the list before it, or nil. The paragraphs before the first
// list are the page's introduction, not a lead.
func pageLead(dt *goquery.Selection) *spec.Prose {
	if dt.PrevAll().Length() > 0 || dt.ParentsFiltered("dd").Length() > 0 {
		return nil
	}
	list := dt.Parent().Parent()
	if !list.Is("div.variablelist") || list.PrevAll().Filter("div.variablelist").Length() == 0 {
		return nil
	}
	var paras []string
	list.PrevUntil("div.variablelist").Each(func(_ int, p *goquery.Selection) {
		if t := clean(p.Text()); t != "" {
			paras = append([]string{t}, paras...)
		}
	})
	if len(paras) == 0 {
		return nil
	}
	return &spec.Prose{Text: spec.Text{En: strings.Join(paras, "\n\n")}}
}

// messageEntry decides whether dt starts a message on a page of the kind.
// Frontend/backend messages are the top-level entries with a direction; on
// the logical replication page every top-level entry is a message or part;
// on the replication page sub-messages nest inside commands, so any entry
// with a direction whose first field is a tag byte counts.
func messageEntry(dt *goquery.Selection, kind PageKind) (spec.Message, bool) {
	term := termText(dt)
	topLevel := dt.ParentsFiltered("dd").Length() == 0
	m := spec.Message{Layer: kind.Layer, Name: term}
	dm := messageTermRE.FindStringSubmatch(term)
	if dm != nil {
		m.Name, m.Direction = dm[1], dm[2]
	}
	switch kind.Layer {
	case spec.LayerFrontendBackend:
		return m, topLevel
	case spec.LayerLogicalReplication:
		return m, topLevel // annotate marks the message parts
	default:
		if dm == nil {
			return m, false
		}
		first := dt.Next().ChildrenFiltered("div.variablelist").First().Find("dt").First()
		t, err := ParseFormat(termText(first))
		if err != nil || t.Tag == "" {
			return m, false
		}
		if cmd := dt.ParentsFiltered("dd").First().Prev(); cmd.Is("dt") {
			m.Context, _, _ = strings.Cut(termText(cmd), " ")
		}
		return m, true
	}
}

// readBody reads a message's description: its field tables in order, each
// with the paragraph(s) before it as lead, and paragraphs after the last
// table as notes. It reports false when a table has no rows or a row's
// format could not be parsed: later steps pair messages by their first row.
func readBody(dd *goquery.Selection, m *spec.Message, fail func(string, int, error)) bool {
	var pending []string
	ok := true
	row := 0
	dd.Children().Each(func(_ int, c *goquery.Selection) {
		if !c.Is("div.variablelist") {
			if t := clean(c.Text()); t != "" {
				pending = append(pending, t)
			}
			return
		}
		b := spec.Block{}
		if len(pending) > 0 {
			b.Lead = &spec.Prose{Text: spec.Text{En: strings.Join(pending, "\n\n")}}
			pending = nil
		}
		dts := c.ChildrenFiltered("dl").ChildrenFiltered("dt")
		if dts.Length() == 0 {
			fail(m.Name, 0, fmt.Errorf("field table %d has no rows", len(m.Blocks)+1))
			ok = false
			return
		}
		dts.Each(func(_ int, dt *goquery.Selection) {
			row++
			format := termText(dt)
			t, err := ParseFormat(format)
			if err != nil {
				fail(m.Name, row, err)
				ok = false
				return
			}
			desc := ""
			if dt.Next().Is("dd") {
				desc = clean(dt.Next().Text())
			}
			if desc == "" {
				// Kept: a translation may leave a row empty, which a
				// correction can excuse; the caller decides.
				fail(m.Name, row, fmt.Errorf("field %q: %w", format, ErrNoDescription))
			}
			b.Rows = append(b.Rows, spec.Row{Format: format, Type: t, Description: spec.Text{En: desc}})
		})
		m.Blocks = append(m.Blocks, b)
	})
	for _, t := range pending {
		m.Notes = append(m.Notes, spec.Prose{Text: spec.Text{En: t}})
	}
	return ok
}

// anchor is the id of the entry's dt or, where the page gives it none, of
// the nearest enclosing entry (the command a replication sub-message belongs
// to), else of the section.
func anchor(dt *goquery.Selection, sectID string) string {
	for e := dt; e.Length() > 0; e = e.ParentsFiltered("dd").First().Prev() {
		if id, ok := e.Attr("id"); ok && e.Is("dt") {
			return id
		}
	}
	return sectID
}

// termText is a dt's term as printed, without the "#" self-link.
func termText(dt *goquery.Selection) string {
	if t := dt.Find("span.term").First(); t.Length() > 0 {
		return clean(t.Text())
	}
	return clean(dt.Text())
}

// clean folds runs of white space into one space and trims.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// joinErrs gathers errs into one *Errors, lifting the lists of nested ones
// (flat already, as joinErrs built them) so each problem prints on its own
// line; nil when there are none.
func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	var flat []error
	for _, err := range errs {
		if many, ok := err.(*Errors); ok {
			flat = append(flat, many.List...)
			continue
		}
		flat = append(flat, err)
	}
	return &Errors{List: flat}
}

// Errors is every problem found, so one run reports them all.
type Errors struct{ List []error }

func (e *Errors) Error() string {
	lines := make([]string, len(e.List))
	for i, err := range e.List {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

func (e *Errors) Unwrap() []error { return e.List }
