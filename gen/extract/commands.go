package extract

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/pgspec/pgspec/spec"
)

// The replication commands are the top-level entries of the replication
// page's first list; everything about one is in its dd: paragraphs, a list of
// its positional parts, the list after "The following options are …", and a
// list of "name (type)" terms per ordinary result set.

var (
	commandNameRE = regexp.MustCompile(`^[A-Z][A-Z_]+[A-Z]`)
	// columnTermRE is a result column: "systemid (text)", full-width in some translations.
	columnTermRE = regexp.MustCompile(`^([a-z_][a-z0-9_]*) ?[(（]([a-z0-9]+)[)）]$`)
	// optionsLeadRE opens the option list of a command.
	optionsLeadRE = regexp.MustCompile(`(?i)following options? (is|are) (supported|accepted)|以下选项|下列选项|支持以下|支持下列|接受以下|接受下列`)
	// manyRowsRE says a result set has a row per something.
	manyRowsRE = regexp.MustCompile(`one row for each|每个表空间一行|每一个表空间.*一行|为每个表空间`)
	// followsRE names the copy sub-protocol a command starts.
	followsRE = regexp.MustCompile(`Copy(Both|Out|In)?Response`)
	// quotedValuesRE is an option's value set: { 'export' | 'use' | 'nothing' }.
	quotedValuesRE = regexp.MustCompile(`\{ ?((?:'[a-z_-]+'(?: \| )?)+) ?\}`)
	// defaultRE is "The default is false.", "the default is MANIFEST 'no'" or "'export', which is the default".
	defaultRE = regexp.MustCompile(`[Tt]he default is (?:[A-Z_]+ '([a-z-]+)'|'?([A-Za-z0-9_-]+)'?)|'?([a-z-]+)'?, which is the default`)
	// proseResultRE is a result set described in a sentence: BASE_BACKUP's
	// "The first ordinary result set contains the starting position of the
	// backup, in a single row with two columns", START_REPLICATION's "the
	// server sends a result set with one row and two columns".
	proseResultRE = regexp.MustCompile(`result set (?:contains [^.]*?, in a single row with two columns|with one row and two columns)`)
	// proseColumnsRE is its two columns: "The first column contains the
	// start position given in XLogRecPtr format, and the second column
	// contains …", "The first column is the next timeline's ID (type int8), …".
	proseColumnsRE = regexp.MustCompile(`The first column (?:is|contains) (.+?)(?: \(type ([a-z0-9]+)\))?, and the second column (?:is|contains) (.+?)(?: \(type ([a-z0-9]+)\))?\.`)
	// sameFormatRE is a result set "in the same format as" an earlier one:
	// BASE_BACKUP's "a final ordinary result set …, containing the WAL end
	// position of the backup, in the same format as the start position".
	sameFormatRE = regexp.MustCompile(`result set will be sent, containing ([^.]*?), in the same format as the start position`)
	// proseValuesRE is a keyword placeholder's value set given in its prose:
	// "with a value of yes or force-encode", "the available algorithms are
	// NONE, CRC32C, …, and SHA512".
	proseValuesRE = regexp.MustCompile(`(?:with a value of|the available [a-z]+ are) ((?:[A-Za-z0-9-]+, )*[A-Za-z0-9-]+,? (?:and|or) [A-Za-z0-9-]+)`)
	// placeholderKinds are the kinds of the manual's bare placeholders: what
	// the grammar reads there.
	placeholderKinds = map[string]string{
		"XXX/XXX": spec.ValueLSN, "tli": spec.ValueTimeline, "rate": spec.ValueInteger,
		"slot_name": spec.ValueIdentifier, "output_plugin": spec.ValueIdentifier, "name": spec.ValueIdentifier,
		"option_name": spec.ValueIdentifier, "option_value": spec.ValueString,
		"manifest_option": spec.ValueKeyword, "checksum_algorithm": spec.ValueKeyword, "detail": spec.ValueString,
	}
)

// readCommands reads the command list of a replication page.
func readCommands(doc *goquery.Document, file string) ([]spec.Command, error) {
	sect := doc.Find("div.sect1#PROTOCOL-REPLICATION")
	var cmds []spec.Command
	var errs []error
	sect.Find("div.variablelist").First().Children().First().ChildrenFiltered("dt").Each(func(_ int, dt *goquery.Selection) {
		c, err := readCommand(dt, file)
		if err != nil {
			errs = append(errs, err)
			return
		}
		// A second entry of a command, after its option-list form: the older
		// syntax "still supported" (15 on, CREATE_REPLICATION_SLOT).
		if slices.ContainsFunc(cmds, func(p spec.Command) bool { return p.Slug == c.Slug && p.Syntax == spec.SyntaxList }) {
			c.Legacy = true
			c.Slug += "-legacy"
			c.Syntax = spec.SyntaxKeyword
		}
		cmds = append(cmds, c)
	})
	if len(cmds) == 0 {
		errs = append(errs, &Error{File: file, Err: fmt.Errorf("no replication commands found")})
	}
	return cmds, joinErrs(errs)
}

