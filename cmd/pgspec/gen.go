package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pgspec/pgspec/gen/emit"
)

func init() {
	commands["gen"] = command{summary: "generate the codec package from the committed spec", run: runGen}
}

// runGen renders the codec from --spec and writes it to --out.
func runGen(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("gen", stderr)
	specDir := fl.String("spec", "spec", "directory holding pgNN.json and overlay.json")
	out := fl.String("out", "codec", "directory of the codec package to write *_gen.go into")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 0 {
		fmt.Fprintf(stderr, "pgspec gen: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "pgspec gen: --out %s is not a directory\n", *out)
		return 2
	}
	files, err := emit.Generate(os.DirFS(*specDir))
	if err != nil {
		fmt.Fprintf(stderr, "pgspec gen: %v\n", err)
		return 1
	}
	if err := emit.Check(*out, files); err != nil {
		fmt.Fprintf(stderr, "pgspec gen: %v\n", err)
		return 1
	}
	if err := emit.Write(*out, files); err != nil {
		fmt.Fprintf(stderr, "pgspec gen: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "pgspec gen: %d files in %s\n", len(files), *out)
	return 0
}
