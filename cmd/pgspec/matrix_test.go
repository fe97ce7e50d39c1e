package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/internal/corpus"
)

func TestMatrixDiffExportUsageErrorsExit2(t *testing.T) {
	wantFailures(t, 2, []usageCase{
		{[]string{"matrix", "--format", "pdf"}, `unknown format "pdf"`},
		{[]string{"matrix", "--lang", "fr"}, `unknown language "fr"`},
		{[]string{"matrix", "extra"}, `unexpected argument "extra" (want 0 arguments, got 1)`},
		{[]string{"diff"}, "want 2 or 3 arguments (A B [MESSAGE]), got 0"},
		{[]string{"diff", "14"}, "want 2 or 3 arguments (A B [MESSAGE]), got 1"},
		{[]string{"diff", "14", "15", "logical-update", "more"}, `unexpected argument "more" (want 2 or 3 arguments (A B [MESSAGE]), got 4)`},
		{[]string{"diff", "x", "15"}, `major "x" is not a number`},
		{[]string{"diff", "14", "1.5"}, `major "1.5" is not a number`},
		{[]string{"diff", "9", "15"}, fmt.Sprintf("pgspec diff: major 9 is not in the built-in spec (it has %d to %d)", committed[0], committed[len(committed)-1])},
		{[]string{"diff", "14", strconv.Itoa(committed[len(committed)-1] + 1)}, fmt.Sprintf("major %d is not in the built-in spec", committed[len(committed)-1]+1)},
		{[]string{"diff", "14", "15", "no-such-message"}, `pgspec diff: unknown message "no-such-message"`},
		{[]string{"diff", "10", "11", "logical-stream-start"}, "pgspec diff: logical-stream-start is in neither 10 nor 11"},
		{[]string{"diff", "14", "15", "--lang", "fr"}, `unknown language "fr"`},
		{[]string{"diff", "--bogus", "14", "15"}, "flag provided but not defined: -bogus"},
		{[]string{"export"}, "--out DIR is required"},
		{[]string{"export", "--out", "x", "--lang", "de"}, `unknown language "de"`},
		{[]string{"export", "--out", "x", "y"}, `unexpected argument "y"`},
		{[]string{"export", "--out", "x", "--major", "9"}, "pgspec export: major 9 is not in the spec (it has "},
		{[]string{"export", "--out", "x", "--against", "99"}, "pgspec export: major 99 is not in the spec"},
	})
}

