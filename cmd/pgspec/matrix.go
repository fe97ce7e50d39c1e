package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["matrix"] = command{"render the version-difference matrix (Markdown, JSON or an HTML page)", runMatrix}
}

func runMatrix(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("matrix", stderr)
	dir := specDirFlag(fl)
	langFlag := fl.String("lang", "en", "language: en or zh (the HTML page holds both and opens in this one)")
	format := fl.String("format", "md", "output format: md, json or html")
	out := fl.String("out", "", "write to this file instead of standard output")
	if err := parseFlags(fl, args, 0); err != nil {
		return 2
	}
	lang, err := matrix.ParseLang(*langFlag)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec matrix: %v\n", err)
		return 2
	}
	render, ok := renderers[*format]
	if !ok {
		fmt.Fprintf(stderr, "pgspec matrix: unknown format %q (want md, json or html)\n", *format)
		return 2
	}
	specs, err := spec.LoadAll(os.DirFS(*dir))
	if err != nil {
		fmt.Fprintf(stderr, "pgspec matrix: %s: %v\n", *dir, err)
		return 1
	}
	h, err := buildHistory(*dir, specs)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec matrix: %v\n", err)
		return 1
	}
	data, err := render(h, lang)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec matrix: %v\n", err)
		return 1
	}
	return writeOutput(*out, data, stdout, stderr)
}

// renderers are the matrix's output formats.
var renderers = map[string]func(*matrix.History, matrix.Lang) ([]byte, error){
	"md":   func(h *matrix.History, l matrix.Lang) ([]byte, error) { return h.Markdown(l), nil },
	"json": (*matrix.History).JSON,
	"html": (*matrix.History).HTML,
}

// modelLayout is the generator's layout under the overlay in the spec
// directory: the notion of wire change matrix, diff and export share.
func modelLayout(dir string) (matrix.LayoutFunc, error) {
	ov, err := model.LoadOverlay(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return matrix.ModelLayout(ov), nil
}

// buildHistory compares specs with the layout of the spec directory's overlay.
func buildHistory(dir string, specs []*spec.Spec) (*matrix.History, error) {
	layout, err := modelLayout(dir)
	if err != nil {
		return nil, err
	}
	return matrix.Build(specs, layout)
}

// writeOutput writes data to the file named out, or to stdout when out is empty.
func writeOutput(out string, data []byte, stdout, stderr io.Writer) int {
	var err error
	if out == "" {
		_, err = stdout.Write(data)
	} else {
		err = os.WriteFile(out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pgspec: %v\n", err)
		return 1
	}
	return 0
}
