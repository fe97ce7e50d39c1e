package main

import (
	"io"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/internal/atomicfile"
)

func init() {
	commands["matrix"] = command{summary: "render the version-difference matrix (Markdown or JSON)", run: runMatrix}
}

func runMatrix(args []string, stdout, stderr io.Writer) int {
	c := newCLI("matrix", stdout, stderr)
	dir := c.specFlag()
	langFlag := c.String("lang", "en", "language: en or zh")
	format := c.String("format", "md", "output format: md or json")
	out := c.String("out", "", "write to this `file` (atomically) instead of standard output")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	lang, err := matrix.ParseLang(*langFlag)
	if err != nil {
		return c.usageError("%v", err)
	}
	if *format != "md" && *format != "json" {
		return c.usageError("unknown format %q (want md or json)", *format)
	}
	src, err := openSpec(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	specs, err := src.all()
	if err != nil {
		return c.fail(1, "%v", err)
	}
	h, err := src.history(specs)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	data := h.Markdown(lang)
	if *format == "json" {
		if data, err = h.JSON(lang); err != nil {
			return c.fail(1, "%v", err)
		}
	}
	return c.output(*out, data)
}

// output writes data to the file named out (atomically), or to standard
// output when out is empty.
func (c *cli) output(out string, data []byte) int {
	var err error
	if out == "" {
		_, err = c.stdout.Write(data)
	} else {
		err = atomicfile.WriteFile(out, data, 0o644)
	}
	if err != nil {
		return c.fail(1, "%v", err)
	}
	return 0
}
