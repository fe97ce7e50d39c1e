package emit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// maxTypeErrors bounds how many errors Check lists.
const maxTypeErrors = 10

// PackageName is the name of the Go package in dir, found with go/packages
// the way stringer finds the package it generates into; "" when dir holds
// no Go files yet or is outside any module.
func PackageName(dir string) (string, error) {
	if mod, _, err := goEnv(dir); err != nil || !mod {
		return "", err
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles, Dir: dir}, ".")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		return "", fmt.Errorf("%s: %d packages, want 1", dir, len(pkgs))
	}
	p := pkgs[0]
	if len(p.GoFiles)+len(p.IgnoredFiles) == 0 && len(p.Errors) > 0 {
		return "", nil // no Go files: the package is ours to name
	}
	if len(p.Errors) > 0 {
		return "", fmt.Errorf("%s: %v", dir, p.Errors[0])
	}
	return p.Name, nil
}

// Check type-checks the package dir will hold once files are written (its
// other non-test files with files, pgspec's stale *_gen.go left out), with
// go/packages and an overlay, so nothing is written before it passes.
// Outside any module the generated files are checked alone, in a
// throwaway module. A package that does not compile breaks every program
// importing it.
func Check(dir string, o Options, files map[string][]byte) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if mod, version, err := goEnv(abs); err != nil {
		return err
	} else if !mod {
		if abs, err = os.MkdirTemp("", "pgspec-check-"); err != nil {
			return err
		}
		defer os.RemoveAll(abs)
		gomod := "module pgspec.check\n\ngo " + strings.TrimPrefix(version, "go") + "\n"
		if err := os.WriteFile(filepath.Join(abs, "go.mod"), []byte(gomod), 0o644); err != nil {
			return err
		}
	}
	overlay := map[string][]byte{}
	for name, src := range files {
		overlay[filepath.Join(abs, name)] = src
	}
	stale, err := staleFiles(abs, files)
	if err != nil {
		return err
	}
	for _, path := range stale {
		overlay[path] = []byte("package " + o.pkg() + "\n")
		if strings.HasSuffix(path, ".s") {
			overlay[path] = nil
		}
	}
	cfg := &packages.Config{
		Mode:    packages.NeedName | packages.NeedFiles | packages.NeedTypes,
		Dir:     abs,
		Overlay: overlay,
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	// go list compiles the package with the overlay too, and reports the
	// same errors under the overlay's temporary names: the type checker's,
	// under the files' own names, are listed when there are any.
	var errs, listed []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if e.Kind == packages.ListError {
				listed = append(listed, e.Error())
			} else {
				errs = append(errs, e.Error())
			}
		}
	})
	if len(errs) == 0 {
		errs = listed
	}
	if len(errs) == 0 {
		return nil
	}
	if more := len(errs) - maxTypeErrors; more > 0 {
		errs = append(errs[:maxTypeErrors], fmt.Sprintf("and %d more", more))
	}
	// The errors may be in the package's own files: a file that does not
	// compile, or one using what the new selection no longer generates.
	return fmt.Errorf("the package in %s would not compile with the generated files; nothing was written:\n  %s", dir, strings.Join(errs, "\n  "))
}

// goEnv reports whether dir is inside a Go module, and the go command's
// version.
func goEnv(dir string) (inModule bool, version string, err error) {
	cmd := exec.Command("go", "env", "GOMOD", "GOVERSION")
	cmd.Dir = dir
	out, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return false, "", fmt.Errorf("the go command, which loads and type-checks the package in %s, is not on PATH: %w", dir, err)
	}
	if err != nil {
		return false, "", fmt.Errorf("%s: go env: %w", dir, err)
	}
	gomod, version, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return gomod != "" && gomod != os.DevNull, version, nil
}

// genFiles are dir's files with the names of generated ones: *_gen.go,
// and *_gen.s (the runtime's assembly).
func genFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		return nil, err
	}
	asm, err := filepath.Glob(filepath.Join(dir, "*_gen.s"))
	return append(paths, asm...), err
}

// staleFiles are dir's generated files (genFiles) that pgspec wrote (they
// start with its header) and that files no longer holds.
func staleFiles(dir string, files map[string][]byte) ([]string, error) {
	paths, err := genFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, path := range paths {
		if _, keep := files[filepath.Base(path)]; keep {
			continue
		}
		if ours, err := generatedByPgspec(path); err != nil {
			return nil, err
		} else if ours {
			out = append(out, path)
		}
	}
	return out, nil
}

// generatedByPgspec reports whether the file at path starts with the header.
func generatedByPgspec(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	first := make([]byte, len("// "+Header+"\n"))
	n, _ := io.ReadFull(f, first)
	return string(first[:n]) == "// "+Header+"\n", nil
}
