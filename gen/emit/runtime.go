package emit

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"strings"
)

// runtimeSrc is the codec's hand-written runtime (reader, writer, framing,
// errors, params): real Go kept out of this package's build by
// `//go:build ignore`, written beside every generated codec so that it
// needs nothing but the standard library.
//
//go:embed runtime/*.go
var runtimeSrc embed.FS

// runtimePrefix is how every runtime source starts; what follows it is
// copied as is.
const runtimePrefix = "//go:build ignore\n\npackage codec\n"

// runtimeFile is one runtime source: the name it is written under and its
// text after the package clause.
type runtimeFile struct {
	name string
	body []byte
}

// runtimeFiles reads the embedded runtime, in name order.
func runtimeFiles() ([]runtimeFile, error) {
	paths, err := fs.Glob(runtimeSrc, "runtime/*.go")
	if err != nil {
		return nil, err
	}
	var out []runtimeFile
	for _, p := range paths {
		src, err := runtimeSrc.ReadFile(p)
		if err != nil {
			return nil, err
		}
		body, ok := bytes.CutPrefix(src, []byte(runtimePrefix))
		if !ok {
			return nil, fmt.Errorf("gen/emit/%s: must start with %q", p, runtimePrefix)
		}
		out = append(out, runtimeFile{name: strings.TrimSuffix(path.Base(p), ".go") + "_gen.go", body: body})
	}
	return out, nil
}

// addRuntime adds the runtime to out, under the generated header; a
// generated file of the same name is an error.
func addRuntime(o Options, out map[string][]byte) error {
	rt, err := runtimeFiles()
	if err != nil {
		return err
	}
	for _, f := range rt {
		if _, dup := out[f.name]; dup {
			return fmt.Errorf("%s: a message's file has the name of the runtime's", f.name)
		}
		src := append([]byte("// "+strings.Join(o.header(false), "\n// ")+"\n\npackage "+o.pkg()+"\n"), f.body...)
		if out[f.name], err = format.Source(src); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}

// runtimeNames are the top-level names the runtime declares; a generated
// type must not take one.
func runtimeNames() ([]string, error) {
	rt, err := runtimeFiles()
	if err != nil {
		return nil, err
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range rt {
		file, err := parser.ParseFile(fset, f.name, append([]byte("package codec\n"), f.body...), parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
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
		}
	}
	return names, nil
}
