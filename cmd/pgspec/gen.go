package main

import (
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pgspec/pgspec/gen/emit"
	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["gen"] = command{summary: "generate a self-contained codec package from the spec", run: runGen,
		more: "In a package of your module, after go get -tool github.com/pgspec/pgspec/cmd/pgspec:\n" +
			"  //go:generate go tool pgspec gen -majors 14-18 -layers logical,replication"}
}

// runGen renders the codec -majors, -layers and -messages select from the
// spec into the package in -out (by default the one go generate runs in).
func runGen(args []string, stdout, stderr io.Writer) (code int) {
	c := newCLI("gen", stdout, stderr)
	dir := c.specFlag()
	out := c.String("out", ".", "`directory` of the package to write *_gen.go into, created if missing")
	pkg := c.String("package", "", "package `name` (default: the package in -out, else $GOPACKAGE when -out is where go generate runs, else -out's base name)")
	majors := c.String("majors", "", "the PostgreSQL `majors` to generate: majors and ranges such as 14-18 or 10,12-13 (default: all in the spec)")
	layers := c.String("layers", "", "the `layers` to generate: frontend, logical, replication, comma-separated (default: all)")
	verbose := c.Bool("v", false, "list every default derived from the manual, not only those that differ from the pinned list")
	messages := c.String("messages", "", "the `messages` to generate: slugs, Go names or globs, comma-separated (default: all); the parts they carry come along")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	var sel model.Selection
	var err error
	if *majors != "" {
		if sel.Majors, err = model.ParseMajors(*majors); err != nil {
			return c.usageError("-majors: %v", err)
		}
	}
	src, err := openSpec(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	if sel.Messages, code = messagePatterns(c, src, *messages); code != 0 {
		return code
	}
	full, err := emit.Load(src.fsys)
	if err != nil {
		return c.fail(1, "%v", src.wrap(err))
	}
	if *layers != "" {
		if sel.Layers, err = model.ParseLayers(full.Rules, *layers); err != nil {
			return c.usageError("-layers: %v", err)
		}
	}
	mod, err := full.Select(sel)
	if err != nil {
		return c.usageError("%v", err)
	}
	created, err := mkdirAll(*out)
	if created != "" {
		defer func() {
			if code != 0 {
				os.RemoveAll(created)
			}
		}()
	}
	if err != nil {
		return c.fail(1, "%v", err)
	}
	asked := *pkg
	if asked == "" && sameDir(*out, ".") {
		// A go:generate line in an external test file runs with
		// GOPACKAGE=x_test; *_gen.go files can only join x.
		asked = strings.TrimSuffix(os.Getenv("GOPACKAGE"), "_test")
	}
	found, err := emit.PackageName(*out)
	if err != nil {
		return c.fail(1, "-out: %v", err)
	}
	name, err := packageName(*out, found, asked)
	if err != nil {
		return c.usageError("%v", err)
	}
	o := emit.Options{Package: name, Version: version(), Command: strings.TrimSpace("pgspec gen " + sel.Flags(full.Rules))}
	files, err := emit.Files(mod, o)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	if err := emit.Check(*out, o, files); err != nil {
		return c.fail(1, "%v", err)
	}
	if err := emit.Write(*out, files, goGenerateReadsLater(*out)); err != nil {
		return c.fail(1, "%v", err)
	}
	noun := "messages"
	if len(mod.Messages) == 1 {
		noun = "message"
	}
	fmt.Fprintf(stdout, "pgspec gen: package %s in %s: %d %s of PostgreSQL %s, %d files\n", name, *out, len(mod.Messages), noun, model.MajorList(mod.Majors), len(files))
	printDefaults(stdout, mod, *verbose)
	return 0
}

// printDefaults says what the generator derived from the manual for the
// selection (spec/overlay.json decides the rest): every derivation with
// verbose, else only those that differ from the pinned list of the
// committed spec, the ones a person must review.
func printDefaults(w io.Writer, mod *model.Model, verbose bool) {
	if verbose {
		fmt.Fprintf(w, "pgspec gen: %d defaults derived from the manual (spec/overlay.json decides the rest):\n", len(mod.Defaults))
		for _, d := range mod.Defaults {
			fmt.Fprintf(w, "  %s\n", d.Text)
		}
		return
	}
	added, removed := mod.DiffPinned()
	if len(added)+len(removed) == 0 {
		fmt.Fprintf(w, "pgspec gen: %d defaults derived from the manual, all as pinned (-v lists them)\n", len(mod.Defaults))
		return
	}
	fmt.Fprintf(w, "pgspec gen: %d defaults derived from the manual; %d differ from the pinned list of the committed spec (-v lists all):\n", len(mod.Defaults), len(added)+len(removed))
	for _, d := range added {
		fmt.Fprintf(w, "  + %s\n", d.Text)
	}
	for _, r := range removed {
		fmt.Fprintf(w, "  - %s\n", r)
	}
}

// messagePatterns splits -messages; a name that is no glob is resolved as
// show resolves one (slug, Go name or the manual's name, any case), so a
// typo gets the nearest slugs.
func messagePatterns(c *cli, src *specSource, list string) ([]string, int) {
	var out []string
	var specs []*spec.Spec
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if strings.ContainsAny(name, "*?[\\") {
			out = append(out, name)
			continue
		}
		if specs == nil {
			var err error
			if specs, err = src.all(); err != nil {
				return nil, c.fail(1, "%v", err)
			}
		}
		slug, code := resolveMessage(c, src, specs, name)
		if code != 0 {
			return nil, code
		}
		out = append(out, slug)
	}
	return out, 0
}

// mkdirAll creates dir and the parents it lacks; created is the topmost
// directory it made ("" if dir was there), which a failed run removes.
func mkdirAll(dir string) (created string, err error) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		created = d
	}
	return created, os.MkdirAll(dir, 0o755)
}

// goGenerateReadsLater is, under go generate in dir, which file names go
// generate has yet to read: it lists the package's files before running
// the directive in $GOFILE and reads them in order, non-test files first,
// so a file removed now that sorts after $GOFILE would fail it. nil when
// go generate is not running in dir.
func goGenerateReadsLater(dir string) func(name string) bool {
	file := os.Getenv("GOFILE")
	if file == "" || !sameDir(dir, ".") || strings.HasSuffix(file, "_test.go") {
		return nil
	}
	return func(name string) bool { return name > file }
}

// sameDir reports whether a and b name the same directory: $GOPACKAGE is
// the package of the directory go generate runs in, not of another -out.
func sameDir(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// packageName is the package to generate into dir: found, the one dir
// holds, which asked (-package, or $GOPACKAGE for go generate's own
// directory) must agree with; when dir has no Go files yet, asked, else
// dir's base name.
func packageName(dir, found, asked string) (string, error) {
	switch {
	case found != "" && asked != "" && asked != found:
		return "", fmt.Errorf("-package %s, but %s holds package %s", asked, dir, found)
	case found != "":
		return found, nil
	case asked != "":
		if !token.IsIdentifier(asked) {
			return "", fmt.Errorf("-package %q is not a Go identifier", asked)
		}
		return asked, nil
	}
	abs, err := filepath.Abs(dir)
	if base := filepath.Base(abs); err == nil && token.IsIdentifier(base) {
		return base, nil
	}
	return "", fmt.Errorf("%s holds no Go package yet and its name is no Go identifier: name one with -package", dir)
}
