package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["list"] = command{summary: "list messages and replication commands, one per line, slug first", run: runList}
	commands["show"] = command{args: "MESSAGE", summary: "print a message's field table, or a replication command, as the manual does",
		more: "MESSAGE is a slug (logical-update) or a Go type name (LogicalUpdate), or a replication command's\nslug (base-backup) or name (BASE_BACKUP). With -resolved, a message's rows as the generator\n" +
			"resolves them: its notation → the Go field and type ← the overlay entry that named it.", run: runShow}
}

// versioned is what list and show share: the spec and the major to read.
type versioned struct {
	dir     *string
	version *int
}

func addVersioned(c *cli) versioned {
	v := versioned{dir: c.specFlag(), version: new(int)}
	c.Func("version", "PostgreSQL `major` (default: the newest released one; a release candidate only when named)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return errors.New("want a major such as 18") // not a release (18.6): the spec holds one release per major
		}
		*v.version = n
		return nil
	})
	return v
}

// load reads the spec and picks the requested major; an unknown major is a
// usage error (exit 2).
func (v versioned) load(c *cli) (*specSource, []*spec.Spec, *spec.Spec, int) {
	src, specs, err := readSpec(*v.dir)
	if err != nil {
		return nil, nil, nil, c.fail(1, "%v", err)
	}
	s, err := spec.Pick(specs, *v.version)
	if err != nil {
		return nil, nil, nil, c.fail(2, "%v", err)
	}
	return src, specs, s, 0
}

