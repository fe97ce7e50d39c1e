// Package extract is the pipeline's second stage, corpus → spec/pgNN.json: it
// turns PostgreSQL's protocol documentation (the rendered HTML of five pages
// per major, in English and Chinese) into spec.Spec values.
//
// It reads a corpus laid out as DOCS/{en,zh}/<major>/<page>.html with a
// MANIFEST.md beside them, parses every page with goquery, gives each message
// a slug that survives renames, aligns the Chinese page to the English one row
// by row (reviewed exceptions come from spec/corrections.json) and recognises
// the structure the prose carries.
package extract

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/pgspec/pgspec/spec"
)

// Extract reads every major under docs/en (and docs/zh where present).
// It returns every problem found at once; specs are nil when there is any.
func Extract(docs fs.FS, corr *spec.Corrections) ([]*spec.Spec, error) {
	c, err := OpenCorpus(docs)
	if err != nil {
		return nil, err
	}
	var errs []error
	var specs []*spec.Spec
	for _, major := range c.Majors() {
		s := &spec.Spec{Major: major}
		for _, kind := range Pages {
			p, src, err := readPage(c, "en", major, kind)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			s.Sources = append(s.Sources, src)
			s.Release = p.Release
			s.Messages = append(s.Messages, p.Messages...)
			s.Commands = append(s.Commands, p.Commands...)
			if len(p.Intro) > 0 {
				in := spec.Intro{Page: kind.File}
				for _, t := range p.Intro {
					in.Paragraphs = append(in.Paragraphs, spec.Text{En: t})
				}
				s.Intros = append(s.Intros, in)
			}
			switch kind.File {
			case "protocol-message-types.html":
				s.DataTypes = p.Terms
			case "protocol-error-fields.html":
				s.ErrorFields = p.Terms
			}
		}
		errs = append(errs, chapterSources(c, s, "en")...)
		errs = append(errs, duplicates(s)...)
		errs = append(errs, unvalued(s)...)
		specs = append(specs, s)
	}
	if len(errs) > 0 {
		return nil, joinErrs(errs)
	}
	assignSlugs(specs)
	for _, s := range specs {
		errs = append(errs, resolveFlowLists(s)...)
	}
	if len(errs) > 0 {
		return nil, joinErrs(errs)
	}
	used := map[*spec.Correction]bool{}
	for _, s := range specs {
		annotate(s)
		s.Coverage = append(s.Coverage, coverage(s, "en"))
		if !c.Chinese(s.Major) {
			continue
		}
		if err := addChinese(c, s, corr, used); err != nil {
			errs = append(errs, err)
			continue
		}
		s.Coverage = append(s.Coverage, coverage(s, "zh"))
	}
	// An entry for a major this corpus does not hold is not judged by it.
	for i := range corr.List {
		if e := &corr.List[i]; !used[e] && slices.Contains(c.Majors(), e.Major) {
			errs = append(errs, fmt.Errorf("corrections: entry %d (%s %d %q %s) matches nothing: remove it", i+1, e.Lang, e.Major, e.Message, e.Kind))
		}
	}
	if len(errs) > 0 {
		return nil, joinErrs(errs)
	}
	return specs, nil
}

// pageFile is where the corpus keeps a page: lang/major/file.
func pageFile(lang string, major int, kind PageKind) string {
	return path.Join(lang, strconv.Itoa(major), kind.File)
}

// readPage reads one of the five pages and its messages or terms.
func readPage(c *Corpus, lang string, major int, kind PageKind) (*Page, spec.Source, error) {
	doc, src, err := c.Page(lang, major, kind)
	if err != nil {
		return nil, spec.Source{}, err
	}
	p, err := parseDoc(doc, src.Release, pageFile(lang, major, kind), kind)
	if p == nil {
		return nil, spec.Source{}, err
	}
	return p, src, err
}

// chapterSources checks the chapter's other pages of s's major in lang and
// records them as sources: each must name the release the five name.
func chapterSources(c *Corpus, s *spec.Spec, lang string) []error {
	want := s.Release
	if lang == "zh" {
		want = s.ReleaseZh
	}
	var errs []error
	for _, kind := range PagesOf(s.Major)[len(Pages):] {
		file := pageFile(lang, s.Major, kind)
		doc, src, err := c.Page(lang, s.Major, kind)
		if err == nil && src.Release != want {
			err = &Error{File: file, Err: fmt.Errorf("release %s, the protocol pages are of %s", src.Release, want)}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Sources = append(s.Sources, src)
		if kind == PageFlow {
			lists, err := readFlowLists(doc, file)
			switch {
			case err != nil:
				errs = append(errs, err)
			case lang == "en":
				s.FlowLists = lists
			default:
				errs = append(errs, alignFlowLists(file, s, lists)...)
			}
			d, err := readDirectTLS(doc, file, lang)
			switch {
			case err != nil:
				errs = append(errs, err)
			case lang == "en":
				s.DirectTLS = d
			case (d == nil) != (s.DirectTLS == nil):
				errs = append(errs, &Error{File: file, Err: fmt.Errorf("a paragraph on direct TLS: %v, English: %v", d != nil, s.DirectTLS != nil)})
			case d != nil:
				s.DirectTLS.Text.Zh = d.Text.En
			}
		}
		if kind != pluginOptionsPage(s.Major) {
			continue
		}
		opts, err := readPluginOptions(doc, file, kind)
		switch {
		case err != nil:
			errs = append(errs, err)
		case lang == "en":
			s.PluginOptions = opts
		default:
			errs = append(errs, alignPluginOptions(file, s.PluginOptions, opts)...)
		}
	}
	return errs
}

// MaxPage bounds a page's size: the largest protocol page is about 300 kB.
const MaxPage = 8 << 20

// readBounded reads a page of at most MaxPage bytes; a larger one is
// refused before it is read.
func readBounded(docs fs.FS, name string) ([]byte, error) {
	f, err := docs.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPage+1))
	if err == nil && len(data) > MaxPage {
		err = fmt.Errorf("more than %d bytes: not a protocol page", MaxPage)
	}
	return data, err
}

