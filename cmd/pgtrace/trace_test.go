package main

import (
	"bytes"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTraceArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"trace"}, "--listen and --upstream are required"},
		{[]string{"trace", "--listen", "127.0.0.1:0"}, "--listen and --upstream are required"},
		{[]string{"trace", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:5432", "--format", "xml"}, `--format "xml": want text or json`},
		{[]string{"trace", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:5432", "extra"}, `unexpected argument "extra"`},
		{[]string{"trace", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--max-message", "100"}, "--max-message 100: want 65536 to 1073741823"},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--max-conns", "0"}, "--max-conns and --startup-timeout must be positive"},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--max-value", "-1"}, "pgtrace trace: --max-value -1: want 0 (cut nothing) or more"},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--tls-cert", "server.crt"}, "pgtrace trace: --tls-cert and --tls-key go together"},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--upstream-ca", "ca.crt"}, "--upstream-ca and --upstream-server-name need --upstream-tls"},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--upstream-tls=maybe"}, `value "maybe" for -upstream-tls: want verify-full, verify-ca or require`},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--tls-cert", "/nonexistent.crt", "--tls-key", "/nonexistent.key"}, "--tls-cert/--tls-key: open /nonexistent.crt: no such file or directory"},
		{[]string{"trace", "--listen", ":0", "--upstream", ":5432", "--upstream-tls", "--upstream-ca", "/nonexistent.crt"}, "--upstream-ca: open /nonexistent.crt: no such file or directory"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}

func TestTraceUnreachableUpstream(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	var stdout, stderr bytes.Buffer
	code := run([]string{"trace", "--listen", "127.0.0.1:0", "--upstream", closed}, &stdout, &stderr)
	if want := "pgtrace trace: upstream " + closed + " unreachable: dial tcp " + closed + ": connect: connection refused"; code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
}

// TestTraceSignalSummary runs the command against an upstream that accepts
// and hangs up, stops it with SIGINT and checks the summary it prints.
func TestTraceSignalSummary(t *testing.T) {
	upstream, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer upstream.Close()
	go func() {
		for {
			c, err := upstream.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()

	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run([]string{"trace", "--listen", addr, "--upstream", upstream.Addr().String()}, &stdout, &stderr)
	}()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("trace never listened")
		}
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case code := <-done:
		want := "frontend: 0 decoded, 0 re-encoded identically, 0 mismatched, 0 undecodable, 0 flow violations\nbackend: 0 decoded"
		if code != 0 || !strings.Contains(stderr.String(), want) {
			t.Errorf("exit %d, stderr %q; want 0 and %q", code, stderr.String(), want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not stop trace")
	}
}

// TestHelp: asking for help is not an error: exit 0, the usage on stdout
// (a subcommand's flags on stderr, where the flag package prints them).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"trace", "-h"}, {"decode", "--help"}} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if out := stdout.String() + stderr.String(); code != 0 || !strings.Contains(out, "usage") && !strings.Contains(out, "Usage") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0 and the usage", args, code, stdout.String(), stderr.String())
		}
	}
}
