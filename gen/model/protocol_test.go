package model

import (
	"maps"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// The newest protocol minor of each major is what protocol-overview.html's
// table of versions says (18 on: "3.2 PostgreSQL 18 and later"; before 18
// the page names no minor, libpq and the server speak 3.0), derived from the
// message notes alone.
func TestProtocolMinors(t *testing.T) {
	specs, ov := loadCommitted(t)
	mod, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int{}
	for _, mj := range mod.Majors {
		want[mj] = 0
		if mj >= 18 {
			want[mj] = 2
		}
	}
	if !maps.Equal(mod.ProtocolMinors, want) {
		t.Errorf("protocol minors %v, want %v", mod.ProtocolMinors, want)
	}
	sel, err := mod.Select(Selection{Majors: []int{13, 14}})
	if err != nil {
		t.Fatal(err)
	}
	if sel.ProtocolMinors[19] != 2 {
		t.Errorf("a selection of 13–14 lost the newer majors' minors: %v", sel.ProtocolMinors)
	}
}

// A note naming a newer minor raises that major and every later one; a
// major whose manual drops the note keeps what an earlier major spoke.
func TestProtocolMinorsFromNotes(t *testing.T) {
	note := func(v string) spec.Prose {
		return spec.Prose{Annotations: []spec.Annotation{{Kind: spec.AnnProtocolChange, Value: v}}}
	}
	msg := func(layer string, notes ...spec.Prose) spec.Message {
		return spec.Message{Layer: layer, Notes: notes}
	}
	specs := []*spec.Spec{
		{Major: 16, Messages: []spec.Message{msg(spec.LayerFrontendBackend)}},
		{Major: 17, Messages: []spec.Message{msg(spec.LayerFrontendBackend, note("3.2")), msg(spec.LayerLogicalReplication, note("3.7"))}},
		{Major: 18, Messages: []spec.Message{msg(spec.LayerFrontendBackend)}},
		{Major: 19, Messages: []spec.Message{msg(spec.LayerFrontendBackend, note("3.3"), note("4.1"), note("3.x"))}},
	}
	want := map[int]int{16: 0, 17: 2, 18: 2, 19: 3}
	if got := protocolMinors(specs); !maps.Equal(got, want) {
		t.Errorf("protocol minors %v, want %v", got, want)
	}
}
