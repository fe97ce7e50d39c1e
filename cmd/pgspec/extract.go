package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pgspec/pgspec/gen/extract"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["extract"] = command{"extract the protocol docs into spec/pgNN.json", runExtract}
}

func runExtract(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("extract", stderr)
	docs := fl.String("docs", "../shared/docs", "corpus directory (en/, zh/, MANIFEST.md)")
	out := fl.String("out", "spec", "directory to write pgNN.json into")
	corrPath := fl.String("corrections", "spec/corrections.json", "reviewed translation corrections")
	if err := parseFlags(fl, args, 0); err != nil {
		return 2
	}
	cf, err := os.Open(*corrPath)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec extract: %v\n", err)
		return 2
	}
	corr, err := extract.ReadCorrections(cf)
	cf.Close()
	if err != nil {
		fmt.Fprintf(stderr, "pgspec extract: %s: %v\n", *corrPath, err)
		return 1
	}
	if st, err := os.Stat(*docs); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "pgspec extract: --docs %s: not a directory\n", *docs)
		return 2
	}
	specs, err := extract.Extract(os.DirFS(*docs), corr)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec extract: %v\n", err)
		return 1
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "pgspec extract: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%-5s %-4s %8s %6s %11s %8s\n", "major", "lang", "messages", "rows", "annotations", "unparsed")
	for _, s := range specs {
		data, err := spec.Marshal(s)
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, spec.FileName(s.Major)), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "pgspec extract: %v\n", err)
			return 1
		}
		for _, c := range s.Coverage {
			fmt.Fprintf(stdout, "%-5d %-4s %8d %6d %11d %8d\n", s.Major, c.Lang, c.Messages, c.Rows, c.Annotations, c.Unparsed)
		}
	}
	return 0
}
