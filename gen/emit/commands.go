package emit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// The commands layer: one <slug>_gen.go per replication command (its type,
// the descriptor Append and Parse read, its result types) and
// commands_gen.go with ParseCommand.

// kindCodes are the runtime's item kinds by model kind.
var kindCodes = map[string]string{
	spec.ValueFlag: "kindFlag", spec.ValueBoolean: "kindBoolean", spec.ValueKeyword: "kindKeyword",
	spec.ValueString: "kindString", spec.ValueInteger: "kindInteger", spec.ValueLSN: "kindLSN",
	spec.ValueTimeline: "kindTimeline", spec.ValueIdentifier: "kindIdentifier", model.ItemPluginOptions: "kindPluginOptions",
}

// itemGoType is the Go type of an item's field.
func itemGoType(kind string) *jen.Statement {
	switch kind {
	case spec.ValueFlag:
		return jen.Bool()
	case spec.ValueBoolean:
		return jen.Op("*").Bool()
	case spec.ValueInteger:
		return jen.Op("*").Int64()
	case spec.ValueLSN:
		return jen.Id("LSN")
	case spec.ValueTimeline:
		return jen.Uint32()
	case model.ItemPluginOptions:
		return jen.Index().Id("PluginOption")
	}
	return jen.String()
}

// itemAccess is how the generated values and setValues carry an item of
// kind: the runtime's constructor of its cmdValue, and the field's value
// from one.
func itemAccess(kind string) (string, func(v *jen.Statement) *jen.Statement) {
	switch kind {
	case spec.ValueFlag:
		return "flagValue", func(v *jen.Statement) *jen.Statement { return v.Dot("b") }
	case spec.ValueBoolean:
		return "boolValue", func(v *jen.Statement) *jen.Statement { return v.Dot("boolPtr").Call() }
	case spec.ValueInteger:
		return "intValue", func(v *jen.Statement) *jen.Statement { return v.Dot("intPtr").Call() }
	case spec.ValueLSN:
		return "lsnValue", func(v *jen.Statement) *jen.Statement { return jen.Id("LSN").Call(v.Dot("n")) }
	case spec.ValueTimeline:
		return "timelineValue", func(v *jen.Statement) *jen.Statement { return jen.Uint32().Call(v.Dot("n")) }
	case model.ItemPluginOptions:
		return "pluginValue", func(v *jen.Statement) *jen.Statement { return v.Dot("opts") }
	}
	return "stringValue", func(v *jen.Statement) *jen.Statement { return v.Dot("s") }
}

func commandFileName(c *model.Command) string {
	return strings.ReplaceAll(c.Slug, "-", "_") + "_gen.go"
}

