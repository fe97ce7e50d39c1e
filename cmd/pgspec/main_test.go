package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/internal/corpus"
	"github.com/pgspec/pgspec/spec"
)

// pgspec runs the command in-process in an empty working directory: the
// spec it reads is the one built in, unless --spec names another.
func pgspec(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// usageCase is a command line and what its error message must contain.
type usageCase struct {
	args []string
	msg  string
}

// wantFailures runs each case and checks it exits with code, stderr
// holding its message.
func wantFailures(t *testing.T, code int, cases []usageCase) {
	t.Helper()
	for _, c := range cases {
		got, _, stderr := pgspec(t, c.args...)
		if got != code || !strings.Contains(stderr, c.msg) {
			t.Errorf("pgspec %q: exit %d, stderr %q; want exit %d and %q", c.args, got, stderr, code, c.msg)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	wantFailures(t, 2, []usageCase{
		{nil, "usage: pgspec"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"show"}, "pgspec show: want 1 argument (MESSAGE), got 0"},
		{[]string{"show", "--version", "19rc1", "bind"}, `pgspec show: invalid value "19rc1" for flag -version: want a major such as 18`},
		{[]string{"show", "no-such-message"}, `pgspec show: unknown message "no-such-message" (see pgspec list)`},
		{[]string{"show", "logical-updte"}, `pgspec show: unknown message "logical-updte" (did you mean logical-update?)`},
		{[]string{"show", "Bnd"}, `unknown message "Bnd" (did you mean bind`},
		{[]string{"show", "--version", "9", "bind"}, fmt.Sprintf("unknown version 9 (the spec has %d to %d)", committed[0], committed[len(committed)-1])},
		{[]string{"show", "--version", "10", "gssenc-request"}, "gssenc-request is not in PostgreSQL 10 (it is in 12 and later)"},
		{[]string{"show", "--lang", "fr", "bind"}, `unknown language "fr"`},
		{[]string{"show", "--version", "19", "--lang", "zh", "bind"}, "PostgreSQL 19 has no Chinese translation"},
		{[]string{"list", "--layer", "physical"}, `unknown layer "physical"`},
		{[]string{"list", "--version", "x"}, "invalid value"},
		{[]string{"list", "extra"}, `pgspec list: unexpected argument "extra" (want 0 arguments, got 1)`},
		{[]string{"list", "--bogus"}, "pgspec list: flag provided but not defined: -bogus\nrun 'pgspec help list' for usage"},
		{[]string{"extract", "--docs", "/nonexistent"}, "pgspec extract: --docs /nonexistent: not a directory"},
		{[]string{"help", "frobnicate"}, `pgspec help: unknown command "frobnicate"`},
	})
}

func TestList(t *testing.T) {
	code, out, _ := pgspec(t, "list", "--version", "19", "--layer", "streaming-replication")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// en/19/protocol-replication.html: 6 START_REPLICATION sub-messages and 4 BASE_BACKUP ones.
	if code != 0 || len(lines) != 10 || lines[0] != "replication-xlog-data\tWALData\tB\tstreaming-replication" {
		t.Fatalf("exit %d, %d lines, first %q", code, len(lines), lines[0])
	}
	code, out, _ = pgspec(t, "list", "--version", "10", "--layer", "logical-replication")
	if code != 0 || !strings.HasPrefix(out, "logical-begin\tBegin\t-\tlogical-replication\n") || strings.Count(out, "\n") != 9 {
		t.Errorf("pg10 logical list: %q", out)
	}
}

func TestShowPrintsTheManualsTable(t *testing.T) {
	code, out, _ := pgspec(t, "show", "--version", "18", "backend-key-data")
	want := "BackendKeyData (B) — PostgreSQL 18 (18.6), protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-BACKENDKEYDATA\n" +
		"  1  Byte1('K')  Identifies the message as cancellation key data."
	if code != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, "  4  Byten       The secret key of this backend.") ||
		!strings.HasSuffix(out, "\n    Before protocol version 3.2, the secret key was always 4 bytes long.\n") {
		t.Errorf("show backend-key-data:\n%s", out)
	}
	code, out, _ = pgspec(t, "show", "--version", "10", "--lang", "zh", "replication-primary-keepalive-message")
	if code != 0 || !strings.HasPrefix(out, "主要存活消息 (B) — PostgreSQL 10 (10.1)") {
		t.Errorf("show zh keepalive:\n%s", out)
	}
}

func TestExtractWritesSpecAndReportsCoverage(t *testing.T) {
	docs := corpus.Dir(t)
	out := t.TempDir()
	code, stdout, stderr := pgspec(t, "extract", "--docs", docs, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "major lang messages   rows annotations unparsed\n10    en         64    263") || !strings.Contains(stdout, "\n19    en ") {
		t.Errorf("coverage report:\n%s", stdout)
	}
	for _, major := range committed {
		got, err := os.ReadFile(filepath.Join(out, spec.FileName(major)))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(corpus.Root(), "spec", spec.FileName(major)))
		if !bytes.Equal(got, want) {
			t.Errorf("extracted pg%d.json differs from the committed one", major)
		}
	}
}

func TestExtractFailsOnBadCorpus(t *testing.T) {
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "MANIFEST.md"), []byte("## Files\n\n| `en/18/protocol-message-formats.html` | en | 18 | 18.6 | x | y | `00` |\n"), 0o644)
	os.MkdirAll(filepath.Join(docs, "en", "18"), 0o755)
	os.WriteFile(filepath.Join(docs, "en", "18", "protocol-message-formats.html"), []byte("<html><body>truncated"), 0o644)
	code, _, stderr := pgspec(t, "extract", "--docs", docs, "--out", t.TempDir())
	if code != 1 || !strings.HasPrefix(stderr, "pgspec extract: "+docs+": MANIFEST.md: lists en/18 but not en/18/protocol-logicalrep-message-formats.html\n") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