func readCommand(dt *goquery.Selection, file string) (spec.Command, error) {
	syn := termText(dt)
	c := spec.Command{Synopsis: syn, Name: commandNameRE.FindString(syn), Syntax: spec.SyntaxNone}
	c.Anchor, _ = dt.Attr("id")
	fail := func(format string, a ...any) (spec.Command, error) {
		return c, &Error{File: file, Message: syn, Err: fmt.Errorf(format, a...)}
	}
	if c.Name == "" {
		return fail("the entry at %s is not a replication command: its term %q names none", orAnchor(c.Anchor), syn)
	}
	dd := dt.Next()
	if !dd.Is("dd") {
		return fail("command has no description")
	}
	c.Slug = strings.ToLower(strings.ReplaceAll(c.Name, "_", "-"))
	switch {
	case c.Name == "START_REPLICATION" && strings.Contains(syn, "LOGICAL"):
		c.Slug += "-logical"
	case c.Name == "START_REPLICATION":
		c.Slug += "-physical"
	}
	switch {
	case strings.Contains(syn, "( option"):
		c.Syntax = spec.SyntaxList
	case strings.Contains(syn, "[ "+`LABEL`) || strings.Contains(syn, "RESERVE_WAL"):
		c.Syntax = spec.SyntaxKeyword
	}
	var paras []string
	var lead string // the paragraph(s) since the last list
	inOptions := false
	proseSets := 0 // prose result sets are part of the description around them
	keywordOptions := map[string]bool{}
	if c.Syntax == spec.SyntaxKeyword {
		keywordOptions = optionKeywords(dt)
	}
	text := clean(dd.Text())
	for _, m := range followsRE.FindAllString(text, -1) {
		if m == "CopyResponse" { // 10–14's BASE_BACKUP: "one or more CopyResponse results"
			m = "CopyOutResponse"
		}
		if !slices.Contains(c.Follows, m) {
			c.Follows = append(c.Follows, m)
		}
	}
	var errs []error
	dd.Children().Each(func(_ int, ch *goquery.Selection) {
		if !ch.Is("div.variablelist") {
			t := clean(ch.Text())
			if t == "" {
				return
			}
			if len(c.Parameters)+len(c.Options)+len(c.Results)-proseSets == 0 {
				paras = append(paras, t)
			}
			if optionsLeadRE.MatchString(t) {
				inOptions = true
			}
			if rs, ok := proseResult(t, c.Results); ok {
				c.Results = append(c.Results, rs)
				proseSets++
			}
			lead = strings.TrimSpace(lead + "\n\n" + t)
			return
		}
		dts := ch.Children().First().ChildrenFiltered("dt")
		if dts.Length() > 0 && messageTermRE.MatchString(termText(dts.First())) {
			return // the messages of the stream the command starts: the replication layer's
		}
		if dts.Length() > 0 && dts.FilterFunction(func(_ int, d *goquery.Selection) bool { return columnTermRE.MatchString(termText(d)) }).Length() == dts.Length() {
			rs := spec.ResultSet{Lead: spec.Text{En: lead}, Rows: spec.RowsOne}
			if manyRowsRE.MatchString(lead) {
				rs.Rows = spec.RowsMany
			}
			dts.Each(func(_ int, d *goquery.Selection) {
				m := columnTermRE.FindStringSubmatch(termText(d))
				rs.Columns = append(rs.Columns, spec.Column{Name: m[1], Type: m[2], Description: spec.Text{En: clean(d.Next().Text())}})
			})
			c.Results = append(c.Results, rs)
			lead = ""
			return
		}
		dts.Each(func(_ int, d *goquery.Selection) {
			desc := clean(d.Next().Text())
			d.Find("span.term").Each(func(_ int, t *goquery.Selection) {
				item, err := readItem(clean(t.Text()), desc)
				if err != nil {
					errs = append(errs, &Error{File: file, Message: syn, Err: err})
					return
				}
				if inOptions || keywordOptions[item.Name] {
					c.Options = append(c.Options, item)
				} else {
					c.Parameters = append(c.Parameters, item)
				}
			})
		})
		lead = ""
	})
	// What the synopsis names and no list describes: physical
	// START_REPLICATION's parts, the legacy syntax's keywords.
	for _, tok := range synopsisTokens(dt) {
		if tok.Name == c.Name || hasItem(c.Parameters, tok.Name) || hasItem(c.Options, tok.Name) {
			continue
		}
		if keywordOptions[tok.Name] {
			c.Options = append(c.Options, tok)
		} else {
			c.Parameters = append(c.Parameters, tok)
		}
	}
	c.Description = spec.Text{En: strings.Join(paras, "\n\n")}
	if len(errs) > 0 {
		return c, joinErrs(errs)
	}
	return c, nil
}

