package main

import (
	"fmt"
	"io"

	"github.com/pgspec/pgspec/gen/export"
	"github.com/pgspec/pgspec/internal/atomicfile"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["export"] = command{summary: "write one pg.center JSON record per message slug", run: runExport}
}

func runExport(args []string, stdout, stderr io.Writer) int {
	c := newCLI("export", stdout, stderr)
	dir := c.specFlag()
	lang := c.langFlag("`language` of tables, facts and labels: en or zh (tables_zh and facts_zh are always Chinese)")
	out := c.String("out", "", "`directory` to write <slug>.json into, created if missing (required)")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	if *out == "" {
		return c.usageError("--out DIR is required")
	}
	specs, layout, err := loadSpec(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	records, err := export.Records(specs, layout, *lang)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	files := map[string][]byte{}
	for _, r := range records {
		if files[r.Item.Slug+".json"], err = spec.Marshal(r); err != nil {
			return c.fail(1, "%s: %v", r.Item.Slug, err)
		}
	}
	if err := atomicfile.WriteFiles(*out, files, 0o644); err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Fprintf(stdout, "wrote %d records to %s\n", len(records), *out)
	return 0
}
