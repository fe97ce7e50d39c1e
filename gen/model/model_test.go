package model

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/internal/golden"
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
	golden.Check(t, "testdata/defaults.txt", got)
}

// TestResolvedLayouts pins the resolved layout of every message and major
// range of the committed spec, as pgspec show --resolved prints it: a
// change to the spec, the overlay or the generator shows as a readable diff.
func TestResolvedLayouts(t *testing.T) {
	specs, ov := loadCommitted(t)
	m, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, msg := range m.Messages {
		for _, l := range msg.Layouts {
			fmt.Fprintf(&b, "%s (%s), PostgreSQL %s\n%s", msg.Slug, msg.GoName, Span(l.Majors, m.Majors), l.Describe(nil))
		}
	}
	golden.Check(t, "testdata/layouts.txt", b.String())
}

// TestDiffPinned: the committed spec derives exactly the pinned list; a
// derivation added or lost shows, and only for the model's messages.
func TestDiffPinned(t *testing.T) {
	specs, ov := loadCommitted(t)
	m, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	if added, removed := m.DiffPinned(); len(added)+len(removed) != 0 {
		t.Fatalf("the committed spec differs from its pinned list testdata/defaults.txt (review, then go test ./gen/model -run ^TestDefaults$ -update): added %v, removed %v", added, removed)
	}
	sel, err := m.Select(Selection{Messages: []string{"logical-update"}})
	if err != nil {
		t.Fatal(err)
	}
	lost := sel.Defaults[0]
	sel.Defaults = append(sel.Defaults[1:], Default{Slug: "logical-update", Text: "logical-update Frobs: gate streamed"})
	added, removed := sel.DiffPinned()
	if len(added) != 1 || added[0].Text != "logical-update Frobs: gate streamed" || !slices.Equal(removed, []string{lost.Text}) {
		t.Errorf("added %v, removed %v; want the new one and %q", added, removed, lost.Text)
	}
}

// The overlay's pgoutput entries add the majors whose manual is silent
// about a parameter their server takes (14's binary, messages and
// streaming); one that restates a manual or names no parameter is refused.
func TestPgoutputSourceCorrections(t *testing.T) {
	specs, ov := loadCommitted(t)
	mod, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range mod.Pgoutput {
		got[p.Name] = fmt.Sprint(p.Majors[0], p.Corrected)
	}
	for name, want := range map[string]string{"binary": "14 [14]", "messages": "14 [14]", "streaming": "14 [14]", "two_phase": "15 []", "proto_version": "10 []"} {
		if got[name] != want {
			t.Errorf("%s: first major and corrected majors %s, want %s", name, got[name], want)
		}
	}
	for name, want := range map[string]string{
		"two_phase": "overlay pgoutput two_phase: the manual of 15 documents it; remove 15 from the entry",
		"stream":    "overlay pgoutput stream: no manual documents such a parameter",
	} {
		entry, err := spec.ParseOverlay([]byte(`{"pgoutput": {"` + name + `": {"majors": "14-15", "reason": "r", "evidence": [{"release": "15.18", "file": "f.c", "function": "f", "lines": "1", "says": "s"}]}}}`))
		if err != nil {
			t.Fatal(err)
		}
		bad := *ov
		bad.Pgoutput = entry.Pgoutput
		if _, err := Build(specs, &bad); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	if _, err := spec.ParseOverlay([]byte(`{"pgoutput": {"binary": {"majors": "14-", "reason": "r", "evidence": [{"release": "15.18"}]}}}`)); err == nil ||
		!strings.Contains(err.Error(), `majors "14-": want a closed range`) || !strings.Contains(err.Error(), "evidence 1: needs release, file, function, lines") {
		t.Errorf("open range and bare evidence: %v", err)
	}
}