func runList(args []string, stdout, stderr io.Writer) int {
	c := newCLI("list", stdout, stderr)
	v := addVersioned(c)
	layer := c.String("layer", "", "only these `layers`, as gen -layers takes them: frontend, logical, replication (or "+strings.Join(spec.Layers, ", ")+"), or "+spec.LayerCommands+", comma-separated")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	src, _, s, code := v.load(c)
	if code != 0 {
		return code
	}
	rules, err := spec.LoadRules(src.fsys)
	if err != nil {
		return c.fail(1, "%v", src.wrap(err))
	}
	layers, withCommands, err := listLayers(rules, *layer)
	if err != nil {
		return c.usageError("%v", err)
	}
	for _, m := range s.Messages {
		if layers == nil && withCommands {
			break
		}
		if layers != nil && !slices.Contains(layers, m.Layer) {
			continue
		}
		dir := m.Direction
		if dir == "" {
			dir = "-"
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\n", m.Slug, m.Name, dir, m.Layer)
	}
	if withCommands || layers == nil {
		for _, cmd := range s.Commands {
			fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\n", cmd.Slug, cmd.Name, cmd.Syntax, spec.LayerCommands)
		}
	}
	return 0
}

// listLayers reads list's -layer: the message layers (nil: all) and whether
// the replication commands are asked for; "commands" alone lists only them.
func listLayers(rules *spec.Rules, s string) (layers []string, commands bool, err error) {
	var rest []string
	for _, name := range strings.Split(s, ",") {
		if strings.TrimSpace(name) == spec.LayerCommands {
			commands = true
			continue
		}
		rest = append(rest, name)
	}
	if commands && len(rest) == 0 {
		return nil, true, nil
	}
	layers, err = model.ParseLayers(rules, strings.Join(rest, ","))
	return layers, commands, err
}

func runShow(args []string, stdout, stderr io.Writer) int {
	c := newCLI("show", stdout, stderr)
	v := addVersioned(c)
	lang := c.langFlag("`language`: en or zh")
	resolved := c.Bool("resolved", false, "print the layout the generator resolves, each row → Go field ← the overlay entry that named it")
	pos, code, done := c.parse(args, 1, 1)
	if done {
		return code
	}
	src, specs, s, code := v.load(c)
	if code != 0 {
		return code
	}
	if *lang == matrix.Chinese && s.ReleaseZh == "" {
		return c.fail(2, "PostgreSQL %d has no Chinese translation", s.Major)
	}
	if slug := commandSlug(specs, pos[0]); slug != "" {
		cmd := s.FindCommand(slug)
		if cmd == nil {
			return c.fail(2, "%s is not in PostgreSQL %d (it is in %s)", slug, s.Major, majorsWith(specs, func(o *spec.Spec) bool { return o.FindCommand(slug) != nil }))
		}
		spec.WriteCommand(stdout, s, cmd, string(*lang))
		return 0
	}
	slug, code := resolveMessage(c, src, specs, pos[0])
	if code != 0 {
		return code
	}
	m := s.Find(slug)
	if m == nil {
		return c.fail(2, "%s is not in PostgreSQL %d (it is in %s)", slug, s.Major, majorsWith(specs, func(o *spec.Spec) bool { return o.Find(slug) != nil }))
	}
	if *resolved {
		return showResolved(c, src, specs, s, slug)
	}
	spec.WriteTable(stdout, s, m, string(*lang))
	ov, err := src.overlay()
	if err != nil {
		return c.fail(1, "%v", err)
	}
	for _, fe := range ov.Corrections(s.Major, slug, m.Rows()) {
		fmt.Fprintf(stdout, "\n    The codec corrects the manual here (spec/overlay.json, %s): %s\n", fe.Name, fe.Reason)
	}
	return 0
}

// showResolved prints the layout of slug in s as the generator resolves it,
// each item with the overlay entry that named it.
func showResolved(c *cli, src *specSource, specs []*spec.Spec, s *spec.Spec, slug string) int {
	ov, err := src.overlay()
	if err != nil {
		return c.fail(1, "%v", err)
	}
	mod, err := model.Build(specs, ov)
	if err != nil {
		return c.fail(1, "%v", src.wrap(err))
	}
	i := slices.IndexFunc(mod.Messages, func(m *model.Message) bool { return m.Slug == slug })
	l := mod.Messages[i].LayoutIn(s.Major) // runShow found slug in s
	fmt.Fprintf(c.stdout, "%s in PostgreSQL %d, as the generator resolves it (row → Go field ← what named it):\n", slug, s.Major)
	fmt.Fprint(c.stdout, l.Describe(func(it *model.Item) string { return namedBy(ov, slug, it) }))
	return 0
}

// namedBy says which overlay entry named an item, by its place in
// spec/overlay.json, or that the generator derived it.
func namedBy(ov *spec.Overlay, slug string, it *model.Item) string {
	me := ov.Messages[slug]
	switch {
	case it.Entry != nil:
		if me != nil {
			if i := slices.Index(me.Fields, it.Entry); i >= 0 {
				return fmt.Sprintf("overlay messages[%q].fields[%d] %q", slug, i, it.Entry.Match)
			}
		}
		return fmt.Sprintf("overlay fields[%d] %q", slices.Index(ov.Fields, it.Entry), it.Entry.Match)
	case it.GroupEntry != nil:
		return fmt.Sprintf("overlay messages[%q].groups[%d] %q", slug, slices.Index(me.Groups, it.GroupEntry), it.GroupEntry.Lead)
	case it.Field == "" || it.Op == model.OpCount:
		return "" // a tag, length, count, constant or a flattened group's value
	}
	return "derived from the manual (pgspec gen -v lists how)"
}

// majorsWith writes the majors whose spec has what has says, "17 and
// later" when they reach the newest (so a new major leaves the message as
// it is).
func majorsWith(specs []*spec.Spec, has func(*spec.Spec) bool) string {
	var in, all []int
	for _, o := range specs {
		all = append(all, o.Major)
		if has(o) {
			in = append(in, o.Major)
		}
	}
	return model.Span(in, all)
}

// commandSlug is the slug of the replication command name names (a slug,
// or the command word BASE_BACKUP: its first form), or "".
func commandSlug(specs []*spec.Spec, name string) string {
	for _, s := range specs {
		for _, c := range s.Commands {
			if c.Slug == name || c.Name == name && !c.Legacy && !strings.HasSuffix(c.Slug, "-logical") {
				return c.Slug
			}
		}
	}
	return ""
}

// resolveMessage turns what the user typed (a slug or a Go type name) into
// a slug, suggesting the nearest ones when it names nothing.
func resolveMessage(c *cli, src *specSource, specs []*spec.Spec, name string) (string, int) {
	ov, err := src.overlay()
	if err != nil {
		return "", c.fail(1, "%v", err)
	}
	slug, err := spec.Resolve(specs, model.MessageNames(specs, ov), name)
	if err != nil {
		return "", c.fail(2, "%v", err)
	}
	return slug, 0
}
