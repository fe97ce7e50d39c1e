package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["list"] = command{"list messages, one per line, slug first", runList}
	commands["show"] = command{"print a message's field table as the manual does", runShow}
}

// specFlags are the flags list and show share.
type specFlags struct {
	dir     *string
	version *int
}

func addSpecFlags(fl *flag.FlagSet) specFlags {
	return specFlags{
		dir:     specDirFlag(fl),
		version: fl.Int("version", 0, "PostgreSQL major (default: newest in the spec)"),
	}
}

// load reads the spec set and picks the requested major; errors are usage
// errors (exit 2) when the major is unknown.
func (f specFlags) load(stderr io.Writer) ([]*spec.Spec, *spec.Spec, int) {
	specs, err := spec.LoadAll(os.DirFS(*f.dir))
	if err != nil {
		fmt.Fprintf(stderr, "pgspec: %s: %v\n", *f.dir, err)
		return nil, nil, 1
	}
	if *f.version == 0 {
		return specs, specs[len(specs)-1], 0
	}
	for _, s := range specs {
		if s.Major == *f.version {
			return specs, s, 0
		}
	}
	fmt.Fprintf(stderr, "pgspec: unknown version %d (the spec has %d to %d)\n", *f.version, specs[0].Major, specs[len(specs)-1].Major)
	return nil, nil, 2
}

func runList(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("list", stderr)
	sf := addSpecFlags(fl)
	layer := fl.String("layer", "", "only this layer: "+strings.Join(spec.Layers, ", "))
	if err := parseFlags(fl, args, 0); err != nil {
		return 2
	}
	if *layer != "" && !slices.Contains(spec.Layers, *layer) {
		fmt.Fprintf(stderr, "pgspec list: unknown layer %q (want one of %s)\n", *layer, strings.Join(spec.Layers, ", "))
		return 2
	}
	_, s, code := sf.load(stderr)
	if code != 0 {
		return code
	}
	for _, m := range s.Messages {
		if *layer != "" && m.Layer != *layer {
			continue
		}
		dir := m.Direction
		if dir == "" {
			dir = "-"
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\n", m.Slug, m.Name, dir, m.Layer)
	}
	return 0
}

func runShow(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("show", stderr)
	sf := addSpecFlags(fl)
	langFlag := fl.String("lang", "en", "language: en or zh")
	if err := parseFlags(fl, args, 1); err != nil {
		return 2
	}
	lang, err := matrix.ParseLang(*langFlag)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec show: %v\n", err)
		return 2
	}
	specs, s, code := sf.load(stderr)
	if code != 0 {
		return code
	}
	slug := fl.Arg(0)
	m := s.Find(slug)
	if m == nil {
		var in []string
		for _, o := range specs {
			if o.Find(slug) != nil {
				in = append(in, fmt.Sprint(o.Major))
			}
		}
		if len(in) > 0 {
			fmt.Fprintf(stderr, "pgspec show: %s is not in PostgreSQL %d (it is in %s)\n", slug, s.Major, strings.Join(in, ", "))
		} else {
			fmt.Fprintf(stderr, "pgspec show: unknown message %q (see pgspec list)\n", slug)
		}
		return 2
	}
	if lang == matrix.Chinese && s.ReleaseZh == "" {
		fmt.Fprintf(stderr, "pgspec show: PostgreSQL %d has no Chinese translation\n", s.Major)
		return 2
	}
	spec.WriteTable(stdout, s, m, string(lang))
	return 0
}