// proseResult reads a result set that a paragraph describes in words (see
// proseResultRE): one row, two columns, each with what the sentence says
// of it and its type where given; "in the same format as the start
// position" takes the columns of the earlier prose set. Translations say it
// their own way and get none: alignCommands aligns the listed sets only.
func proseResult(t string, earlier []spec.ResultSet) (spec.ResultSet, bool) {
	rs := spec.ResultSet{Lead: spec.Text{En: t}, Rows: spec.RowsOne, Prose: true}
	if m := sameFormatRE.FindStringSubmatch(t); m != nil {
		for _, e := range earlier {
			if e.Prose {
				rs.Columns = slices.Clone(e.Columns)
				rs.Columns[0].Description = spec.Text{En: m[1]}
				return rs, true
			}
		}
		return rs, false
	}
	m := proseColumnsRE.FindStringSubmatch(t)
	if !proseResultRE.MatchString(t) || m == nil {
		return rs, false
	}
	rs.Columns = []spec.Column{{Type: m[2], Description: spec.Text{En: m[1]}}, {Type: m[4], Description: spec.Text{En: m[3]}}}
	return rs, true
}

// isKeyword says whether a name is a keyword (RESERVE_WAL) rather than a
// placeholder (slot_name).
func isKeyword(name string) bool { return name != "" && strings.ToUpper(name) == name }

// synopsisTokens are the keywords and placeholders of a synopsis after the
// command word and before any option list, as items without description.
func synopsisTokens(dt *goquery.Selection) []spec.CommandItem {
	var out []spec.CommandItem
	inList := false
	dt.Find("span.term").First().Contents().Each(func(i int, n *goquery.Selection) {
		switch {
		case goquery.NodeName(n) == "#text":
			inList = inList || strings.Contains(n.Text(), "(")
		case inList || i == 0:
		case n.Is("code.literal"):
			out = append(out, spec.CommandItem{Term: clean(n.Text()), Name: clean(n.Text()), Kind: spec.ValueFlag})
		case n.Is("em.replaceable"):
			name := clean(n.Text())
			out = append(out, spec.CommandItem{Term: name, Name: name, Kind: placeholderKinds[name]})
		}
	})
	return out
}

// optionKeywords are the options of a keyword-syntax synopsis: the keywords
// in brackets after the PHYSICAL | LOGICAL choice, or all bracketed ones
// when there is no choice (BASE_BACKUP [ LABEL 'label' ] [ PROGRESS ] …).
func optionKeywords(dt *goquery.Selection) map[string]bool {
	out := map[string]bool{}
	depth, choice := 0, false
	hasChoice := strings.Contains(termText(dt), "{")
	dt.Find("span.term").First().Contents().Each(func(i int, n *goquery.Selection) {
		if goquery.NodeName(n) == "#text" {
			t := n.Text()
			depth += strings.Count(t, "[") + strings.Count(t, "{") - strings.Count(t, "]") - strings.Count(t, "}")
			choice = choice || strings.Contains(t, "{")
			return
		}
		if i > 0 && n.Is("code.literal") && depth > 0 && (choice || !hasChoice) {
			name := clean(n.Text())
			if name != "PHYSICAL" && name != "LOGICAL" {
				out[name] = true
			}
		}
	})
	return out
}

// hasItem says whether name is an item of items or the value of one
// ("rate" of "MAX_RATE rate").
func hasItem(items []spec.CommandItem, name string) bool {
	for _, it := range items {
		if it.Name == name || slices.Contains(strings.Fields(it.Term)[1:], name) {
			return true
		}
	}
	return false
}