// commandFile renders one command's file.
func commandFile(mod *model.Model, c *model.Command, o Options) *jen.File {
	f := o.newFile()
	syntax := map[bool][]string{}
	for _, form := range c.Forms {
		syntax[form.Main] = append(syntax[form.Main], fmt.Sprintf("%s in %s", formWords(form), model.Span(form.Majors, mod.Majors)))
	}
	doc := []string{fmt.Sprintf("%s is the replication command %s, PostgreSQL %s: “%s”", c.GoName, c.Name, model.Span(c.Majors, mod.Majors), c.Doc),
		"Synopsis (newest): " + c.Synopsis,
		"Append writes " + strings.Join(syntax[true], "; ") + "."}
	if len(syntax[false]) > 0 {
		doc = append(doc, "Also read, and written when the main syntax cannot hold an option: "+strings.Join(syntax[false], "; ")+".")
	}
	if len(c.Follows) > 0 {
		doc = append(doc, "On success the server answers with "+strings.Join(c.Follows, ", ")+".")
	}
	docComment(f, doc)
	var fields []jen.Code
	for _, it := range c.Items {
		d := fmt.Sprintf("%s is %s (%s, PostgreSQL %s)", it.GoName, it.Name, it.Kind, model.Span(it.Majors, mod.Majors))
		if len(it.Values) > 0 {
			d += ": one of " + strings.Join(it.Values, ", ")
		}
		if it.ExactValues {
			d += ", in lower case when quoted (the server compares as written)"
		}
		if it.BooleanValues {
			d += "; Parse reads any boolean the server takes as yes or no"
		}
		if it.Default != "" {
			d += "; the default is " + it.Default
		}
		d += "."
		if it.Doc != "" {
			d += " " + it.Doc
		}
		fields = append(fields, comment([]string{d})...)
		fields = append(fields, jen.Id(it.GoName).Add(itemGoType(it.Kind)), jen.Line())
	}
	fields = append(fields, jen.Id("spelling").Id("spelling"))
	f.Type().Id(c.GoName).Struct(fields...)
	f.Line()

	descName := lowerFirst(c.GoName) + "Desc"
	// The descriptor: one line per item (in the fields' order, which values
	// and setValues keep), each form as its grammar.
	var items []jen.Code
	for _, it := range c.Items {
		d := []jen.Code{field("name", jen.Lit(it.Name)), field("kind", jen.Id(kindCodes[it.Kind])), field("majors", majorSetCode(it.Majors, mod.Majors))}
		if len(it.Values) > 0 {
			var vs []jen.Code
			for _, v := range it.Values {
				vs = append(vs, jen.Lit(v))
			}
			d = append(d, field("values", jen.Index().String().Values(vs...)))
		}
		if it.ExactValues {
			d = append(d, field("exact", jen.True()))
		}
		if it.BooleanValues {
			d = append(d, field("boolean", jen.True()))
		}
		items = append(items, jen.Values(d...))
	}
	var forms []jen.Code
	for _, form := range c.Forms {
		d := []jen.Code{field("majors", majorSetCode(form.Majors, mod.Majors))}
		if form.Main {
			d = append(d, field("main", jen.True()))
		}
		forms = append(forms, jen.Values(append(d, field("seq", seqCode(form.Seq)))...))
	}
	f.Var().Id(descName).Op("=").Op("&").Id("commandDesc").Values(jen.Dict{
		jen.Id("name"):   jen.Lit(c.Name),
		jen.Id("majors"): majorSetCode(c.Majors, mod.Majors),
		jen.Id("items"):  jen.Index().Id("itemDesc").Custom(multi, items...),
		jen.Id("forms"):  jen.Index().Id("commandForm").Custom(multi, forms...),
	})
	recv := func() *jen.Statement { return jen.Func().Params(jen.Id("c").Op("*").Id(c.GoName)) }
	f.Comment("Append writes the command in the syntax of p.Major's manual.")
	f.Add(recv()).Id("Append").Params(jen.Id("dst").Index().Byte(), jen.Id("p").Id("Params")).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("appendCommand").Call(jen.Id("dst"), jen.Id("c"), jen.Id("p"))))
	f.Comment("String is the command for the newest major, or as parsed while unchanged.")
	f.Add(recv()).Id("String").Params().String().Block(jen.Return(jen.Id("commandString").Call(jen.Id("c"))))
	f.Comment("CommandName is the command word.")
	f.Add(recv()).Id("CommandName").Params().String().Block(jen.Return(jen.Lit(c.Name)))
	f.Comment("Majors is the set of majors whose manual documents the command.")
	f.Add(recv()).Id("Majors").Params().Id("MajorSet").Block(jen.Return(jen.Id(descName).Dot("majors")))
	f.Add(recv()).Id("desc").Params().Op("*").Id("commandDesc").Block(jen.Return(jen.Id(descName)))
	f.Add(recv()).Id("spell").Params().Op("*").Id("spelling").Block(jen.Return(jen.Op("&").Id("c").Dot("spelling")))
	var vals, sets []jen.Code
	for i, it := range c.Items {
		ctor, set := itemAccess(it.Kind)
		vals = append(vals, jen.Id(ctor).Call(jen.Id("c").Dot(it.GoName)))
		sets = append(sets, jen.Id("c").Dot(it.GoName).Op("=").Add(set(jen.Id("v").Index(jen.Lit(i)))))
	}
	f.Add(recv()).Id("values").Params().Index().Id("cmdValue").Block(jen.Return(jen.Index().Id("cmdValue").Custom(multi, vals...)))
	f.Add(recv()).Id("setValues").Params(jen.Id("v").Index().Id("cmdValue")).Block(sets...)
	for i, r := range c.Results {
		// Sets "in the same format" share one type (BASE_BACKUP's start and end).
		if !slices.ContainsFunc(c.Results[:i], func(e *model.ResultSet) bool { return e.GoName == r.GoName }) {
			resultType(f, mod, c, r)
		}
	}
	return f
}

