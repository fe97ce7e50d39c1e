package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/pgspec/pgspec/gen/export"
	"github.com/pgspec/pgspec/internal/atomicfile"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["export"] = command{summary: "write one pg.center JSON record per message and replication command of a major", run: runExport,
		more: "A record is the message seen from --major: every major's text, the snapshot of that major and its comparison " +
			"with --against (default: the major before it). Messages the major does not document get no record."}
}

func runExport(args []string, stdout, stderr io.Writer) int {
	c := newCLI("export", stdout, stderr)
	dir := c.specFlag()
	lang := c.langFlag("`language` of tables, facts and labels: en or zh (the *_zh keys are always Chinese)")
	major := c.Int("major", 0, "the `major` the records are of (default: the newest)")
	against := c.Int("against", 0, "the `major` the comparison's left side is (default: the one before --major)")
	out := c.String("out", "", "`directory` to write <slug>.json into, created if missing (required)")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	if *out == "" {
		return c.usageError("--out DIR is required")
	}
	h, err := readHistory(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	var majors []string
	for _, s := range h.Specs {
		majors = append(majors, fmt.Sprint(s.Major))
	}
	e, err := export.New(h, *lang)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	if *major == 0 {
		*major = h.Specs[len(h.Specs)-1].Major
	}
	for _, m := range []int{*major, *against} {
		if m != 0 && e.Index(m) < 0 {
			return c.usageError("major %d is not in the spec (it has %s)", m, strings.Join(majors, ", "))
		}
	}
	if *against == 0 {
		*against = e.Previous(*major)
	}
	records, err := e.Records(*major, *against)
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
	fmt.Fprintf(stdout, "wrote %d records of %d to %s", len(records), *major, *out)
	switch skipped := len(e.Items) - len(records); skipped {
	case 0:
		fmt.Fprintln(stdout)
	case 1:
		fmt.Fprintf(stdout, " (1 message or command is not documented in %d)\n", *major)
	default:
		fmt.Fprintf(stdout, " (%d messages or commands are not documented in %d)\n", skipped, *major)
	}
	return 0
}
