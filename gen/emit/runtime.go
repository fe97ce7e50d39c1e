package emit

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"strings"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// runtimeSrc is the codec's hand-written runtime (reader, writer, framing,
// errors, params): real Go, and one assembly file, kept out of this
// package's build by `//go:build ignore`, written beside every generated
// codec so that it needs nothing but the standard library.
//
//go:embed runtime/*.go runtime/*.s runtime/commands/*.go
var runtimeSrc embed.FS

// commandsRuntime is the runtime of the commands layer (runtime/commands):
// written only into codecs that hold replication commands.
const commandsRuntime = "runtime/commands/*.go"

// runtimePrefix is how every runtime source starts; what follows it is
// copied as is. A file for some builds only (putstr_amd64.s and its Go
// declaration, putstr_other.go) starts "//go:build ignore && EXPR"
// instead, and its copy "//go:build EXPR"; an assembly file has no package
// clause.
const runtimePrefix = "//go:build ignore\n\npackage codec\n"

// runtimeFile is one runtime source: the name it is written under, its
// text after the package clause, and the flow machines it needs (a
// "//pgspec:machines a,b" line after the package clause; "any": one at
// least), without which it is left out.
type runtimeFile struct {
	name     string
	build    string // the build constraint of the copy, if any
	body     []byte
	machines []string
}

// asm reports whether f is assembly, not Go.
func (f runtimeFile) asm() bool { return strings.HasSuffix(f.name, ".s") }

// machinesMark starts the line naming the machines a runtime file needs.
const machinesMark = "\n//pgspec:machines "

// wanted reports whether the file belongs in a codec whose flow has the
// named machines.
func (f runtimeFile) wanted(have func(string) bool, any bool) bool {
	for _, m := range f.machines {
		if m == "any" && !any || m != "any" && !have(m) {
			return false
		}
	}
	return true
}

// runtimeFiles reads the embedded runtime, in name order, with the
// commands layer's when commands is set.
func runtimeFiles(commands bool) ([]runtimeFile, error) {
	paths, err := fs.Glob(runtimeSrc, "runtime/*.go")
	if err != nil {
		return nil, err
	}
	asm, err := fs.Glob(runtimeSrc, "runtime/*.s")
	if err != nil {
		return nil, err
	}
	paths = append(paths, asm...)
	if commands {
		more, err := fs.Glob(runtimeSrc, commandsRuntime)
		if err != nil {
			return nil, err
		}
		paths = append(paths, more...)
	}
	var out []runtimeFile
	for _, p := range paths {
		src, err := runtimeSrc.ReadFile(p)
		if err != nil {
			return nil, err
		}
		ext := path.Ext(p)
		f := runtimeFile{name: strings.TrimSuffix(path.Base(p), ext) + "_gen" + ext}
		if f.body, f.build, err = cutPrefix(p, src, f.asm()); err != nil {
			return nil, err
		}
		if rest, ok := bytes.CutPrefix(f.body, []byte(machinesMark)); ok {
			line, after, _ := bytes.Cut(rest, []byte("\n"))
			f.machines, f.body = strings.Split(string(line), ","), after
		}
		out = append(out, f)
	}
	return out, nil
}

// cutPrefix returns what follows the runtime file p's runtimePrefix, and
// the build constraint its first line gives the copy.
func cutPrefix(p string, src []byte, asm bool) (body []byte, build string, err error) {
	line, rest, _ := bytes.Cut(src, []byte("\n"))
	if expr, ok := bytes.CutPrefix(line, []byte("//go:build ignore && ")); ok {
		x, err := constraint.Parse("//go:build " + string(expr))
		if err != nil {
			return nil, "", fmt.Errorf("gen/emit/%s: %w", p, err)
		}
		build, line = x.String(), []byte("//go:build ignore")
	}
	prefix := runtimePrefix
	if asm {
		prefix, _, _ = strings.Cut(runtimePrefix, "package")
	}
	body, ok := bytes.CutPrefix(append(append(line, '\n'), rest...), []byte(prefix))
	if !ok {
		return nil, "", fmt.Errorf("gen/emit/%s: must start with %q", p, prefix)
	}
	return body, build, nil
}

// Features of a selection that runtime lines may depend on: a line
// "// pgspec:if FEATURE" starts lines that are written only when the
// selection has FEATURE, up to "// pgspec:end", so that the runtime's
// documentation speaks only of what the package holds.
const (
	// featureFrontend: the frontend/backend layer (startup messages,
	// tagged messages, the Backend and Frontend dispatchers).
	featureFrontend = "frontend-backend"
	// featureProtocol32: a layout that depends on Params.ProtocolMinor.
	featureProtocol32 = "protocol-3.2"
	// featureMessage+SLUG: the message of that slug ("message:gssenc-response",
	// PostgreSQL 12 on), for runtime code that names it.
	featureMessage = "message:"
	// featureCommands: the replication commands layer (ParseCommand).
	featureCommands = "commands"
	// featureMachine+NAME: the tracker of that flow machine
	// ("machine:logical": the LogicalTracker).
	featureMachine = "machine:"
)

