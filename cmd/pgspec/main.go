// Command pgspec extracts PostgreSQL's protocol documentation into a
// versioned JSON spec and generates Go codecs and version matrices from it.
//
// The spec is built into the program (package spec embeds it), so every
// command works from any directory; --spec DIR reads a working copy instead.
// Each subcommand lives in its own file and registers itself in commands;
// they are thin wrappers over the gen/... and codec packages, and share the
// flag and error manners of cli.go.
//
// Install with: go install github.com/pgspec/pgspec/cmd/pgspec@latest
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
)

// command is one subcommand: it parses its own flags from args and returns
// the process exit status (0 ok, 1 failure, 2 bad arguments).
type command struct {
	// args names the positional arguments in the usage line ("A B [SLUG]").
	args    string
	summary string
	// more is help text printed after the summary.
	more string
	run  func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "-version", "--version":
		return runVersion(nil, stdout, stderr)
	case "help":
		if len(args) == 1 || slices.Contains([]string{"help", "-h", "-help", "--help"}, args[1]) {
			usage(stdout)
			return 0
		}
		if _, ok := commands[args[1]]; !ok {
			fmt.Fprintf(stderr, "pgspec help: unknown command %q (see pgspec help)\n", args[1])
			return 2
		}
		return commands[args[1]].run([]string{"-h"}, stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "pgspec: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pgspec <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'pgspec help <command>' (or pgspec <command> -h) for its flags.")
	fmt.Fprintln(w, "The spec is built in; --spec DIR reads a working copy instead.")
}
