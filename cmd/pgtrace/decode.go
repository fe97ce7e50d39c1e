package main

import (
	"fmt"
	"github.com/pgspec/pgspec/codec"
	"io"
	"os"

	"github.com/pgspec/pgspec/internal/trace"
)

// runDecode decodes a pcap or pcapng capture ("-": standard input). It
// exits 1 when the capture cannot be read, when a message could not be
// decoded or re-encoded identically, or when bytes were missing.
func runDecode(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("decode")
	format := formatFlags(fs)
	port := fs.Int("port", 0, "the server's TCP port; connections to other ports are skipped (0: any connection whose first packet is a PostgreSQL startup packet)")
	major := fs.Int("major", 0, fmt.Sprintf("decode as this PostgreSQL major (%d-%d) instead of learning it from server_version", codec.OldestMajor, codec.NewestMajor))
	pos, code, done := parseArgs(fs, args, stderr)
	if done {
		return code
	}
	switch {
	case len(pos) != 1:
		fmt.Fprintf(stderr, "pgtrace decode: want one capture file, got %d arguments\n", len(pos))
		return 2
	case *port < 0 || *port > 65535:
		fmt.Fprintf(stderr, "pgtrace decode: --port %d: want 1 to 65535, or 0 for any\n", *port)
		return 2
	case *major != 0 && !codec.GeneratedMajors.Has(*major):
		fmt.Fprintf(stderr, "pgtrace decode: --major %d: want %d to %d\n", *major, codec.OldestMajor, codec.NewestMajor)
		return 2
	}
	f, ok := format.get(stderr)
	if !ok {
		return 2
	}
	name := pos[0]
	in, size := io.Reader(os.Stdin), int64(0)
	if name != "-" {
		file, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(stderr, "pgtrace decode:", err)
			return 1
		}
		defer file.Close()
		if st, err := file.Stat(); err == nil {
			size = st.Size()
		}
		in = file
	}
	opts := trace.CaptureOptions{Format: f, Out: stdout, Log: stderr, Port: *port, Major: *major, Size: size}
	if size == 0 || size > 64<<20 {
		opts.Progress = stderr // a large file, or one of unknown size
	}
	c, err := trace.DecodeCapture(in, opts)
	if c != nil {
		c.Summary(stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pgtrace decode: %s: %v\n", name, err)
		return 1
	}
	if !c.Clean() {
		return 1
	}
	return 0
}
