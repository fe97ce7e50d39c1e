// Package export is a side stage, spec/pgNN.json → pg.center records: it
// writes pgspec's spec as one JSON document per message slug and major in
// the shape of that site's records (spec/record.schema.json, the seed in
// ../shared/seeds), so the site can be fed from the spec, and internal/site
// renders its pages from them.
package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

// Export holds every message's versions in one language, built once;
// Record composes a major's record from them.
type Export struct {
	h     *matrix.History
	lang  matrix.Lang
	Items []Item // in the matrix's row order
	// data[slug][i] is the comparison data of slug in h.Specs[i], nil
	// when that major lacks it.
	data map[string][]*ComparisonData
	// commands are the slugs of the replication commands' items.
	commands []string
}

var slugRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// New builds the items of every slug of h in lang. A slug that could not
// be a file name is an error, since records are written to <slug>.json.
func New(h *matrix.History, lang matrix.Lang) (*Export, error) {
	e := &Export{h: h, lang: lang, data: map[string][]*ComparisonData{}}
	for _, row := range h.Rows {
		if !slugRE.MatchString(row.Slug) {
			return nil, fmt.Errorf("message %q: slug is not lower-case words joined by hyphens", row.Slug)
		}
		latest := row.Latest
		if err := covered(latest.Layer); err != nil {
			return nil, fmt.Errorf("message %q: %w", row.Slug, err)
		}
		it := Item{
			Slug: row.Slug, Name: displayName(latest, matrix.English),
			Category: matrix.LayerName(latest.Layer, lang), Aliases: latest.Aliases,
			Versions: map[string]Version{},
		}
		if it.Aliases == nil {
			it.Aliases = []string{latest.Name}
		}
		data := make([]*ComparisonData, len(h.Specs))
		for i, s := range h.Specs {
			if m := s.Find(row.Slug); m != nil {
				v := version(s, m, lang)
				it.Versions[strconv.Itoa(s.Major)] = v
				data[i] = &v.ComparisonData
			}
		}
		js, err := spec.Marshal(it.Versions)
		if err != nil {
			return nil, err
		}
		it.ContentHash = sum(string(js))
		e.Items = append(e.Items, it)
		e.data[row.Slug] = data
	}
	// The replication commands are in the spec but not (yet) in the
	// matrix: their records are made from the commands themselves.
	for _, slug := range commandOrder(h.Specs) {
		if e.Item(slug) != nil {
			return nil, fmt.Errorf("command %q: a message has the same slug", slug)
		}
		if err := e.addCommand(slug); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// commandOrder lists the slugs of every major's commands, first seen first.
func commandOrder(specs []*spec.Spec) []string {
	var out []string
	for _, s := range specs {
		for _, c := range s.Commands {
			if !slices.Contains(out, c.Slug) {
				out = append(out, c.Slug)
			}
		}
	}
	return out
}

// addCommand adds the item of command slug.
func (e *Export) addCommand(slug string) error {
	if !slugRE.MatchString(slug) {
		return fmt.Errorf("command %q: slug is not lower-case words joined by hyphens", slug)
	}
	it := Item{Slug: slug, Category: vocab[e.lang].commands, Versions: map[string]Version{}}
	data := make([]*ComparisonData, len(e.h.Specs))
	for i, s := range e.h.Specs {
		m := e.find(i, slug)
		if m == nil {
			continue
		}
		it.Name = displayName(m, matrix.English)
		if !slices.Contains(it.Aliases, m.Name) {
			it.Aliases = append(it.Aliases, m.Name)
		}
		v := version(s, m, e.lang)
		it.Versions[strconv.Itoa(s.Major)] = v
		data[i] = &v.ComparisonData
	}
	js, err := spec.Marshal(it.Versions)
	if err != nil {
		return err
	}
	it.ContentHash = sum(string(js))
	e.Items = append(e.Items, it)
	e.data[slug] = data
	e.commands = append(e.commands, slug)
	return nil
}

// find is message or command slug as Specs[i] documents it, a command as
// the message version lays out (commandMessage); nil when it lacks it.
func (e *Export) find(i int, slug string) *spec.Message {
	if m := e.h.Message(slug, i); m != nil {
		return m
	}
	if c := e.h.Specs[i].FindCommand(slug); c != nil {
		return commandMessage(c)
	}
	return nil
}

// commandMessage lays a replication command out as a message: its
// parameters, then its options, as rows of a field table (the term as
// the format), and its description as the note after them.
func commandMessage(c *spec.Command) *spec.Message {
	m := &spec.Message{Slug: c.Slug, Name: c.Name, Layer: spec.LayerCommands, Page: commandsPage, Anchor: c.Anchor,
		Notes: []spec.Prose{{Text: c.Description}}}
	for _, items := range [][]spec.CommandItem{c.Parameters, c.Options} {
		var b spec.Block
		for _, it := range items {
			b.Rows = append(b.Rows, spec.Row{Format: it.Term, Description: it.Description})
		}
		m.Blocks = append(m.Blocks, b)
	}
	return m
}

// commandsPage is the page the replication commands are on.
const commandsPage = "protocol-replication.html"

// isCommand reports whether slug is one of the replication commands.
func (e *Export) isCommand(slug string) bool { return slices.Contains(e.commands, slug) }

// NameZh is the display name of slug as the Chinese manual of major
// prints it, or of the newest major before it with a translation (19 has
// none); the English name where no earlier Chinese manual has the message.
func (e *Export) NameZh(slug string, major int) string {
	var name *spec.Message
	for i, s := range e.h.Specs {
		if m := e.find(i, slug); m != nil && s.Major <= major && (name == nil || s.ReleaseZh != "") {
			name = m
		}
	}
	return displayName(name, matrix.Chinese)
}

// Majors lists the majors slug is documented in, ascending.
func (e *Export) Majors(slug string) []int {
	var out []int
	for i, d := range e.data[slug] {
		if d != nil {
			out = append(out, e.h.Specs[i].Major)
		}
	}
	return out
}

// Previous is the major before major in the corpus, 0 for the first.
func (e *Export) Previous(major int) int {
	i := e.Index(major)
	if i <= 0 {
		return 0
	}
	return e.h.Specs[i-1].Major
}

// Index is the position of major in the corpus, -1 when it is not there.
func (e *Export) Index(major int) int {
	return slices.IndexFunc(e.h.Specs, func(s *spec.Spec) bool { return s.Major == major })
}

// Record is item's record at major, compared against the major against
// (0: no comparison, the corpus's first major). Both must be majors of the
// corpus, and item must be documented in major.
func (e *Export) Record(it *Item, major, against int) (Record, error) {
	i, j := e.Index(major), e.Index(against)
	key := strconv.Itoa(major)
	v, ok := it.Versions[key]
	switch {
	case i < 0:
		return Record{}, fmt.Errorf("major %d is not in the spec", major)
	case against != 0 && j < 0:
		return Record{}, fmt.Errorf("major %d is not in the spec", against)
	case !ok:
		return Record{}, fmt.Errorf("message %q is not documented in %d (it is in %v)", it.Slug, major, e.Majors(it.Slug))
	}
	r := Record{Kind: "protocol", Major: key, Item: *it, Snapshot: v}
	r.Item.Summary, r.Item.NameZh = v.Description[0], e.NameZh(it.Slug, major)
	if against == 0 {
		r.Comparison = Comparison{Right: key, Status: "baseline", Classification: matrix.Baseline}
		return r, nil
	}
	c, err := compare(against, major, e.data[it.Slug][j], e.data[it.Slug][i], e.lang)
	if err != nil {
		return Record{}, fmt.Errorf("message %q: %w", it.Slug, err)
	}
	if e.isCommand(it.Slug) {
		c.Classification = commandChange(e.find(j, it.Slug), e.find(i, it.Slug))
	} else {
		c.Classification = e.h.Change(it.Slug, j, i).Status
	}
	r.Comparison = c
	return r, nil
}

// Records are the records of every slug documented in major, compared
// against against (see Record).
func (e *Export) Records(major, against int) ([]Record, error) {
	var out []Record
	for k := range e.Items {
		if _, ok := e.Items[k].Versions[strconv.Itoa(major)]; !ok {
			continue
		}
		r, err := e.Record(&e.Items[k], major, against)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Item returns the item of slug, or nil.
func (e *Export) Item(slug string) *Item {
	for k := range e.Items {
		if e.Items[k].Slug == slug {
			return &e.Items[k]
		}
	}
	return nil
}

// commandChange classifies a command from a to b as the matrix does a
// message: another list of parameters and options is a change of what a
// client writes (wire), other descriptions a wording change.
func commandChange(a, b *spec.Message) matrix.Status {
	switch {
	case a == nil && b == nil:
		return matrix.Absent
	case a == nil:
		return matrix.Added
	case b == nil:
		return matrix.Removed
	}
	da, db := comparisonData(a), comparisonData(b)
	formats := func(d ComparisonData) []string {
		var out []string
		for _, f := range d.Fields {
			out = append(out, f.Format)
		}
		return out
	}
	switch {
	case !slices.Equal(formats(da), formats(db)):
		return matrix.Wire
	case !slices.Equal(da.Fields, db.Fields) || a.Notes[0].Text.En != b.Notes[0].Text.En:
		return matrix.Wording
	}
	return matrix.Unchanged
}

// displayName is pg.center's item name: the layer is spelled out for the
// replication layers, whose names ("Update") would be ambiguous.
func displayName(m *spec.Message, lang matrix.Lang) string {
	name := m.NameIn(string(lang))
	if m.Layer == spec.LayerFrontendBackend {
		return name
	}
	if lang == matrix.Chinese {
		return name + "（" + vocab[lang].layerShort[m.Layer] + "）"
	}
	return name + " (" + vocab[lang].layerShort[m.Layer] + ")"
}

// text is one text of a version in both languages; zh is "" where the
// major has no translation. Pointer is where its record language's form
// stands in a version, relative to it ("tables/0/rows/1/c2").
type text struct {
	pointer string
	en, zh  string
	// nodes are the JSON pointers in spec/pgNN.json of the Chinese texts
	// it was made of, none for the export's own vocabulary.
	nodes []string
}

// version is m as s documents it, in lang.
func version(s *spec.Spec, m *spec.Message, lang matrix.Lang) Version {
	key := strconv.Itoa(s.Major)
	v := Version{
		Signature:      m.Name,
		Fields:         []Field{},
		ManualPath:     fmt.Sprintf("/docs/%d/%s", s.Major, m.Page),
		ManualLanguage: string(lang),
		Release:        release(s),
	}
	v.ComparisonData = comparisonData(m)
	v.Fields = v.ComparisonData.Fields
	v.ComparisonHash = sum(string(compactSorted(v.ComparisonData)))

	texts := versionTexts(s, m)
	byPointer := map[string]text{}
	for _, t := range texts {
		byPointer[t.pointer] = t
	}
	// Lay each text out twice: in lang, and in Chinese.
	build := func(l matrix.Lang) ([]Table, []Fact, []Section, []Link, string) {
		get := func(p string) string {
			if t := byPointer[p]; l == matrix.Chinese && t.zh != "" {
				return t.zh
			}
			return byPointer[p].en
		}
		t := Table{Key: "fields", Title: get("tables/0/title"), Rows: []Cells{}}
		for i := range 3 {
			t.Columns = append(t.Columns, Column{fmt.Sprintf("c%d", i), get(fmt.Sprintf("tables/0/columns/%d/label", i))})
		}
		for i, r := range m.Rows() {
			t.Rows = append(t.Rows, Cells{C0: strconv.Itoa(i + 1), C1: r.FormatIn(string(l)), C2: get(fmt.Sprintf("tables/0/rows/%d/c2", i))})
		}
		facts := []Fact{{get("facts/0/label"), get("facts/0/value")}}
		if c := s.FindCommand(m.Slug); m.Layer == spec.LayerCommands && c != nil {
			synopsis := c.Synopsis
			if l == matrix.Chinese && c.SynopsisZh != "" {
				synopsis = c.SynopsisZh
			}
			facts = append(facts, Fact{get("facts/1/label"), synopsis})
		} else if rows := m.Rows(); len(rows) > 0 {
			facts = append(facts, Fact{get("facts/1/label"), rows[0].FormatIn(string(l))})
		}
		var sections []Section
		if n := countPrefix(texts, "sections/0/paragraphs/"); n > 0 {
			sec := Section{Title: get("sections/0/title")}
			for i := range n {
				sec.Paragraphs = append(sec.Paragraphs, get(fmt.Sprintf("sections/0/paragraphs/%d", i)))
			}
			sections = []Section{sec}
		} else {
			sections = []Section{}
		}
		var related []Link
		for i, r := range relatedPages[m.Layer] {
			related = append(related, Link{URL: fmt.Sprintf(r.url, s.Major), Label: get(fmt.Sprintf("related/%d/label", i))})
		}
		return []Table{t}, facts, sections, related, get("description/0")
	}
	var desc string
	v.Tables, v.Facts, v.Sections, v.Related, desc = build(lang)
	v.TablesZh, v.FactsZh, v.SectionsZh, _, _ = build(matrix.Chinese)
	v.DescriptionZh = descriptionZh(m)
	if lang == matrix.Chinese {
		desc = v.DescriptionZh
	}
	v.Description = []string{desc}
	v.DescriptionZhHTML = descriptionZhHTML(s.Major, m)

	url := v.ManualPath
	zhURL := "/zh" + v.ManualPath
	if m.Anchor != "" {
		url += "#" + m.Anchor
		zhURL += "#" + m.Anchor
	}
	en, zh := source(s, "en", m.Page), source(s, "zh", m.Page)
	v.Sources = []Source{{URL: url, Path: m.Page, Label: fmt.Sprintf(vocab[matrix.English].sourceLabel, s.Major), SHA256: en.SHA256}}

	// Where the Chinese came from, and which texts are a translation.
	loc := Localization{Status: "complete", Language: "zh", OriginalText: map[string]string{}, FallbackFields: []string{},
		SourceLanguage: "en", Sources: []LocalizationSource{}}
	translated := lang == matrix.Chinese
	nodes := []string{}
	for _, t := range texts {
		if !translated && strings.HasPrefix(t.pointer, "related/") {
			continue // an English record has its related links in English only
		}
		p := "/versions/" + key + "/" + zhPointer(t.pointer, translated)
		switch {
		case len(t.nodes) > 0 && t.zh == "" && t.en != "":
			loc.FallbackFields = append(loc.FallbackFields, p)
		case t.zh != "" && t.zh != t.en:
			loc.OriginalText[p] = t.en
			nodes = append(nodes, t.nodes...)
		}
	}
	if len(loc.FallbackFields) > 0 {
		loc.Status = "fallback"
	}
	fromKind := "same-version-chinese-manual"
	if s.ReleaseZh == "" {
		fromKind = "english-manual-no-translation"
	} else {
		loc.Sources = append(loc.Sources, LocalizationSource{URL: v.ManualPath, Method: "same-major row alignment (gen/extract)",
			SHA256: zh.SHA256, Language: "zh", MatchedNodes: nodes})
	}
	v.ZhFrom = ZhFrom{
		Kind: fromKind,
		Manual: ZhManual{URL: zhURL, Anchor: m.Anchor, Locale: "zh-Hans", Version: key, PageKey: m.Page,
			Extraction: "exact-definition", SourceHash: zh.SHA256, FragmentSHA256: sum(v.DescriptionZh),
			SourceRevision: zh.Upstream, TranslationRevision: zh.Origin},
		BodySHA256:          sum(v.DescriptionZhHTML),
		AuthoredTranslation: "corpus-translation",
		SourceFactsRevision: v.Release.Revision,
	}
	payload := CenterPayload{Facts: v.FactsZh, Tables: v.TablesZh, ZhFrom: v.ZhFrom, Sections: v.SectionsZh,
		DescriptionZh: v.DescriptionZh, DescriptionZhHTML: v.DescriptionZhHTML}
	js, err := spec.Marshal(payload)
	if err != nil {
		panic(err) // plain strings and slices always marshal
	}
	contentHash := sum(string(js))
	v.CenterZh = CenterZh{
		Title: displayName(m, matrix.English), Locale: "zh-Hans",
		Source: CenterSource{Key: m.Slug, Locale: "zh-Hans", Version: key, TextHash: contentHash, Collection: "protocol",
			DatasetHash: corpusRevision(s, "zh"), SourceDatabase: "pgspec", SourceRevision: v.Release.Revision},
		Payload: payload, Summary: v.DescriptionZh, Version: key,
		LinkMap:  map[string]string{zhURL: url},
		BodyHTML: v.DescriptionZhHTML, BodySHA256: sum(v.DescriptionZhHTML), ContentHash: contentHash,
		SourceDatabase: "pgspec", SourceRevision: v.Release.Revision,
	}
	loc.CanonicalCenterTextHash = contentHash
	var english strings.Builder
	for _, t := range texts {
		english.WriteString(t.en + "\n")
	}
	loc.OriginalSnapshotSHA256 = sum(english.String())
	v.Localization = loc
	return v
}

// zhPointer is where a text's Chinese form stands: in a Chinese record the
// plain fields hold it, in an English one the *_zh fields.
func zhPointer(p string, chineseRecord bool) string {
	if chineseRecord {
		return p
	}
	field, rest, _ := strings.Cut(p, "/")
	if field == "description" {
		return "description_zh"
	}
	return field + "_zh/" + rest
}

func countPrefix(texts []text, prefix string) int {
	n := 0
	for _, t := range texts {
		if strings.HasPrefix(t.pointer, prefix) {
			n++
		}
	}
	return n
}

// versionTexts lists every text a version prints in both languages: the
// vocabulary's, and the manual's with the JSON pointers of the spec they
// were read from.
func versionTexts(s *spec.Spec, m *spec.Message) []text {
	en, zh := vocab[matrix.English], vocab[matrix.Chinese]
	fixed := func(p, e, z string) text { return text{pointer: p, en: e, zh: z} }
	idx := slices.IndexFunc(s.Messages, func(x spec.Message) bool { return x.Slug == m.Slug })
	node := fmt.Sprintf("%s#/messages/%d", spec.FileName(s.Major), idx)
	rowNode := func(b, k int) string { return fmt.Sprintf("%s/blocks/%d/rows/%d/description/zh", node, b, k) }
	if m.Layer == spec.LayerCommands {
		idx = slices.IndexFunc(s.Commands, func(c spec.Command) bool { return c.Slug == m.Slug })
		node = fmt.Sprintf("%s#/commands/%d", spec.FileName(s.Major), idx)
		rowNode = func(b, k int) string {
			return fmt.Sprintf("%s/%s/%d/description/zh", node, []string{"parameters", "options"}[b], k)
		}
	}
	desc := fixed("description/0", description(m), "")
	first := fixed("facts/1/label", en.first, zh.first)
	if m.Layer == spec.LayerCommands {
		first = fixed("facts/1/label", en.synopsis, zh.synopsis)
	}
	if translated(m) {
		desc.zh = descriptionZh(m)
	}
	out := []text{
		desc,
		fixed("facts/0/label", en.layer, zh.layer),
		fixed("facts/0/value", en.layerFact[m.Layer], zh.layerFact[m.Layer]),
		first,
		fixed("tables/0/title", en.title, zh.title),
		fixed("tables/0/columns/0/label", en.position, zh.position),
		fixed("tables/0/columns/1/label", en.format, zh.format),
		fixed("tables/0/columns/2/label", en.meaning, zh.meaning),
	}
	for i, r := range relatedPages[m.Layer] {
		out = append(out, fixed(fmt.Sprintf("related/%d/label", i), r.en, r.zh))
	}
	n := 0
	for b, block := range m.Blocks {
		for k, r := range block.Rows {
			out = append(out, text{pointer: fmt.Sprintf("tables/0/rows/%d/c2", n), en: r.Description.En, zh: r.Description.Zh,
				nodes: []string{rowNode(b, k)}})
			n++
		}
	}
	paras := context(s, m)
	if len(paras) > 0 {
		out = append(out, fixed("sections/0/title", en.context, zh.context))
	}
	for i, p := range paras {
		out = append(out, text{pointer: fmt.Sprintf("sections/0/paragraphs/%d", i), en: p.text.En, zh: p.text.Zh, nodes: p.nodes})
	}
	return out
}

type paragraph struct {
	text  spec.Text
	nodes []string
}

// context is the prose of the message's page that frames it: the page's
// introduction and the paragraphs standing between its message lists ("The
// following messages … are available since protocol version 2."), joined
// into one as pg.center does, and for a replication sub-message the
// command it answers.
func context(s *spec.Spec, m *spec.Message) []paragraph {
	var out []paragraph
	var en, zh, nodes []string
	for k, t := range s.Intro(m.Page) {
		en, zh = append(en, t.En), append(zh, t.Zh)
		nodes = append(nodes, fmt.Sprintf("%s#/intros/%d/paragraphs/%d/zh", spec.FileName(s.Major),
			slices.IndexFunc(s.Intros, func(in spec.Intro) bool { return in.Page == m.Page }), k))
	}
	for i, x := range s.Messages {
		if x.Page == m.Page && x.Lead != nil {
			en, zh = append(en, x.Lead.Text.En), append(zh, x.Lead.Text.Zh)
			nodes = append(nodes, fmt.Sprintf("%s#/messages/%d/lead/text/zh", spec.FileName(s.Major), i))
		}
	}
	if len(en) > 0 {
		t := spec.Text{En: strings.Join(en, " ")}
		if !slices.Contains(zh, "") {
			t.Zh = strings.Join(zh, "")
		}
		out = append(out, paragraph{t, nodes})
	}
	if m.Context != "" {
		out = append(out, paragraph{text: spec.Text{En: fmt.Sprintf(vocab[matrix.English].within, m.Context), Zh: fmt.Sprintf(vocab[matrix.Chinese].within, m.Context)}})
	}
	return out
}

// description is the English description: the message named with its
// layer, then its first field's meaning.
func description(m *spec.Message) string {
	if m.Layer == spec.LayerCommands {
		return vocab[matrix.English].describe[m.Layer] + " " + m.Name + ". " + m.Notes[0].Text.En
	}
	d := vocab[matrix.English].describe[m.Layer] + " " + m.Name + " format."
	if rows := m.Rows(); len(rows) > 0 {
		d += " " + rows[0].Description.En
	}
	return d
}

// descriptionZh is the Chinese manual's entry as one text: the rows'
// formats and descriptions and the paragraphs between and after them, as
// pg.center's description_zh joins them.
func descriptionZh(m *spec.Message) string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Lead != nil {
			parts = append(parts, b.Lead.Text.Prefer("zh"))
		}
		for _, r := range b.Rows {
			parts = append(parts, strings.TrimSpace(r.FormatIn("zh")+" "+r.Description.Prefer("zh")))
		}
	}
	for _, n := range m.Notes {
		parts = append(parts, n.Text.Prefer("zh"))
	}
	return strings.Join(parts, " ")
}

// descriptionZhHTML renders the Chinese entry as pg.center's page does:
// a heading, the definition list, a link to the Chinese manual.
func descriptionZhHTML(major int, m *spec.Message) string {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, "<p>%s %s。</p><h3>同版本中文手册定义</h3><dl>", vocab[matrix.Chinese].describe[m.Layer], e(m.NameIn("zh")))
	for _, blk := range m.Blocks {
		if blk.Lead != nil {
			fmt.Fprintf(&b, "</dl><p>%s</p><dl>", e(blk.Lead.Text.Prefer("zh")))
		}
		for _, r := range blk.Rows {
			fmt.Fprintf(&b, "<dt>%s</dt><dd><p>%s</p></dd>", e(r.FormatIn("zh")), e(r.Description.Prefer("zh")))
		}
	}
	b.WriteString("</dl>")
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "<p>%s</p>", e(n.Text.Prefer("zh")))
	}
	u := fmt.Sprintf("/zh/docs/%d/%s", major, m.Page)
	if m.Anchor != "" {
		u += "#" + m.Anchor
	}
	fmt.Fprintf(&b, `<p><a href="%s" rel="nofollow">查看完整中文手册与上下文</a>。</p>`, e(u))
	return b.String()
}