// formWords names a form's syntax for its doc comment.
func formWords(form *model.CommandForm) string {
	var has func([]model.Node) string
	has = func(seq []model.Node) string {
		for _, n := range seq {
			switch n.Op {
			case model.OpList:
				return "the parenthesized option list"
			case model.OpAny:
				return "the options as keywords"
			}
			for _, k := range n.Kids {
				if s := has(k); s != "" {
					return s
				}
			}
		}
		return ""
	}
	if s := has(form.Seq); s != "" {
		return s
	}
	return "its one syntax"
}

// multi lays out a composite literal or a call one element a line.
var multi = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

// field is a key: value element of a one-line composite literal.
func field(key string, v jen.Code) jen.Code { return jen.Id(key).Op(":").Add(v) }

// seqCode writes a form's grammar with the runtime's constructors, so it
// reads like the synopsis: seq(val(0), opt(kw(1, "TEMPORARY")), alt(…)).
// A node with alternatives or any-order parts puts each on a line.
func seqCode(seq []model.Node) jen.Code {
	var nodes []jen.Code
	for _, n := range seq {
		nodes = append(nodes, nodeCode(n))
	}
	return jen.Id("seq").Call(nodes...)
}

func nodeCode(n model.Node) jen.Code {
	kids := func(name string) jen.Code {
		var ks []jen.Code
		for _, k := range n.Kids {
			ks = append(ks, seqCode(k))
		}
		return jen.Id(name).Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, ks...)
	}
	switch n.Op {
	case model.OpLit:
		return jen.Id("lit").Call(jen.Lit(n.Lit))
	case model.OpValue:
		if n.Lit != "" {
			return jen.Id("kw").Call(jen.Lit(n.Item), jen.Lit(n.Lit))
		}
		return jen.Id("val").Call(jen.Lit(n.Item))
	case model.OpOpt:
		var ks []jen.Code
		for _, k := range n.Kids[0] {
			ks = append(ks, nodeCode(k))
		}
		return jen.Id("opt").Call(ks...)
	case model.OpAlt:
		return kids("alt")
	case model.OpAny:
		return kids("anyOf")
	case model.OpList:
		var l []jen.Code
		for _, i := range n.List {
			l = append(l, jen.Lit(i))
		}
		return jen.Id("list").Call(l...)
	case model.OpPlugin:
		return jen.Id("pluginOptions").Call(jen.Lit(n.Item))
	}
	panic("commands: no constructor for node op " + n.Op)
}

// columnGoType is a result column's field type.
func columnGoType(col *model.ResultColumn) *jen.Statement {
	var t *jen.Statement
	switch col.GoKind {
	case "lsn":
		t = jen.Id("LSN")
	case "int64":
		t = jen.Int64()
	case "uint32":
		t = jen.Uint32()
	case "bytes":
		return jen.Index().Byte() // nil is NULL
	default:
		t = jen.String()
	}
	if col.Null {
		return jen.Op("*").Add(t)
	}
	return t
}