// readItem reads one parameter or option from its term and description:
// its name, value kind, allowed values and default.
func readItem(term, desc string) (spec.CommandItem, error) {
	it := spec.CommandItem{Term: term, Description: spec.Text{En: desc}}
	fields := strings.Fields(strings.NewReplacer("[", " [ ", "]", " ] ").Replace(term))
	if len(fields) == 0 {
		return it, fmt.Errorf("empty item term")
	}
	it.Name = fields[0]
	rest := strings.TrimSpace(strings.TrimPrefix(term, it.Name))
	switch {
	case placeholderKinds[it.Name] != "":
		it.Kind = placeholderKinds[it.Name] // slot_name, XXX/XXX, option_name
	case !isKeyword(it.Name):
		return it, fmt.Errorf("item %q: placeholder of no known kind", term)
	case it.Name == "SLOT" || it.Name == "TIMELINE":
		// "SLOT slot_name", "TIMELINE tli": the keyword introduces a placeholder.
		k, ok := placeholderKinds[strings.Trim(rest, "[] ")]
		if !ok {
			return it, fmt.Errorf("item %q: placeholder of no known kind", term)
		}
		it.Kind = k
	case rest == "":
		it.Kind = spec.ValueFlag
	case rest == "[ boolean ]":
		it.Kind = spec.ValueBoolean
	case quotedValuesRE.MatchString(rest):
		it.Kind = spec.ValueKeyword
		for _, v := range strings.Split(quotedValuesRE.FindStringSubmatch(rest)[1], "|") {
			it.Values = append(it.Values, strings.Trim(strings.TrimSpace(v), "'"))
		}
	case strings.HasPrefix(rest, "'") && strings.HasSuffix(rest, "'"):
		it.Kind = spec.ValueString
	default:
		k, ok := placeholderKinds[rest]
		if !ok {
			return it, fmt.Errorf("item %q: value of no known kind", term)
		}
		it.Kind = k
	}
	if m := defaultRE.FindStringSubmatch(desc); m != nil {
		it.Default = m[1] + m[2] + m[3]
	}
	if it.Kind == spec.ValueKeyword && len(it.Values) == 0 {
		// MANIFEST manifest_option, MANIFEST_CHECKSUMS checksum_algorithm:
		// the values are in the prose, the default among them.
		// A translation's prose lists them its own way: Chinese items take
		// the English values (unvalued checks the English page).
		if m := proseValuesRE.FindStringSubmatch(desc); m != nil {
			it.Values = strings.FieldsFunc(strings.NewReplacer(" and ", ",", " or ", ",").Replace(m[1]), func(r rune) bool { return r == ',' || r == ' ' })
			if it.Default != "" && !slices.Contains(it.Values, it.Default) {
				it.Values = append(it.Values, it.Default)
			}
		}
	}
	return it, nil
}

// unvalued names the English page's keyword items whose values neither
// their term nor their prose lists: a value set the extractor no longer
// finds must not become "any value".
func unvalued(s *spec.Spec) []error {
	var errs []error
	for _, c := range s.Commands {
		for _, it := range append(append([]spec.CommandItem(nil), c.Parameters...), c.Options...) {
			if it.Kind == spec.ValueKeyword && len(it.Values) == 0 {
				errs = append(errs, &Error{File: path.Join("en", strconv.Itoa(s.Major), "protocol-replication.html"), Message: c.Synopsis,
					Err: fmt.Errorf("item %q: a keyword whose values neither its term nor its description lists", it.Term)})
			}
		}
	}
	return errs
}

// alignCommands gives the English commands their Chinese text: commands in
// the same order with the same identity, items by name, result columns by
// name. A translation that lacks or adds a command, item or column is an
// error unless a reviewed correction excuses the command's items.
func alignCommands(file string, en, zh []spec.Command, major int, corr *spec.Corrections, used map[*spec.Correction]bool) []error {
	if len(en) != len(zh) {
		return []error{&Error{File: file, Err: fmt.Errorf("%d replication commands, English has %d", len(zh), len(en))}}
	}
	var errs []error
	for i := range en {
		e, z := &en[i], &zh[i]
		fail := func(format string, a ...any) {
			errs = append(errs, &Error{File: file, Message: e.Synopsis, Err: fmt.Errorf(format, a...)})
		}
		if e.Slug != z.Slug {
			fail("command %d is %s, English has %s", i+1, z.Slug, e.Slug)
			continue
		}
		if z.Synopsis != e.Synopsis {
			e.SynopsisZh = z.Synopsis
		}
		e.Description.Zh = z.Description.En
		for _, items := range [][2][]spec.CommandItem{{e.Parameters, z.Parameters}, {e.Options, z.Options}} {
			for j := range items[0] {
				it := &items[0][j]
				k := slices.IndexFunc(items[1], func(x spec.CommandItem) bool { return x.Name == it.Name })
				switch {
				case k >= 0:
					it.Description.Zh = items[1][k].Description.En
				case excusedItem(corr, used, major, e.Name, it.Name):
				default:
					fail("the translation lacks %s", it.Name)
				}
			}
			for _, x := range items[1] {
				if !hasItem(items[0], x.Name) {
					fail("the translation adds %s", x.Name)
				}
			}
		}
		var listed []*spec.ResultSet
		for j := range e.Results {
			if !e.Results[j].Prose {
				listed = append(listed, &e.Results[j])
			}
		}
		if len(listed) != len(z.Results) {
			fail("%d result sets, English has %d", len(z.Results), len(listed))
			continue
		}
		for j, er := range listed {
			zr := &z.Results[j]
			er.Lead.Zh = zr.Lead.En
			if len(er.Columns) != len(zr.Columns) {
				fail("result set %d: %d columns, English has %d", j+1, len(zr.Columns), len(er.Columns))
				continue
			}
			for k := range er.Columns {
				if er.Columns[k].Name != zr.Columns[k].Name || er.Columns[k].Type != zr.Columns[k].Type {
					fail("result set %d column %d: %s (%s), English has %s (%s)", j+1, k+1, zr.Columns[k].Name, zr.Columns[k].Type, er.Columns[k].Name, er.Columns[k].Type)
					continue
				}
				er.Columns[k].Description.Zh = zr.Columns[k].Description.En
			}
		}
	}
	return errs
}

