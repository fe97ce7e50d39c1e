package extract

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/pgspec/pgspec/spec"
)

// generatedID is an id the stylesheet made up for a section the source left
// without one (id-1.2.2.7.3): it changes with the chapter's place in the book.
var generatedID = regexp.MustCompile(`^id-[0-9.]+$`)

// sectionNumber is the number a section title starts with: "53.2.1. ".
var sectionNumber = regexp.MustCompile(`^[0-9.]+\s*`)

// readFlowLists reads the message lists of protocol-flow.html: every
// div.variablelist of a section names, one term each, the messages the
// server may send in one phase ("The possible response messages from the
// backend are:"). Names are resolved to slugs later (resolveFlowLists); a
// list without terms, an empty term or a section without a title is an
// error naming the file and the element.
func readFlowLists(doc *goquery.Document, file string) ([]spec.FlowList, error) {
	var out []spec.FlowList
	var errs []error
	index := map[string]int{}
	doc.Find("div.variablelist").Each(func(i int, vl *goquery.Selection) {
		where := fmt.Sprintf("div.variablelist %d", i+1)
		fail := func(format string, args ...any) {
			errs = append(errs, &Error{File: file, Err: fmt.Errorf(where+": "+format, args...)})
		}
		sect := vl.Closest("div.sect2")
		id, _ := sect.Attr("id")
		if sect.Length() == 0 || id == "" {
			fail("in no div.sect2 with an id: a message list belongs to a section of the flow")
			return
		}
		title := clean(sectionNumber.ReplaceAllString(strings.TrimSuffix(clean(sect.Find("h3.title").First().Text()), "#"), ""))
		if title == "" {
			fail("section %s has no h3.title", id)
			return
		}
		if generatedID.MatchString(id) {
			// The id later majors give the section: PROTOCOL-FLOW-START-UP.
			id = "PROTOCOL-FLOW-" + strings.ToUpper(strings.ReplaceAll(title, " ", "-"))
		}
		index[id]++
		l := spec.FlowList{Page: PageFlow.File, Section: id, Title: spec.Text{En: title}, Index: index[id]}
		where = fmt.Sprintf("div.variablelist %d (section %s, list %d)", i+1, id, l.Index)
		if p := vl.Prev(); p.Is("p") {
			l.Lead = spec.Text{En: clean(p.Text())}
		}
		vl.Children().First().ChildrenFiltered("dt").Each(func(j int, dt *goquery.Selection) {
			name := termText(dt)
			if name == "" {
				fail("dt %d: no message name", j+1)
				return
			}
			l.Items = append(l.Items, spec.FlowItem{Name: name, Description: spec.Text{En: clean(dt.Next().Text())}})
		})
		if len(l.Items) == 0 {
			fail("no dt: a message list names messages")
			return
		}
		out = append(out, l)
	})
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, &Error{File: file, Err: fmt.Errorf("no message list (div.variablelist) in any section")})
	}
	return out, joinErrs(errs)
}

// resolveFlowLists gives every item of s's flow lists the slug of the
// message of that name on the major's protocol-message-formats.html.
func resolveFlowLists(s *spec.Spec) []error {
	bySlug := map[string]string{}
	for _, m := range s.Messages {
		if m.Layer == spec.LayerFrontendBackend && !m.Part {
			bySlug[m.Name] = m.Slug
		}
	}
	var errs []error
	for i := range s.FlowLists {
		l := &s.FlowLists[i]
		for j := range l.Items {
			it := &l.Items[j]
			if it.Slug = bySlug[it.Name]; it.Slug == "" {
				errs = append(errs, &Error{File: pageFile("en", s.Major, PageFlow),
					Err: fmt.Errorf("section %s, list %d, dt %d: %q names no message of %s", l.Section, l.Index, j+1, it.Name, Pages[0].File)})
			}
		}
	}
	return errs
}

// alignFlowLists gives the English lists their Chinese text: the same
// lists with the same number of items, each the English item's name or a
// translation of it, never another message's English name.
func alignFlowLists(file string, s *spec.Spec, zh []spec.FlowList) []error {
	en := s.FlowLists
	if len(en) != len(zh) {
		return []error{&Error{File: file, Err: fmt.Errorf("%d message lists, English has %d", len(zh), len(en))}}
	}
	var errs []error
	for i := range en {
		e, z := &en[i], &zh[i]
		where := fmt.Sprintf("div.variablelist %d (section %s, list %d)", i+1, e.Section, e.Index)
		if len(e.Items) != len(z.Items) {
			errs = append(errs, &Error{File: file, Err: fmt.Errorf("%s: %d messages, English has %d", where, len(z.Items), len(e.Items))})
			continue
		}
		e.Lead.Zh, e.Title.Zh = z.Lead.En, z.Title.En
		for j := range e.Items {
			ei, zi := &e.Items[j], &z.Items[j]
			if zi.Name != ei.Name {
				if messageNamed(s, zi.Name) {
					errs = append(errs, &Error{File: file, Err: fmt.Errorf("%s, dt %d: %q, English has %q", where, j+1, zi.Name, ei.Name)})
					continue
				}
				ei.NameZh = zi.Name
			}
			ei.Description.Zh = zi.Description.En
		}
	}
	return errs
}

// messageNamed says whether name is the English name of one of s's messages.
func messageNamed(s *spec.Spec, name string) bool {
	for _, m := range s.Messages {
		if m.Name == name {
			return true
		}
	}
	return false
}

// The paragraph of protocol-flow.html on direct TLS, in each language, and
// the ALPN protocol name it gives ("The PostgreSQL protocol is
// "postgresql"").
var (
	directTLSRE = map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`immediately begin SSL negotiation without any previous SSLRequest`),
		"zh": regexp.MustCompile(`识别那些\s*立即开始\s*SSL\s*协商`),
	}
	alpnRE = regexp.MustCompile(`PostgreSQL protocol is "([^"]+)"`)
)

// readDirectTLS reads the paragraph of protocol-flow.html that says the
// server recognises connections beginning TLS without SSLRequest, nil when
// the page has none. In English it must name its section and the ALPN
// protocol; a second such paragraph is an error.
func readDirectTLS(doc *goquery.Document, file, lang string) (*spec.DirectTLS, error) {
	var found []*goquery.Selection
	doc.Find("p").Each(func(_ int, p *goquery.Selection) {
		if directTLSRE[lang].MatchString(clean(p.Text())) {
			found = append(found, p)
		}
	})
	switch {
	case len(found) == 0:
		return nil, nil
	case len(found) > 1:
		return nil, &Error{File: file, Err: fmt.Errorf("%d paragraphs on direct TLS (%q), want one", len(found), directTLSRE[lang])}
	}
	p := found[0]
	text := clean(p.Text())
	d := &spec.DirectTLS{Page: PageFlow.File, Text: spec.Text{En: text}}
	if lang != "en" {
		return d, nil
	}
	d.Section, _ = p.Closest("div.sect2").Attr("id")
	m := alpnRE.FindStringSubmatch(text)
	switch {
	case d.Section == "" || generatedID.MatchString(d.Section):
		return nil, &Error{File: file, Err: fmt.Errorf("the paragraph on direct TLS is in no div.sect2 with an id of its own")}
	case m == nil:
		return nil, &Error{File: file, Err: fmt.Errorf("the paragraph on direct TLS names no ALPN protocol (%q)", alpnRE)}
	}
	d.ALPN = m[1]
	return d, nil
}
