package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pgspec/pgspec/gen/extract"
	"github.com/pgspec/pgspec/internal/atomicfile"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["extract"] = command{summary: "extract the protocol docs into pgNN.json spec files",
		more: "The corpus is DOCS/{en,zh}/<major>/<page>.html with MANIFEST.md listing every page (pgspec fetch makes one).\n" +
			"Translation corrections come from the built-in spec, or from -spec DIR.", run: runExtract}
}

func runExtract(args []string, stdout, stderr io.Writer) int {
	c := newCLI("extract", stdout, stderr)
	docs := c.String("docs", "../shared/docs", "corpus `directory` (en/, zh/, MANIFEST.md)")
	out := c.String("out", "spec", "`directory` to write pgNN.json into, created if missing")
	dir := c.specFlag()
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	src, err := openSpec(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	cf, err := src.fsys.Open(spec.CorrectionsFile)
	if err != nil {
		return c.fail(1, "%v", src.wrap(err))
	}
	corr, err := spec.ReadCorrections(cf)
	cf.Close()
	if err != nil {
		return c.fail(1, "%v", src.wrap(err))
	}
	if st, err := os.Stat(*docs); err != nil || !st.IsDir() {
		return c.fail(2, "--docs %s: not a directory", *docs)
	}
	specs, err := extract.Extract(os.DirFS(*docs), corr)
	if err != nil {
		return c.fail(1, "%s: %v", *docs, err)
	}
	files := map[string][]byte{}
	fmt.Fprintf(stdout, "%-5s %-4s %8s %6s %11s %8s\n", "major", "lang", "messages", "rows", "annotations", "unparsed")
	for _, s := range specs {
		if files[spec.FileName(s.Major)], err = spec.Marshal(s); err != nil {
			return c.fail(1, "pg%d: %v", s.Major, err)
		}
		for _, cv := range s.Coverage {
			fmt.Fprintf(stdout, "%-5d %-4s %8d %6d %11d %8d\n", s.Major, cv.Lang, cv.Messages, cv.Rows, cv.Annotations, cv.Unparsed)
		}
	}
	if err := atomicfile.WriteFiles(*out, files, 0o644); err != nil {
		return c.fail(1, "%v", err)
	}
	return 0
}
