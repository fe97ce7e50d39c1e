package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/pgspec/pgspec/codec"
)

func TestDecodeCommand(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pcap")
	var b bytes.Buffer
	if err := pcapgo.NewWriter(&b).WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.pcap")
	for name, data := range map[string][]byte{empty: b.Bytes(), garbage: []byte("not a capture at all")} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"decode"}, 2, "want one capture file, got 0 arguments"},
		{[]string{"decode", "--port", "-1", empty}, 2, "--port -1: want 1 to 65535, or 0 for any"},
		{[]string{"decode", "--major", "9", empty}, 2, fmt.Sprintf("--major 9: want %d to %d", codec.OldestMajor, codec.NewestMajor)},
		{[]string{"decode", "--major", strconv.Itoa(codec.NewestMajor + 1), empty}, 2, fmt.Sprintf("want %d to %d", codec.OldestMajor, codec.NewestMajor)},
		{[]string{"decode", "--format", "xml", empty}, 2, `pgtrace decode: --format "xml": want text or json`},
		{[]string{"decode", filepath.Join(dir, "missing.pcap")}, 1, "no such file or directory"},
		{[]string{"decode", garbage}, 1, "garbage.pcap: not a pcap or pcapng capture"},
		{[]string{"decode", empty}, 0, "0 packets, 0 connections, 0 gaps\nfrontend: 0 decoded"},
		// Flags may follow the file, as pgspec's do.
		{[]string{"decode", empty, "--format", "json", "--major", "15"}, 0, "0 packets, 0 connections, 0 gaps"},
		{[]string{"decode", empty, "--major", "9"}, 2, "--major 9: want"},
		{[]string{"decode", "--", empty}, 0, "0 packets"},
		// A flag that does not parse is named after the command, as every
		// other error is, and points at the usage instead of printing it.
		{[]string{"decode", "--major", "x", empty}, 2, "pgtrace decode: invalid value \"x\" for flag -major: parse error\nrun 'pgtrace decode -h' for usage\n"},
		{[]string{"decode", empty, "--major"}, 2, "pgtrace decode: flag needs an argument: -major\n"},
		{[]string{"trace", "--bogus"}, 2, "pgtrace trace: flag provided but not defined: -bogus\nrun 'pgtrace trace -h' for usage\n"},
		{[]string{"trace", "--listen", "127.0.0.1:0", "--upstream-tls=maybe"}, 2, "pgtrace trace: invalid boolean value \"maybe\" for -upstream-tls"},
		{[]string{"trace", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:1", "extra"}, 2, "pgtrace trace: unexpected argument \"extra\""},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != c.code || !strings.Contains(stderr.String(), c.stderr) || strings.Contains(stderr.String(), "Usage of") {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.stderr)
		}
	}
}