// runtimeFeatures are the features the model has.
func runtimeFeatures(mod *model.Model) map[string]bool {
	f := map[string]bool{}
	for _, m := range mod.Messages {
		f[featureFrontend] = f[featureFrontend] || m.Layer == spec.LayerFrontendBackend
		f[featureMessage+m.Slug] = true
		for _, l := range m.Layouts {
			for _, it := range l.Items {
				f[featureProtocol32] = f[featureProtocol32] || len(it.Lengths) > 1
			}
		}
	}
	f[featureCommands] = len(mod.Commands) > 0
	if mod.Flow != nil {
		for _, m := range mod.Flow.Machines {
			f[featureMachine+m.Name] = true
		}
	}
	return f
}

// hasFeature reports whether the selection has feature; "no-FEATURE" is
// its absence, "A|B" either.
func hasFeature(features map[string]bool, feature string) bool {
	for alt := range strings.SplitSeq(feature, "|") {
		if not, ok := strings.CutPrefix(alt, "no-"); ok && !features[not] || !ok && features[alt] {
			return true
		}
	}
	return false
}

// cutFeatures drops the lines between "// pgspec:if FEATURE" and
// "// pgspec:end" when the selection lacks FEATURE, and the marker lines.
func cutFeatures(name string, body []byte, features map[string]bool) ([]byte, error) {
	var out []byte
	keep, in := true, false
	for _, line := range bytes.SplitAfter(body, []byte("\n")) {
		t := strings.TrimSpace(string(line))
		switch {
		case strings.HasPrefix(t, "// pgspec:if "):
			if in {
				return nil, fmt.Errorf("gen/emit/runtime/%s: // pgspec:if inside another", name)
			}
			in, keep = true, hasFeature(features, strings.TrimPrefix(t, "// pgspec:if "))
			continue
		case t == "// pgspec:end":
			if !in {
				return nil, fmt.Errorf("gen/emit/runtime/%s: // pgspec:end without // pgspec:if", name)
			}
			in, keep = false, true
			continue
		}
		if keep {
			out = append(out, line...)
		}
	}
	if in {
		return nil, fmt.Errorf("gen/emit/runtime/%s: // pgspec:if without // pgspec:end", name)
	}
	return out, nil
}

// codecRuntime is the runtime a codec gets: the commands layer's only
// when it has commands, the trackers of the machines fl has, each file's
// lines cut to the features the codec has.
func codecRuntime(features map[string]bool, fl *model.Flow, commands bool) ([]runtimeFile, error) {
	rt, err := runtimeFiles(commands)
	if err != nil {
		return nil, err
	}
	have := func(name string) bool { return fl != nil && machine(fl, name) != nil }
	var out []runtimeFile
	for _, f := range rt {
		if !f.wanted(have, fl != nil && len(fl.Machines) > 0) {
			continue
		}
		if f.body, err = cutFeatures(f.name, f.body, features); err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(f.body)) == 0 {
			continue // every line is for features the selection lacks
		}
		out = append(out, f)
	}
	return out, nil
}

// addRuntime adds the codec's runtime rt (codecRuntime) to out, under the
// generated header; a generated file of the same name is an error.
func addRuntime(o Options, rt []runtimeFile, out map[string][]byte) error {
	var err error
	for _, f := range rt {
		if _, dup := out[f.name]; dup {
			return fmt.Errorf("%s: a message's file has the name of the runtime's", f.name)
		}
		src := []byte("// " + strings.Join(o.header(false), "\n// ") + "\n\n")
		if f.build != "" {
			src = append(src, "//go:build "+f.build+"\n\n"...)
		}
		if f.asm() {
			out[f.name] = append(src, f.body...)
			continue
		}
		src = append(append(src, "package "+o.pkg()+"\n"...), f.body...)
		if out[f.name], err = format.Source(src); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}

// runtimeDecls calls fn with each declaration of the runtime files rt.
func runtimeDecls(rt []runtimeFile, fn func(ast.Decl)) error {
	fset := token.NewFileSet()
	for _, f := range rt {
		if f.asm() {
			continue
		}
		file, err := parser.ParseFile(fset, f.name, append([]byte("package codec\n"), f.body...), parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range file.Decls {
			fn(d)
		}
	}
	return nil
}

// runtimeNames are the top-level names the runtime declares; a generated
// type must not take one.
func runtimeNames() ([]string, error) {
	rt, err := runtimeFiles(true)
	if err != nil {
		return nil, err
	}
	var names []string
	err = runtimeDecls(rt, func(d ast.Decl) {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	})
	return names, err
}
