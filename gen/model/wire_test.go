package model

import (
	"slices"
	"testing"
)

// The fixture's two majors differ in four reviewed ways (see
// gen/testdata/spec/wirechanges.json): every one is found, and nothing else.
func TestWireChangesOfTheFixture(t *testing.T) {
	mod, err := Build(loadDir(t, "../testdata/spec"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range mod.WireChanges() {
		got = append(got, w.String())
	}
	want := []string{
		"11 key-data: field-changed SecretKey",
		"11 logical-stream-abort: message-added",
		"11 logical-tuple-data: field-changed Columns",
		"11 logical-update: field-added Xid",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("wire changes\n%q\nwant\n%q", got, want)
	}
}
