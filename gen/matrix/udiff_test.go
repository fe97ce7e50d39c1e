package matrix

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The expected text was worked out by hand from diff(1)'s rules: three
// lines of context, hunks joined when their contexts touch, a count of 1
// left out.
func TestUnifiedByHand(t *testing.T) {
	a := strings.Split("a b c d e f g h i j k l m", " ")
	b := strings.Split("a B c d e f g h i j k l m n", " ")
	want := `--- old
+++ new
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -11,3 +11,4 @@
 k
 l
 m
+n
`
	if got := Unified("old", "new", a, b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := Unified("x", "y", a, a); got != "" {
		t.Errorf("equal inputs give %q", got)
	}
	want = "--- x\n+++ y\n@@ -0,0 +1 @@\n+only\n"
	if got := Unified("x", "y", nil, []string{"only"}); got != want {
		t.Errorf("from nothing: %q, want %q", got, want)
	}
}

var hunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// apply rebuilds the new side from the old one and a unified diff, checking
// the hunk headers on the way, so a diff that does not describe b fails.
func apply(t *testing.T, a []string, diff string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	var out []string
	next := 0 // next unread line of a
	for i := 2; i < len(lines); {
		m := hunkRE.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("line %d: not a hunk header: %q", i, lines[i])
		}
		count := func(s string) int {
			if s == "" {
				return 1
			}
			n, _ := strconv.Atoi(s)
			return n
		}
		start, n := mustAtoi(m[1]), count(m[2])
		if n > 0 {
			start-- // 1-based, except that an empty side names the line before
		}
		out = append(out, a[next:start]...)
		next = start
		var oldN, newN int
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
			l := lines[i]
			switch l[0] {
			case ' ', '-':
				if a[next] != l[1:] {
					t.Fatalf("context %q does not match old line %d %q", l[1:], next, a[next])
				}
				next++
				oldN++
				if l[0] == ' ' {
					out = append(out, l[1:])
					newN++
				}
			case '+':
				out = append(out, l[1:])
				newN++
			}
		}
		if oldN != n || newN != count(m[4]) {
			t.Fatalf("hunk %q counts %d old, %d new lines", m[0], oldN, newN)
		}
	}
	return append(out, a[next:]...)
}

func mustAtoi(s string) int { n, _ := strconv.Atoi(s); return n }

func TestUnifiedRebuildsNewSide(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 500 {
		a := randomLines(r)
		b := slices.Clone(a)
		for range r.IntN(6) {
			switch i := r.IntN(len(b) + 1); r.IntN(3) {
			case 0:
				b = slices.Insert(b, i, fmt.Sprint("new", r.IntN(100)))
			case 1:
				if i < len(b) {
					b = slices.Delete(b, i, i+1)
				}
			case 2:
				if i < len(b) {
					b[i] = "changed"
				}
			}
		}
		d := Unified("a", "b", a, b)
		if slices.Equal(a, b) != (d == "") {
			t.Fatalf("case %d: equal=%t but diff %q", n, slices.Equal(a, b), d)
		}
		if d == "" {
			continue
		}
		if got := apply(t, a, d); !slices.Equal(got, b) {
			t.Fatalf("case %d: applying\n%s\nto %v gives %v, want %v", n, d, a, got, b)
		}
	}
}

func randomLines(r *rand.Rand) []string {
	lines := make([]string, r.IntN(30))
	for i := range lines {
		lines[i] = fmt.Sprint("l", r.IntN(8)) // repeats make the LCS non-trivial
	}
	return lines
}

func TestSentences(t *testing.T) {
	for in, want := range map[string][]string{
		"One. Two (three). Four": {"One.", "Two (three).", "Four"},
		"See e.g. the 3.2 docs.": {"See e.g. the 3.2 docs."},
		"etc). 1 indicates":      {"etc). 1 indicates"},
		"第一句。第二句。":               {"第一句。", "第二句。"},
		"  spaced\n  out. Next ": {"spaced out.", "Next"},
		"":                       nil,
	} {
		if got := sentences(in); !slices.Equal(got, want) {
			t.Errorf("sentences(%q) = %q, want %q", in, got, want)
		}
	}
}
