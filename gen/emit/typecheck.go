package emit

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
)

// maxTypeErrors bounds how many type errors Check lists.
const maxTypeErrors = 10

// Check type-checks the package dir will hold once files are written: the
// generated files with dir's other non-test .go files. A package that does
// not compile breaks every program importing it, so Check refuses to write
// one.
func Check(dir string, files map[string][]byte) error {
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	var parsed []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_gen.go") || strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		parsed = append(parsed, f)
	}
	for _, name := range sortedNames(files) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), files[name], parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		parsed = append(parsed, f)
	}
	var errs []string
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "source", nil),
		Error: func(err error) {
			if len(errs) < maxTypeErrors {
				errs = append(errs, err.Error())
			}
		},
	}
	if _, err := conf.Check(Package, fset, parsed, nil); err != nil {
		return fmt.Errorf("generated code does not compile in %s; nothing was written:\n  %s", dir, strings.Join(errs, "\n  "))
	}
	return nil
}
