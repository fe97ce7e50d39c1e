package main

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

// specSource is where a command reads the spec: the copy built into the
// program, or a working copy named by --spec. Its errors say which.
type specSource struct {
	fsys  fs.FS
	where string
}

// specFlag adds --spec to a command that reads the spec.
func (c *cli) specFlag() *string {
	return c.String("spec", "", "read the spec (pgNN.json, overlay.json, …) from this `directory` instead of the copy built into pgspec")
}

// openSpec returns the built-in spec for "", else the directory dir, which
// must exist and be readable.
func openSpec(dir string) (*specSource, error) {
	if dir == "" {
		return &specSource{spec.Embedded(), "built-in spec"}, nil
	}
	if _, err := os.ReadDir(dir); err != nil {
		return nil, fmt.Errorf("--spec %s: %w", dir, unwrapPath(err))
	}
	return &specSource{os.DirFS(dir), "spec " + dir}, nil
}

// unwrapPath drops the path an *fs.PathError repeats, which the caller names.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func (s *specSource) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", s.where, err)
}

func (s *specSource) all() ([]*spec.Spec, error) {
	specs, err := spec.LoadAll(s.fsys)
	return specs, s.wrap(err)
}

func (s *specSource) overlay() (*spec.Overlay, error) {
	ov, err := spec.LoadOverlay(s.fsys)
	return ov, s.wrap(err)
}

// layout is the generator's layout under the source's overlay: the notion
// of wire change matrix, diff and export share.
func (s *specSource) layout() (matrix.LayoutFunc, error) {
	ov, err := s.overlay()
	if err != nil {
		return nil, err
	}
	return matrix.ModelLayout(ov), nil
}

// readSpec opens the spec --spec names and reads every major in it: the
// prologue of every command that works on the whole spec.
func readSpec(dir string) (*specSource, []*spec.Spec, error) {
	src, err := openSpec(dir)
	if err != nil {
		return nil, nil, err
	}
	specs, err := src.all()
	return src, specs, err
}

// readHistory reads every major and compares them, with the model and
// its flow rules: what the commands that render the whole matrix start from.
func readHistory(dir string) (*matrix.History, error) {
	src, err := openSpec(dir)
	if err != nil {
		return nil, err
	}
	h, err := matrix.Load(src.fsys)
	return h, src.wrap(err)
}

// history compares specs with the source's layout.
func (s *specSource) history(specs []*spec.Spec) (*matrix.History, error) {
	layout, err := s.layout()
	if err != nil {
		return nil, err
	}
	return matrix.Build(specs, layout)
}

// langFlag adds --lang (default English). The value is parsed as flags are,
// so an unknown language is a usage error like any other bad flag.
func (c *cli) langFlag(usage string) *matrix.Lang {
	lang := matrix.English
	c.Var(langValue{&lang}, "lang", usage)
	return &lang
}

// langValue is a matrix.Lang as a flag.Value.
type langValue struct{ lang *matrix.Lang }

func (v langValue) String() string {
	if v.lang == nil {
		return ""
	}
	return string(*v.lang)
}

func (v langValue) Set(s string) error {
	lang, err := matrix.ParseLang(s)
	if err == nil {
		*v.lang = lang
	}
	return err
}