var columnReaders = map[string]string{"lsn": "columnLSN", "int64": "columnInt64", "uint32": "columnUint32", "bytes": "columnBytes", "string": "columnString"}

// resultType renders a result set's row type and its reader.
func resultType(f *jen.File, mod *model.Model, c *model.Command, r *model.ResultSet) {
	rows := "one row"
	if r.Rows == spec.RowsMany {
		rows = "one row each"
	}
	doc := []string{fmt.Sprintf("%s is a row of %s's result set (%s; PostgreSQL %s), read by Read%s from its RowDescription and DataRows, by column name.", r.GoName, c.Name, rows, model.Span(r.Majors, mod.Majors), r.GoName)}
	if r.Prose {
		doc = append(doc, "The manual describes it only in prose; the names of its columns are the server's (spec/overlay.json): "+r.Reason)
	}
	docComment(f, doc)
	var fields []jen.Code
	for _, col := range r.Columns {
		d := fmt.Sprintf("%s is the column %s (%s). %s", col.GoName, col.Name, col.Type, col.Doc)
		if col.Null {
			d += " nil is NULL."
		}
		fields = append(fields, comment([]string{d})...)
		fields = append(fields, jen.Id(col.GoName).Add(columnGoType(col)), jen.Line())
	}
	f.Type().Id(r.GoName).Struct(fields...)
	var names []jen.Code
	for _, col := range r.Columns {
		names = append(names, jen.Lit(col.Name))
	}
	colsVar := lowerFirst(r.GoName) + "Columns"
	f.Var().Id(colsVar).Op("=").Index().String().Values(names...)
	docComment(f, []string{fmt.Sprintf("Read%s reads the rows of the result set: the columns must be exactly %s's, by name, in any order; a value that is not its column's type is a *ResultError naming the column and row.", r.GoName, c.Name)})
	var reads []jen.Code
	for i, col := range r.Columns {
		reads = append(reads, jen.Id("rd").Dot(columnReaders[col.GoKind]).Call(jen.Lit(i), jen.Lit(col.Null), jen.Op("&").Id("out").Index(jen.Id("k")).Dot(col.GoName)))
	}
	f.Func().Id("Read"+r.GoName).Params(jen.Id("desc").Op("*").Id("RowDescription"), jen.Id("rows").Index().Op("*").Id("DataRow")).Params(jen.Index().Id(r.GoName), jen.Error()).Block(
		jen.List(jen.Id("rd"), jen.Err()).Op(":=").Id("newResultReader").Call(jen.Lit(c.Name), jen.Id("desc"), jen.Id(colsVar), jen.Lit(r.Rows == spec.RowsMany), jen.Len(jen.Id("rows"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("out").Op(":=").Make(jen.Index().Id(r.GoName), jen.Len(jen.Id("rows"))),
		jen.For(jen.List(jen.Id("k"), jen.Id("row")).Op(":=").Range().Id("rows")).Block(
			append([]jen.Code{jen.Id("rd").Dot("next").Call(jen.Id("k"), jen.Id("row"))}, reads...)...),
		jen.Return(jen.Id("out"), jen.Id("rd").Dot("err")),
	)
}

// commandsFile renders ParseCommand over every generated command.
func commandsFile(mod *model.Model, o Options) *jen.File {
	f := o.newFile()
	var cases, descs []jen.Code
	for i, c := range mod.Commands {
		cases = append(cases, jen.Case(jen.Lit(i)).Block(jen.Return(jen.Op("&").Id(c.GoName).Values())))
		descs = append(descs, jen.Id(lowerFirst(c.GoName)+"Desc"))
	}
	docComment(f, []string{"Commands are a zero value of every replication command of the generated majors, in the manual's order."})
	f.Func().Id("Commands").Params().Index().Id("Command").Block(
		jen.Id("out").Op(":=").Make(jen.Index().Id("Command"), jen.Len(jen.Id("commandDescs"))),
		jen.For(jen.Id("i").Op(":=").Range().Id("out")).Block(jen.Id("out").Index(jen.Id("i")).Op("=").Id("newCommand").Call(jen.Id("i"))),
		jen.Return(jen.Id("out")),
	)
	docComment(f, []string{"commandDescs are the commands' descriptors, in Commands' order: what IsCommand and ParseCommand read without making a command."})
	f.Var().Id("commandDescs").Op("=").Index().Op("*").Id("commandDesc").Values(descs...)
	docComment(f, []string{"newCommand is a zero value of the command commandDescs[i] describes."})
	f.Func().Id("newCommand").Params(jen.Id("i").Int()).Id("Command").Block(jen.Switch(jen.Id("i")).Block(cases...), jen.Return(jen.Nil()))
	docComment(f, []string{
		"ParseCommand reads a replication command (a Query's string on a replication connection) as p.Major's manual documents it, in any of its syntaxes, as repl_scanner.l and repl_gram.y read it: keywords in capitals, as the scanner matches them (identify_system is no replication command: the server runs it as SQL); a parenthesized list's option names and any unquoted word in any case, downcased as the scanner does; identifiers quoted or not; values quoted or not where the grammar allows. The result's String and Append give text back byte for byte while its fields are unchanged. Text that is no command of that major is a *CommandError with the byte offset; an option of another major names the majors that have it.",
	})
	f.Func().Id("ParseCommand").Params(jen.Id("text").String(), jen.Id("p").Id("Params")).Params(jen.Id("Command"), jen.Error()).Block(
		jen.Return(jen.Id("parseCommand").Call(jen.Id("text"), jen.Id("p").Dot("major").Call(), jen.Id("newCommand"))),
	)
	var params []jen.Code
	for _, po := range mod.Pgoutput {
		d := jen.Dict{jen.Id("name"): jen.Lit(po.Name), jen.Id("majors"): majorSetCode(po.Majors, mod.Majors)}
		if po.MinVersion > 0 {
			d[jen.Id("minVersion")] = jen.Lit(po.MinVersion)
		}
		var vals []jen.Code
		for _, v := range po.Values {
			vd := jen.Dict{jen.Id("value"): jen.Lit(v.Value), jen.Id("majors"): majorSetCode(v.Majors, mod.Majors)}
			if v.MinVersion > 0 {
				vd[jen.Id("minVersion")] = jen.Lit(v.MinVersion)
			}
			vals = append(vals, jen.Values(vd))
		}
		if len(vals) > 0 {
			d[jen.Id("values")] = jen.Index().Id("pgoutputValue").Values(vals...)
		}
		params = append(params, jen.Values(d))
	}
	f.Comment("pgoutputParams are pgoutput's parameters as the manuals document them, with the")
	f.Comment("proto_version their prose says each needs, and the majors whose manual is silent")
	f.Comment("about one their server takes (spec/overlay.json's pgoutput entries):")
	var corrected []string
	for _, po := range mod.Pgoutput {
		if len(po.Corrected) > 0 {
			corrected = append(corrected, fmt.Sprintf("%s in %s", po.Name, model.MajorList(po.Corrected)))
		}
	}
	if len(corrected) == 0 {
		corrected = append(corrected, "none")
	}
	f.Comment(strings.Join(corrected, ", ") + ".")
	f.Var().Id("pgoutputParams").Op("=").Index().Id("pgoutputParam").Values(params...)
	var versions []jen.Code
	for _, v := range mod.PgoutputVersions {
		versions = append(versions, jen.Values(jen.Dict{jen.Id("version"): jen.Lit(v.Version), jen.Id("majors"): majorSetCode(v.Majors, mod.Majors)}))
	}
	f.Comment("pgoutputVersions are the proto_versions and the majors whose manual says they support them.")
	f.Var().Id("pgoutputVersions").Op("=").Index().Id("pgoutputVersion").Values(versions...)
	return f
}
