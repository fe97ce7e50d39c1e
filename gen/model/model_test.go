package model

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// loadCommitted reads the committed spec and overlay.
func loadCommitted(t *testing.T) ([]*spec.Spec, *spec.Overlay) {
	t.Helper()
	return loadDir(t, "../../spec")
}

// loadDir reads the spec and overlay of a spec directory.
func loadDir(t *testing.T, dir string) ([]*spec.Spec, *spec.Overlay) {
	t.Helper()
	fsys := os.DirFS(dir)
	specs, err := spec.LoadAll(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := spec.LoadOverlay(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return specs, ov
}

func TestCommittedSpecBuilds(t *testing.T) {
	specs, ov := loadCommitted(t)
	m, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		for _, msg := range m.Messages {
			for _, l := range msg.Layouts {
				t.Logf("%s %v: %s", msg.GoName, l.Majors, l)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite testdata/defaults.txt from the committed spec")

// TestDefaults pins the list of what the generator derives from the
// committed spec rather than reads from the overlay, as pgspec gen prints
// it: a new major that changes a derivation shows up here, for review.
func TestDefaults(t *testing.T) {
	specs, ov := loadCommitted(t)
	m, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, d := range m.Defaults {
		got += d.Text + "\n"
	}
	const path = "testdata/defaults.txt"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the derived defaults changed (review, then go test ./gen/model -run TestDefaults -update):\n%s", lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in a (-) and only in b (+).
func lineDiff(a, b string) string {
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