// translated reports whether the major's Chinese pages had m.
func translated(m *spec.Message) bool {
	return slices.ContainsFunc(m.Rows(), func(r spec.Row) bool { return r.Description.Zh != "" })
}

func comparisonData(m *spec.Message) ComparisonData {
	d := ComparisonData{Layer: strings.ReplaceAll(m.Layer, "-", " "), Fields: []Field{}}
	if m.Layer == spec.LayerCommands {
		d.Layer = "replication command"
	}
	for _, r := range m.Rows() {
		d.Fields = append(d.Fields, Field{Format: r.Format, Description: r.Description.En})
	}
	return d
}

// release is the major's English release with its source tarball.
func release(s *spec.Spec) Release {
	r := Release{Label: s.Release, Major: strconv.Itoa(s.Major), Channel: channel(s.Release), Revision: corpusRevision(s, "en")}
	if r.Channel == "devel" {
		r.Ref = "https://ftp.postgresql.org/pub/snapshot/dev/postgresql-snapshot.tar.bz2"
	} else {
		r.Ref = fmt.Sprintf("https://ftp.postgresql.org/pub/source/v%[1]s/postgresql-%[1]s.tar.bz2", s.Release)
	}
	return r
}

// channel tells a release from a preview (19rc1, 19beta2) or a snapshot.
func channel(label string) string {
	switch {
	case strings.Contains(label, "devel"):
		return "devel"
	case strings.Contains(label, "rc"), strings.Contains(label, "beta"):
		return "preview"
	}
	return "stable"
}

