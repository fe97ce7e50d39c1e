package model

import (
	"os"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// loadCommitted reads the committed spec and overlay.
func loadCommitted(t *testing.T) ([]*spec.Spec, *Overlay) {
	t.Helper()
	return loadDir(t, "../../spec")
}

// loadDir reads the spec and overlay of a spec directory.
func loadDir(t *testing.T, dir string) ([]*spec.Spec, *Overlay) {
	t.Helper()
	fsys := os.DirFS(dir)
	specs, err := spec.LoadAll(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := LoadOverlay(fsys)
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
