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
	commands["matrix"] = command{"render the version-difference matrix (Markdown or JSON)", runMatrix}
}

func runMatrix(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("matrix", stderr)
	dir := specDirFlag(fl)
	langFlag := fl.String("lang", "en", "language: en or zh")
	format := fl.String("format", "md", "output format: md or json")
	out := fl.String("out", "", "write to this file instead of standard output")
	if err := parseFlags(fl, args, 0); err != nil {
		return 2
	}
	lang, err := matrix.ParseLang(*langFlag)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec matrix: %v\n", err)
		return 2
	}
	if *format != "md" && *format != "json" {
		fmt.Fprintf(stderr, "pgspec matrix: unknown format %q (want md or json)\n", *format)
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
	data := h.Markdown(lang)
	if *format == "json" {
		if data, err = h.JSON(lang); err != nil {
			fmt.Fprintf(stderr, "pgspec matrix: %v\n", err)
			return 1
		}
	}
	return writeOutput(*out, data, stdout, stderr)
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
