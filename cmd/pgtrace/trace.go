package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/trace"
)

// runTrace listens until SIGINT or SIGTERM, then prints the summary. It
// exits 1 when any message could not be decoded or re-encoded identically.
func runTrace(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("trace")
	listen := fs.String("listen", "", "address to accept clients on, host:port (required)")
	upstream := fs.String("upstream", "", "PostgreSQL server address, host:port (required)")
	strict := fs.Bool("strict", false, "close a session at the first message that does not decode or re-encode identically")
	format := formatFlags(fs)
	maxMessage := fs.Int("max-message", codec.DefaultMaxSize, "longest client message accepted after authentication, in bytes (before: PostgreSQL's 10000 for the startup packet, 65535 for authentication)")
	maxConns := fs.Int("max-conns", trace.DefaultMaxConns, "sessions open at once; more clients get PostgreSQL's \"too many clients\" error")
	startupTimeout := fs.Duration("startup-timeout", trace.DefaultStartupTimeout, "time a client has from connecting to authenticating (PostgreSQL's authentication_timeout)")
	idleTimeout := fs.Duration("idle-timeout", 0, "close a session in which neither side sent a byte for this long (0: never)")
	tlsFlags := newTLSFlags(fs)
	pos, code, done := parseArgs(fs, args, stderr)
	if done {
		return code
	}
	switch {
	case len(pos) > 0:
		fmt.Fprintf(stderr, "pgtrace trace: unexpected argument %q\n", pos[0])
		return 2
	case *listen == "" || *upstream == "":
		fmt.Fprintln(stderr, "pgtrace trace: --listen and --upstream are required")
		return 2
	case *maxMessage < trace.MaxAuthSize || *maxMessage > codec.DefaultMaxSize:
		fmt.Fprintf(stderr, "pgtrace trace: --max-message %d: want %d to %d\n", *maxMessage, trace.MaxAuthSize, codec.DefaultMaxSize)
		return 2
	case *maxConns < 1 || *startupTimeout <= 0 || *idleTimeout < 0:
		fmt.Fprintln(stderr, "pgtrace trace: --max-conns and --startup-timeout must be positive, --idle-timeout not negative")
		return 2
	}
	f, ok := format.get(stderr)
	if !ok {
		return 2
	}
	clientTLS, upstreamTLS, err := tlsFlags.configs(*upstream)
	if err != nil {
		fmt.Fprintln(stderr, "pgtrace trace:", err)
		return 2
	}
	p := trace.New(trace.Options{Format: f, Upstream: *upstream, Strict: *strict, Out: stdout, Log: stderr,
		MaxMessage: *maxMessage, MaxConns: *maxConns, StartupTimeout: *startupTimeout, IdleTimeout: *idleTimeout,
		ClientTLS: clientTLS, UpstreamTLS: upstreamTLS})
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

// outputFlags are the flags trace and decode share: how lines are printed.
type outputFlags struct {
	name               string
	format             *string
	quiet, showSecrets *bool
	maxValue           *int
}

func formatFlags(fs *flag.FlagSet) outputFlags {
	return outputFlags{
		name:        fs.Name(),
		format:      fs.String("format", "text", "decoded message lines: text or json (one object per message, schema in internal/trace/line.schema.json)"),
		quiet:       fs.Bool("quiet", false, "print no message lines, only the totals"),
		showSecrets: fs.Bool("show-secrets", false, "print passwords, SASL and GSSAPI data and cancel keys (otherwise only their length)"),
		maxValue:    fs.Int("max-value", trace.DefaultMaxValue, "bytes of one value a line shows, longer ones are cut, as are repeated fields after 64 elements; 0 cuts nothing"),
	}
}

// get checks the flags and returns the format they ask for.
func (o outputFlags) get(stderr io.Writer) (trace.Format, bool) {
	switch {
	case *o.format != "text" && *o.format != "json":
		fmt.Fprintf(stderr, "%s: --format %q: want text or json\n", o.name, *o.format)
		return trace.Format{}, false
	case *o.maxValue < 0:
		fmt.Fprintf(stderr, "%s: --max-value %d: want 0 (cut nothing) or more\n", o.name, *o.maxValue)
		return trace.Format{}, false
	}
	f := trace.Format{JSON: *o.format == "json", Quiet: *o.quiet, ShowSecrets: *o.showSecrets, MaxValue: *o.maxValue}
	if f.MaxValue == 0 {
		f.MaxValue = -1
	}
	return f, true
}
