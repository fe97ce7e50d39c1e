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
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != c.code || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.stderr)
		}
	}
}
