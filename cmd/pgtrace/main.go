// Command pgtrace is a PostgreSQL protocol analyzer built on the generated
// codec: `pgtrace trace` is a transparent proxy that decodes, prints and
// re-encodes every message it forwards, `pgtrace decode` reads the same
// traffic from a pcap or pcapng capture.
//
// It is a command of its own, apart from cmd/pgspec, so that the generator
// never imports the codec it generates.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: it parses its own flags from args and returns
// the process exit status (0 ok, 1 failure, 2 bad arguments).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		return 2
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "pgtrace: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

// newFlags is a subcommand's flag set: errors are returned, not fatal, and
// usage goes to stderr.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fl := flag.NewFlagSet("pgtrace "+name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	return fl
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pgtrace <command> [flags]")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
}