// excusedItem says whether a reviewed correction lets the translation of
// major lack the command's item.
func excusedItem(corr *spec.Corrections, used map[*spec.Correction]bool, major int, command, item string) bool {
	for i := range corr.List {
		c := &corr.List[i]
		if c.Lang == "zh" && c.Major == major && c.Kind == spec.CorrMissingItems && c.Message == command && slices.Contains(c.Items, item) {
			used[c] = true
			return true
		}
	}
	return false
}

// pluginOptionsSection is where a page lists pgoutput's parameters: the
// logical replication page's sect2 up to 18, the output plugin page's sect3
// from 19.
var pluginOptionsSection = map[string]string{
	PageLogicalReplication.File: "PROTOCOL-LOGICAL-REPLICATION-PARAMS",
	PageOutputPlugin.File:       "LOGICALDECODING-PGOUTPUT-OPTIONS",
}

// pluginTermRE is a pgoutput parameter term: "proto_version" or, from 19,
// "proto_version (integer)".
var pluginTermRE = regexp.MustCompile(`^([a-z_]+)(?: ?[(（]([a-z]+)[)）])?$`)

// readPluginOptions reads pgoutput's parameters from the page that lists
// them. A page of kind that lists none is an error.
func readPluginOptions(doc *goquery.Document, file string, kind PageKind) ([]spec.PluginOption, error) {
	var out []spec.PluginOption
	var errs []error
	doc.Find("div#" + pluginOptionsSection[kind.File]).Find("div.variablelist").First().Children().First().ChildrenFiltered("dt").Each(func(_ int, dt *goquery.Selection) {
		m := pluginTermRE.FindStringSubmatch(termText(dt))
		if m == nil {
			errs = append(errs, &Error{File: file, Err: fmt.Errorf("pgoutput parameter term %q: want a name and an optional (type)", termText(dt))})
			return
		}
		o := spec.PluginOption{Name: m[1], Type: m[2], Description: spec.Text{En: clean(dt.Next().Text())}, Page: kind.File}
		o.Anchor, _ = dt.Attr("id")
		out = append(out, o)
	})
	if len(out) == 0 {
		errs = append(errs, &Error{File: file, Err: fmt.Errorf("no pgoutput parameters in section %s", pluginOptionsSection[kind.File])})
	}
	return out, joinErrs(errs)
}

// pluginOptionsPage is the page that documents pgoutput's parameters in major.
func pluginOptionsPage(major int) PageKind {
	if major >= PageOutputPlugin.Since {
		return PageOutputPlugin
	}
	return PageLogicalReplication
}

// alignPluginOptions gives the English parameters their Chinese text, in
// the same order with the same names.
func alignPluginOptions(file string, en, zh []spec.PluginOption) []error {
	if len(en) != len(zh) {
		return []error{&Error{File: file, Err: fmt.Errorf("%d pgoutput parameters, English has %d", len(zh), len(en))}}
	}
	var errs []error
	for i := range en {
		if en[i].Name != zh[i].Name {
			errs = append(errs, &Error{File: file, Row: i + 1, Err: fmt.Errorf("pgoutput parameter %q, English has %q", zh[i].Name, en[i].Name)})
			continue
		}
		en[i].Description.Zh = zh[i].Description.En
	}
	return errs
}