// source is the corpus page of lang, zero when the major has none.
func source(s *spec.Spec, lang, page string) spec.Source {
	for _, p := range s.Sources {
		if p.Lang == lang && p.Page == page {
			return p
		}
	}
	return spec.Source{}
}

// corpusRevision identifies the major's corpus pages in lang: the SHA-256
// of their sha256s, one a line, "" when there are none.
func corpusRevision(s *spec.Spec, lang string) string {
	var b strings.Builder
	for _, p := range s.Sources {
		if p.Lang == lang {
			b.WriteString(p.SHA256 + "\n")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return sum(b.String())
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// compare diffs the {layer, fields} JSON of two majors; a side without the
// message (nil) reads notInVersion in lang.
func compare(left, right int, a, b *ComparisonData, lang matrix.Lang) (Comparison, error) {
	c := Comparison{Left: strconv.Itoa(left), Right: strconv.Itoa(right)}
	sides := [2][]string{}
	for i, d := range []*ComparisonData{a, b} {
		if d == nil {
			sides[i] = []string{vocab[lang].notInVersion}
			continue
		}
		// The diffed form: indented, keys in the order the record uses.
		js, err := spec.Marshal(d)
		if err != nil {
			return c, err
		}
		sides[i] = strings.Split(strings.TrimSuffix(string(js), "\n"), "\n")
	}
	c.Diff = matrix.Unified(c.Left, c.Right, sides[0], sides[1])
	switch {
	case a == nil && b == nil:
		c.Status = "unchanged"
	case a == nil:
		c.Status = "added"
	case b == nil:
		c.Status = "removed"
	case c.Diff == "":
		c.Status = "unchanged"
	default:
		c.Status = "changed"
	}
	return c, nil
}