// checkUTF8 names the offset of the first byte of data that is not valid
// UTF-8.
func checkUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	for off := 0; off < len(data); {
		r, n := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("invalid UTF-8 at byte offset %d", off)
		}
		off += n
	}
	return nil
}

// addChinese parses the major's Chinese pages and aligns them to the English
// spec, excusing only what corrections list.
func addChinese(c *Corpus, s *spec.Spec, corr *spec.Corrections, used map[*spec.Correction]bool) error {
	var errs []error
	for _, kind := range Pages {
		p, src, err := readPage(c, "zh", s.Major, kind)
		if err = excuse(corr, err, s.Major, used); err != nil {
			errs = append(errs, err)
			continue
		}
		s.Sources = append(s.Sources, src)
		s.ReleaseZh = p.Release
		file := pageFile("zh", s.Major, kind)
		switch {
		case kind.Layer != "":
			alignIntro(s, kind.File, p.Intro)
			errs = append(errs, alignMessages(file, layerMessages(s, kind.Layer), p.Messages, s.Major, corr, used)...)
			if kind.Layer == spec.LayerStreamingReplication {
				errs = append(errs, alignCommands(file, s.Commands, p.Commands, s.Major, corr, used)...)
			}
		case kind.File == "protocol-message-types.html":
			errs = append(errs, alignTerms(file, s.DataTypes, p.Terms)...)
		default:
			errs = append(errs, alignTerms(file, s.ErrorFields, p.Terms)...)
		}
	}
	errs = append(errs, chapterSources(c, s, "zh")...)
	return joinErrs(errs)
}

// layerMessages is the run of the spec's messages that one page produced.
func layerMessages(s *spec.Spec, layer string) []spec.Message {
	lo := slices.IndexFunc(s.Messages, func(m spec.Message) bool { return m.Layer == layer })
	if lo < 0 {
		return nil
	}
	hi := lo
	for hi < len(s.Messages) && s.Messages[hi].Layer == layer {
		hi++
	}
	return s.Messages[lo:hi]
}

func alignTerms(file string, en, zh []spec.Term) []error {
	if len(en) != len(zh) {
		return []error{&Error{File: file, Err: fmt.Errorf("%d terms, English has %d", len(zh), len(en))}}
	}
	var errs []error
	for i := range en {
		if en[i].Term != zh[i].Term {
			errs = append(errs, &Error{File: file, Row: i + 1, Err: fmt.Errorf("term %q, English has %q", zh[i].Term, en[i].Term)})
			continue
		}
		en[i].Description.Zh = zh[i].Description.En
	}
	return errs
}

// duplicates names every message a major documents twice: two entries
// with one identity would give one slug two layouts.
func duplicates(s *spec.Spec) []error {
	var errs []error
	seen := map[string]*spec.Message{}
	for i := range s.Messages {
		m := &s.Messages[i]
		id := identity(m)
		if first, ok := seen[id]; ok {
			errs = append(errs, &Error{File: pageFile("en", s.Major, PageKind{File: m.Page}), Message: m.Name,
				Err: fmt.Errorf("duplicate message: documented again at %s (first at %s)", orAnchor(m.Anchor), orAnchor(first.Anchor))})
			continue
		}
		seen[id] = m
	}
	return errs
}

// orAnchor is where an entry stands: its anchor, when the page gives one.
func orAnchor(a string) string {
	if a == "" {
		return "an entry without anchor"
	}
	return "#" + a
}

// coverage counts, for one language, the messages and rows that carry text
// in it, the annotations recognised on them and the paragraphs left as prose.
func coverage(s *spec.Spec, lang string) spec.Coverage {
	c := spec.Coverage{Lang: lang}
	prose := func(p *spec.Prose) {
		if p == nil || p.Text.Pick(lang) == "" {
			return
		}
		c.Annotations += len(p.Annotations)
		if len(p.Annotations) == 0 {
			c.Unparsed++
		}
	}
	for _, m := range s.Messages {
		counted := false
		prose(m.Lead)
		for _, b := range m.Blocks {
			prose(b.Lead)
			for _, r := range b.Rows {
				if r.Description.Pick(lang) == "" {
					continue
				}
				counted = true
				c.Rows++
				c.Annotations += len(r.Annotations)
			}
		}
		for i := range m.Notes {
			prose(&m.Notes[i])
		}
		if counted {
			c.Messages++
		}
	}
	return c
}
