// Command pgspec extracts PostgreSQL's protocol documentation into a
// versioned JSON spec and generates Go codecs and version matrices from it.
//
// Each subcommand lives in its own file and registers itself in commands;
// they are thin wrappers over the gen/... and codec packages.
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
		fmt.Fprintf(stderr, "pgspec: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

// newFlags is a subcommand's flag set: errors are returned, not fatal, and
// usage goes to stderr.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	return fl
}

// parseFlags parses args and requires exactly nargs positional arguments,
// printing usage on error.
func parseFlags(fl *flag.FlagSet, args []string, nargs int) error {
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != nargs {
		fmt.Fprintf(fl.Output(), "pgspec %s: want %d arguments, got %d\n", fl.Name(), nargs, fl.NArg())
		fl.Usage()
		return fmt.Errorf("arguments")
	}
	return nil
}

// specDirFlag is the --spec flag the commands reading the spec share.
func specDirFlag(fl *flag.FlagSet) *string {
	return fl.String("spec", "spec", "spec directory (pgNN.json)")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pgspec <command> [flags]")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
}
