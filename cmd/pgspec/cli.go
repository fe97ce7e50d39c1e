package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/pgspec/pgspec/internal/cliargs"
)

// cli is one run of a subcommand: its flags and where it writes. Every
// command parses with it, so all share the same manners: -h prints help
// and exits 0, flags may come before or after positional arguments, and
// every message starts with "pgspec NAME:".
type cli struct {
	*flag.FlagSet
	name           string
	stdout, stderr io.Writer
}

func newCLI(name string, stdout, stderr io.Writer) *cli {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(io.Discard) // parse errors are reported by parse, prefixed
	return &cli{FlagSet: fl, name: name, stdout: stdout, stderr: stderr}
}

// parse parses flags wherever they stand among args and returns the
// positional arguments, which must number between min and max (max < 0:
// no limit). When done is set the command must return code at once: 0
// after help was printed, 2 after a usage error was.
func (c *cli) parse(args []string, min, max int) (pos []string, code int, done bool) {
	pos, err := cliargs.Parse(c.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		c.help(c.stdout)
		return nil, 0, true
	}
	if err != nil {
		return nil, c.usageError("%v", err), true
	}
	want := fmt.Sprint(min)
	switch {
	case max < 0:
		want = fmt.Sprintf("at least %d", min)
	case max != min:
		want = fmt.Sprintf("%d or %d", min, max)
	}
	if want == "1" {
		want += " argument"
	} else {
		want += " arguments"
	}
	if args := commands[c.name].args; args != "" {
		want += " (" + args + ")"
	}
	switch {
	case len(pos) < min:
		return nil, c.usageError("want %s, got %d", want, len(pos)), true
	case max >= 0 && len(pos) > max:
		return nil, c.usageError("unexpected argument %q (want %s, got %d)", pos[max], want, len(pos)), true
	}
	return pos, 0, false
}

// help prints the command's usage line, summary and flags.
func (c *cli) help(w io.Writer) {
	cmd := commands[c.name]
	fmt.Fprintf(w, "usage: pgspec %s [flags]", c.name)
	if cmd.args != "" {
		fmt.Fprintf(w, " %s", cmd.args)
	}
	fmt.Fprintf(w, "\n\n%s\n", cmd.summary)
	if cmd.more != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.more))
	}
	var flags strings.Builder
	c.SetOutput(&flags)
	c.PrintDefaults()
	c.SetOutput(io.Discard)
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nflags:\n%s", flags.String())
	}
}

// fail prints "pgspec NAME: message" to stderr and returns code.
func (c *cli) fail(code int, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "pgspec %s: %s\n", c.name, fmt.Sprintf(format, args...))
	return code
}

// usageError is a failure of the arguments: exit 2, with where to look.
func (c *cli) usageError(format string, args ...any) int {
	c.fail(2, format, args...)
	fmt.Fprintf(c.stderr, "run 'pgspec help %s' for usage\n", c.name)
	return 2
}
