package main

import (
	"io"
	"strconv"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["diff"] = command{args: "A B [MESSAGE]", summary: "classify and diff every message and replication command that differs between two majors",
		more: "A and B are majors (14 18); MESSAGE is a slug or a Go type name, or a replication command's slug or name.", run: runDiff}
}

func runDiff(args []string, stdout, stderr io.Writer) int {
	c := newCLI("diff", stdout, stderr)
	dir := c.specFlag()
	lang := c.langFlag("`language`: en or zh")
	pos, code, done := c.parse(args, 2, 3)
	if done {
		return code
	}
	src, all, err := readSpec(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	var specs [2]*spec.Spec
	for i, arg := range pos[:2] {
		major, err := strconv.Atoi(arg)
		if err != nil || major <= 0 {
			return c.usageError("major %q is not a number", arg)
		}
		if specs[i], err = spec.Pick(all, major); err != nil {
			return c.fail(2, "major %d is not in the %s (it has %d to %d)", major, src.where, all[0].Major, all[len(all)-1].Major)
		}
	}
	var slug string
	if len(pos) == 3 {
		slug = commandSlug(all, pos[2])
		if slug != "" && specs[0].FindCommand(slug) == nil && specs[1].FindCommand(slug) == nil {
			return c.fail(2, "%s is in neither %d nor %d", slug, specs[0].Major, specs[1].Major)
		}
	}
	if len(pos) == 3 && slug == "" {
		if slug, code = resolveMessage(c, src, all, pos[2]); code != 0 {
			return code
		}
		if specs[0].Find(slug) == nil && specs[1].Find(slug) == nil {
			return c.fail(2, "%s is in neither %d nor %d", slug, specs[0].Major, specs[1].Major)
		}
	}
	h, err := src.history(specs[:])
	if err != nil {
		return c.fail(1, "%v", err)
	}
	details := h.Diff(slug, *lang)
	if len(details) == 0 {
		_, err = io.WriteString(stdout, matrix.NoDifferences(specs[0].Major, specs[1].Major, *lang)+"\n")
	} else {
		err = matrix.WriteDiff(stdout, details, *lang)
	}
	if err != nil {
		return c.fail(1, "%v", err)
	}
	return 0
}
