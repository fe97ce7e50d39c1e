package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/pgspec/pgspec/internal/trace"
)

// runTrace listens until SIGINT or SIGTERM, then prints the summary. It
// exits 1 when any message could not be decoded or re-encoded identically.
func runTrace(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("trace", stderr)
	listen := fs.String("listen", "", "address to accept clients on, host:port (required)")
	upstream := fs.String("upstream", "", "PostgreSQL server address, host:port (required)")
	format := fs.String("format", "text", "decoded message lines: text or json")
	strict := fs.Bool("strict", false, "close a session at the first message that does not decode or re-encode identically")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "pgtrace trace: unexpected argument %q\n", fs.Arg(0))
		return 2
	case *listen == "" || *upstream == "":
		fmt.Fprintln(stderr, "pgtrace trace: --listen and --upstream are required")
		return 2
	case *format != "text" && *format != "json":
		fmt.Fprintf(stderr, "pgtrace trace: --format %q: want text or json\n", *format)
		return 2
	}
	p := trace.New(trace.Options{Upstream: *upstream, JSON: *format == "json", Strict: *strict, Out: stdout, Log: stderr})
	if err := p.CheckUpstream(); err != nil {
		fmt.Fprintln(stderr, "pgtrace trace:", err)
		return 1
	}
	// Catch the signals before listening: once a client can connect, a signal ends the proxy cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "pgtrace trace:", err)
		return 1
	}
	fmt.Fprintf(stderr, "pgtrace trace: listening on %s, upstream %s\n", l.Addr(), *upstream)
	go func() {
		<-ctx.Done()
		l.Close()
		p.Close()
	}()
	err = p.Serve(l)
	p.Summary(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "pgtrace trace:", err)
		return 1
	}
	if !p.Clean() {
		return 1
	}
	return 0
}
