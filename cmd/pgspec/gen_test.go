package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGenCommand(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown flag", []string{"gen", "--nope"}, 2, "flag provided but not defined"},
		{"extra argument", []string{"gen", "--out", out, "extra"}, 2, `unexpected argument "extra"`},
		{"out is a file", []string{"gen", "--spec", "../../gen/testdata/spec", "--out", "gen.go"}, 1, "gen.go: not a directory"},
		{"no spec", []string{"gen", "--spec", t.TempDir(), "--out", out}, 1, "no pgNN.json spec files found"},
		{"tiny spec into a missing dir", []string{"gen", "--spec", "../../gen/testdata/spec", "--out", filepath.Join(out, "new", "codec")}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.name, code, stderr.String(), c.code, c.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "new", "codec", "bind_gen.go")); err != nil {
		t.Errorf("tiny spec not generated: %v", err)
	}
}

// TestGenDoesNotImportCodec: pgspec generates the codec, so it must build
// whatever state codec/ is in (after a change to the runtime, say); the
// analyzer that uses the codec is cmd/pgtrace.
func TestGenDoesNotImportCodec(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/pgspec/pgspec/gen/emit") || slices.Contains(deps, "github.com/pgspec/pgspec/codec") {
		t.Errorf("pgspec should import gen/emit and not codec; it imports %v", deps)
	}
}
