// Package golden keeps a test's expected output in a file under testdata:
// facts that change with each PostgreSQL major (the resolved layouts, the
// matrix facts of every major) live there, reviewed as a diff, and
// go test -update rewrites them.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/internal/corpus"
)

// Update is the -update flag: rewrite the golden files instead of
// comparing with them.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata from what the tests produce")

// Check compares got with the file at path (relative to the test's
// package) or, with -update, writes it there. A difference names the
// command that rewrites the file, for the reviewer to run after reading
// the lines that changed.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s changed (review, then %s):\n%s", path, Command(t), LineDiff(string(want), got))
	}
}

// Command is the go test command line that rewrites t's golden files:
// go test ./gen/model -run ^TestDefaults$ -update.
func Command(t testing.TB) string {
	pkg := "."
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(corpus.Root(), wd); err == nil && rel != "." {
			pkg = "./" + filepath.ToSlash(rel)
		}
	}
	name, _, _ := strings.Cut(t.Name(), "/")
	return "go test " + pkg + " -run ^" + name + "$ -update"
}

// LineDiff lists the lines only in a (-) and only in b (+).
func LineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !inb[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ina[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
