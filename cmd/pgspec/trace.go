// The trace command is the only one that uses the generated codec; the
// nocodec build leaves it out, so that go generate can rebuild codec/ with
// a command that does not need codec/ to compile first (after a change to
// the codec runtime, say).

//go:build !nocodec

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/pgspec/pgspec/cmd/pgspec/internal/trace"
)

func init() {
	commands["trace"] = command{summary: "proxy PostgreSQL traffic, decoding and re-encoding every message", run: runTrace}
}

// runTrace listens until SIGINT or SIGTERM, then prints the summary. It
// exits 1 when any message could not be decoded or re-encoded identically.
func runTrace(args []string, stdout, stderr io.Writer) int {
	fs := newCLI("trace", stdout, stderr)
	listen := fs.String("listen", "", "address to accept clients on, host:port (required)")
	upstream := fs.String("upstream", "", "PostgreSQL server address, host:port (required)")
	format := fs.String("format", "text", "decoded message lines: text or json")
	strict := fs.Bool("strict", false, "close a session at the first message that does not decode or re-encode identically")
	if _, code, done := fs.parse(args, 0, 0); done {
		return code
	}
	switch {
	case *listen == "" || *upstream == "":
		fmt.Fprintln(stderr, "pgspec trace: --listen and --upstream are required")
		return 2
	case *format != "text" && *format != "json":
		fmt.Fprintf(stderr, "pgspec trace: --format %q: want text or json\n", *format)
		return 2
	}
	p := trace.New(trace.Options{Upstream: *upstream, JSON: *format == "json", Strict: *strict, Out: stdout, Log: stderr})
	if err := p.CheckUpstream(); err != nil {
		fmt.Fprintln(stderr, "pgspec trace:", err)
		return 1
	}
	// Catch the signals before listening: once a client can connect, a signal ends the proxy cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "pgspec trace:", err)
		return 1
	}
	fmt.Fprintf(stderr, "pgspec trace: listening on %s, upstream %s\n", l.Addr(), *upstream)
	go func() {
		<-ctx.Done()
		l.Close()
		p.Close()
	}()
	err = p.Serve(l)
	p.Summary(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "pgspec trace:", err)
		return 1
	}
	if !p.Clean() {
		return 1
	}
	return 0
}
