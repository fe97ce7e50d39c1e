package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pgspec/pgspec/gen/export"
	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["export"] = command{"write one pg.center JSON record per message slug", runExport}
}

func runExport(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("export", stderr)
	dir := specDirFlag(fl)
	langFlag := fl.String("lang", "en", "language of tables and facts: en or zh (tables_zh and facts_zh are always Chinese)")
	out := fl.String("out", "", "directory to write <slug>.json into (required)")
	if err := parseFlags(fl, args, 0); err != nil {
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "pgspec export: --out DIR is required")
		return 2
	}
	lang, err := matrix.ParseLang(*langFlag)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec export: %v\n", err)
		return 2
	}
	specs, err := spec.LoadAll(os.DirFS(*dir))
	if err != nil {
		fmt.Fprintf(stderr, "pgspec export: %s: %v\n", *dir, err)
		return 1
	}
	n, err := writeRecords(*dir, *out, specs, lang)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec export: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d records to %s\n", n, *out)
	return 0
}

// writeRecords writes a <slug>.json record per message of specs into out,
// comparisons classified by the layout of the spec directory's overlay, and
// returns how many it wrote.
func writeRecords(specDir, out string, specs []*spec.Spec, lang matrix.Lang) (int, error) {
	layout, err := modelLayout(specDir)
	if err != nil {
		return 0, err
	}
	records, err := export.Records(specs, layout, lang)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	for _, r := range records {
		data, err := spec.Marshal(r)
		if err == nil {
			err = os.WriteFile(filepath.Join(out, r.Item.Slug+".json"), data, 0o644)
		}
		if err != nil {
			return 0, err
		}
	}
	return len(records), nil
}
