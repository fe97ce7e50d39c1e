package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestMutantsCoverEveryKind: the model of the committed spec yields a
// mutant of each kind of condition, each described once.
func TestMutantsCoverEveryKind(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := load(root)
	if err != nil {
		t.Fatal(err)
	}
	all := mutants(mod)
	seen := map[string]bool{}
	for _, m := range all {
		if seen[m.String()] {
			t.Errorf("two mutants are %q", m)
		}
		seen[m.String()] = true
	}
	for _, kind := range []string{"gate streamed removed", "gate parallel becomes streamed", "pgoutput version 2 not required",
		"pgoutput version 5 required instead of 4", "presence on OldKind removed", "presence on Kind inverted", "choice optional=true flipped",
		"choice loses 'b'", "count Int16 read as Int32", "protocol-bounded length unbounded", "nullable=true flipped",
		"PostgreSQL 18 takes the layout of 10–17", "documented in PostgreSQL 13 too"} {
		if !strings.Contains(strings.Join(mapKeys(seen), "\n"), kind) {
			t.Errorf("no mutant %q among %d", kind, len(all))
		}
	}
}

func mapKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSampleIsKilled runs the CI's sample of make mutate: removing the
// parallel streaming gate of Stream Abort must fail a codec test.
func TestSampleIsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the codec's tests once for the mutant")
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"-run", `^logical-stream-abort pg16 and later AbortLSN: gate parallel removed$`}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "1 mutants: 1 killed, 0 survived") {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}
