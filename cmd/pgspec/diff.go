package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["diff"] = command{"classify and diff every message that differs between two majors", runDiff}
}

func runDiff(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("diff", stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: pgspec diff A B [SLUG] [--lang en|zh] [--spec DIR]")
		fl.PrintDefaults()
	}
	dir := specDirFlag(fl)
	langFlag := fl.String("lang", "en", "language: en or zh")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return 2
	}
	if len(pos) < 2 || len(pos) > 3 {
		fmt.Fprintf(stderr, "pgspec diff: want 2 or 3 arguments, got %d\n", len(pos))
		fl.Usage()
		return 2
	}
	lang, err := matrix.ParseLang(*langFlag)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec diff: %v\n", err)
		return 2
	}
	var specs [2]*spec.Spec
	for i, arg := range pos[:2] {
		major, err := strconv.Atoi(arg)
		if err != nil {
			fmt.Fprintf(stderr, "pgspec diff: major %q is not a number\n", arg)
			return 2
		}
		specs[i], err = spec.Load(os.DirFS(*dir), major)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "pgspec diff: major %d is not in the spec (no %s in %s)\n", major, spec.FileName(major), *dir)
			return 2
		}
		if err != nil {
			fmt.Fprintf(stderr, "pgspec diff: %s: %v\n", *dir, err)
			return 1
		}
	}
	var slug string
	if len(pos) == 3 {
		slug = pos[2]
		if specs[0].Find(slug) == nil && specs[1].Find(slug) == nil {
			fmt.Fprintf(stderr, "pgspec diff: unknown message %q in %d and %d (see pgspec list)\n", slug, specs[0].Major, specs[1].Major)
			return 2
		}
	}
	h, err := buildHistory(*dir, specs[:])
	if err != nil {
		fmt.Fprintf(stderr, "pgspec diff: %v\n", err)
		return 1
	}
	details := h.Diff(slug, lang)
	if len(details) == 0 {
		fmt.Fprintln(stdout, matrix.NoDifferences(specs[0].Major, specs[1].Major, lang))
		return 0
	}
	if err := matrix.WriteDiff(stdout, details, lang); err != nil {
		fmt.Fprintf(stderr, "pgspec diff: %v\n", err)
		return 1
	}
	return 0
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments ("pgspec diff 14 15 --lang zh") and returns the latter.
func parseInterleaved(fl *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		if fl.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fl.Arg(0))
		args = fl.Args()[1:]
	}
}
