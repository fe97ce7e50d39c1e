package main

import (
	"io"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/internal/atomicfile"
)

func init() {
	commands["matrix"] = command{summary: "render the version-difference matrix (Markdown, JSON or an HTML page)", run: runMatrix}
}

func runMatrix(args []string, stdout, stderr io.Writer) int {
	c := newCLI("matrix", stdout, stderr)
	dir := c.specFlag()
	lang := c.langFlag("`language`: en or zh (the HTML page holds both and opens in this one)")
	format := c.String("format", "md", "output format: md, json or html")
	out := c.String("out", "", "write to this `file` (atomically) instead of standard output")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	render, ok := renderers[*format]
	if !ok {
		return c.usageError("unknown format %q (want md, json or html)", *format)
	}
	src, specs, err := readSpec(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	h, err := src.history(specs)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	data, err := render(h, *lang)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	return c.output(*out, data)
}

// renderers are the matrix's output formats.
var renderers = map[string]func(*matrix.History, matrix.Lang) ([]byte, error){
	"md":   func(h *matrix.History, l matrix.Lang) ([]byte, error) { return h.Markdown(l), nil },
	"json": (*matrix.History).JSON,
	"html": (*matrix.History).HTML,
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
