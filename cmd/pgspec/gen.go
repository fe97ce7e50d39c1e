package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pgspec/pgspec/gen/emit"
)

func init() {
	commands["gen"] = command{summary: "generate the codec package from the spec", run: runGen}
}

// runGen renders the codec from the spec and writes it to -out.
func runGen(args []string, stdout, stderr io.Writer) int {
	c := newCLI("gen", stdout, stderr)
	dir := c.specFlag()
	out := c.String("out", "codec", "`directory` of the codec package to write *_gen.go into, created if missing")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	src, err := openSpec(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	files, err := emit.Generate(src.fsys)
	if err != nil {
		return c.fail(1, "%v", src.wrap(err))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return c.fail(1, "%v", err)
	}
	if err := emit.Check(*out, files); err != nil {
		return c.fail(1, "%v", err)
	}
	if err := emit.Write(*out, files); err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Fprintf(stdout, "pgspec gen: %d files in %s\n", len(files), *out)
	return 0
}
