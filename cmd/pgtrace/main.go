// Command pgtrace is a PostgreSQL protocol analyzer built on the generated
// codec: `pgtrace trace` is a transparent proxy that decodes, prints and
// re-encodes every message it forwards, `pgtrace decode` reads the same
// traffic from a pcap or pcapng capture.
//
// It is a command of its own, apart from cmd/pgspec, so that the generator
// never imports the codec it generates.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/pgspec/pgspec/internal/cliargs"
)

func main() {
	// A closed standard output (pgtrace trace | head) must not kill the
	// proxy and every session through it: with SIGPIPE caught, a write to
	// the closed pipe fails with EPIPE instead, and trace counts the lines
	// it could not write while the traffic goes on.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: pgtrace <command> [flags]
  trace    proxy PostgreSQL traffic, decoding and re-encoding every message
  decode   decode the PostgreSQL traffic in a pcap or pcapng capture
`

// run dispatches to a subcommand, which returns the exit status: 0 ok,
// 1 failure, 2 bad arguments.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "trace":
		return runTrace(args[1:], stdout, stderr)
	case "decode":
		return runDecode(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "pgtrace: unknown command %q\n%s", args[0], usage)
	return 2
}

// newFlags is a subcommand's flag set: errors are returned, not fatal,
// and reported by parseArgs.
func newFlags(name string) *flag.FlagSet {
	fl := flag.NewFlagSet("pgtrace "+name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	return fl
}

// parseArgs parses a subcommand's flags wherever they stand among args (as
// pgspec's) and returns its positional arguments. When done is set the
// subcommand returns code at once: 0 after -h printed the usage, 2 after a
// flag that does not parse was named, after the command as every error is.
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer) (pos []string, code int, done bool) {
	pos, err := cliargs.Parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stderr)
		fs.Usage()
		return nil, 0, true
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\nrun '%s -h' for usage\n", fs.Name(), err, fs.Name())
		return nil, 2, true
	}
	return pos, 0, false
}