// A --spec directory that is missing, unreadable or holds no spec is named
// in the error of every command that reads the spec.
func TestMissingSpecDirIsNamed(t *testing.T) {
	empty := t.TempDir()
	for _, cmd := range [][]string{{"list"}, {"show", "bind"}, {"diff", "14", "15"}, {"matrix"}, {"export", "--out", t.TempDir()}, {"gen", "--out", t.TempDir()}, {"extract", "--docs", t.TempDir()}} {
		code, _, stderr := pgspec(t, append(cmd, "--spec", "/nonexistent")...)
		if want := "pgspec " + cmd[0] + ": --spec /nonexistent: no such file or directory\n"; code != 1 || stderr != want {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", cmd, code, stderr, want)
		}
		if cmd[0] == "extract" {
			continue
		}
		code, _, stderr = pgspec(t, append(cmd, "--spec", empty)...)
		if code != 1 || !strings.HasPrefix(stderr, "pgspec "+cmd[0]+": spec "+empty+": ") {
			t.Errorf("%v on an empty dir: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}

func TestDiff(t *testing.T) {
	// Flags may follow the majors; 14 → 15 only annotates Update's formats.
	code, out, _ := pgspec(t, "diff", "14", "15", "logical-update", "--lang", "en")
	if code != 0 || !strings.HasPrefix(out, "# Update (logical-update): annotation change, 14 → 15\nField table:\n--- pg14/logical-update\n+++ pg15/logical-update\n") ||
		!strings.Contains(out, "\n-Int32\n+Int32 (TransactionId)\n") || strings.Contains(out, "Layout") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// 17 → 18: the cancel key's layout changes, and the diff shows how.
	code, out, _ = pgspec(t, "diff", "17", "18", "cancel-request")
	if code != 0 || !strings.Contains(out, "wire change, 17 → 18\nLayout (what a codec decodes):\n") || !strings.Contains(out, "\n-raw32:SecretKey\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// Going back, a message is removed; in Chinese the labels are Chinese.
	code, out, _ = pgspec(t, "diff", "--lang", "zh", "12", "11", "gssenc-request")
	if code != 0 || !strings.HasPrefix(out, "# GSSENCRequest (gssenc-request): 移除, 12 → 11\n") || !strings.Contains(out, "\n-GSSENCRequest (F)\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// A diff of every message opens with what changed at a glance, wire
	// changes before annotations before wording, each with its slugs.
	for _, c := range []struct{ a, b, glance string }{
		{"17", "18", "# 17 → 18 at a glance\n" +
			"wire change (3): backend-key-data, cancel-request, alter-replication-slot\n" +
			"annotation change (1): startup-message\n" +
			"wording change (11): error-response, notice-response, logical-relation, logical-tuple-data, replication-progress-report, start-replication-physical, start-replication-logical, base-backup, flow-start-up-1, flow-start-up-2, flow-simple-query-1\n\n" +
			"# BackendKeyData (backend-key-data): wire change, 17 → 18\n"},
		{"18", "19", "# 18 → 19 at a glance\n" +
			"added (2): replication-primary-status-update, replication-request-primary-status-update\n" +
			"annotation change (1): startup-message\n" +
			"wording change (4): replication-xlog-data, create-replication-slot, start-replication-logical, base-backup\n\n"},
	} {
		code, out, _ = pgspec(t, "diff", c.a, c.b)
		if code != 0 || !strings.HasPrefix(out, c.glance) {
			t.Errorf("exit %d:\n%s\nwant it to start with\n%s", code, out[:min(len(out), 800)], c.glance)
		}
	}
	// No differences is not an error.
	code, out, _ = pgspec(t, "diff", "16", "16")
	if code != 0 || out != "no differences between 16 and 16\n" {
		t.Errorf("exit %d: %q", code, out)
	}
}

func TestExportWritesARecordPerSlug(t *testing.T) {
	// Records of 16 (Stream Abort gains its LSN and timestamp from 15), in
	// Chinese: one per message 16 documents.
	dir := t.TempDir()
	code, out, stderr := pgspec(t, "export", "--lang", "zh", "--major", "16", "--out", dir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if code != 0 || !strings.HasPrefix(out, fmt.Sprintf("wrote %d records of 16 to %s", len(files), dir)) || len(files) < 80 {
		t.Fatalf("exit %d, %d files, stdout %q, stderr %q", code, len(files), out, stderr)
	}
	type record struct {
		Kind, Major string
		Item        struct {
			Category string
			Versions map[string]json.RawMessage
		}
		Snapshot struct {
			ManualPath string `json:"manual_path"`
		}
		Comparison struct{ Left, Right, Status, Classification, Diff string }
	}
	data, err := os.ReadFile(filepath.Join(dir, "logical-stream-abort.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	// protocol-logicalrep-message-formats.html: Stream Abort is first printed in 14.
	if r.Kind != "protocol" || r.Major != "16" || r.Item.Category != "逻辑复制格式" || len(r.Item.Versions) < 6 ||
		r.Snapshot.ManualPath != "/docs/16/protocol-logicalrep-message-formats.html" {
		t.Fatalf("record: kind %q major %q category %q %d versions, snapshot %+v", r.Kind, r.Major, r.Item.Category, len(r.Item.Versions), r.Snapshot)
	}
	if c := r.Comparison; c.Left != "15" || c.Right != "16" || c.Status != "changed" || c.Classification != "wire change" ||
		!strings.Contains(c.Diff, `+      "format": "Int64 (XLogRecPtr)",`) {
		t.Errorf("15 → 16: %+v", c)
	}
}

// The committed matrices are what the code produces now from the committed
// spec; make generate rewrites them (see the go:generate lines in gen/matrix).
func TestCommittedMatricesAreCurrent(t *testing.T) {
	for _, c := range []struct {
		file string
		args []string
	}{
		{"spec/matrix.md", []string{"matrix", "--format", "md", "--lang", "en"}},
		{"spec/matrix.zh.md", []string{"matrix", "--format", "md", "--lang", "zh"}},
		{"spec/matrix.json", []string{"matrix", "--format", "json", "--lang", "en"}},
		{"spec/matrix.html", []string{"matrix", "--format", "html", "--lang", "en"}},
	} {
		code, out, stderr := pgspec(t, c.args...)
		if code != 0 {
			t.Fatalf("pgspec %q: exit %d: %s", c.args, code, stderr)
		}
		committed, err := os.ReadFile(filepath.Join(corpus.Root(), c.file))
		if err != nil {
			t.Fatal(err)
		}
		if string(committed) != out {
			t.Errorf("%s is stale: run make generate (go run ./cmd/pgspec %s --out %s)", c.file, strings.Join(c.args, " "), c.file)
		}
	}
	// --out writes the same bytes as standard output.
	out := filepath.Join(t.TempDir(), "m.md")
	if code, _, stderr := pgspec(t, "matrix", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	written, _ := os.ReadFile(out)
	committed, _ := os.ReadFile(filepath.Join(corpus.Root(), "spec/matrix.md"))
	if string(written) != string(committed) {
		t.Error("matrix --out differs from the committed spec/matrix.md")
	}
}
