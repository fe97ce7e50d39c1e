package cdc

import (
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestOptionsFor: the options by major, each accepted by its major and
// refused by the one before where it needs a newer server.
func TestOptionsFor(t *testing.T) {
	v1 := PluginOptions{ProtoVersion: 1}
	want := map[int]PluginOptions{
		10: v1, 13: v1, 14: {ProtoVersion: 2, Streaming: "on", Messages: true},
		15: {ProtoVersion: 3, Streaming: "on", TwoPhase: true, Messages: true},
		16: {ProtoVersion: 4, Streaming: "parallel", TwoPhase: true, Messages: true},
		19: {ProtoVersion: 4, Streaming: "parallel", TwoPhase: true, Messages: true},
	}
	for major := codec.OldestMajor; major <= codec.NewestMajor; major++ {
		o := OptionsFor(major)
		if w, ok := want[major]; ok && o != w {
			t.Errorf("OptionsFor(%d) = %+v, want %+v", major, o, w)
		}
		if err := o.Check(major); err != nil {
			t.Errorf("OptionsFor(%d) refused by %d: %v", major, major, err)
		}
		if major > 13 && major <= 16 {
			if err := o.Check(major - 1); err == nil {
				t.Errorf("OptionsFor(%d) = %+v accepted by %d", major, o, major-1)
			}
		}
	}
	for _, tc := range []struct {
		o     PluginOptions
		major int
		want  string
	}{
		{PluginOptions{ProtoVersion: 0}, 15, "proto_version 0: set 1 or later"},
		{PluginOptions{ProtoVersion: 4}, 15, "pgoutput proto_version: version 4 is not supported by PostgreSQL 15 (it is in PostgreSQL 16 and later)"},
		{PluginOptions{ProtoVersion: 1, Streaming: "on"}, 15, "pgoutput streaming: needs proto_version 2 or later, not 1"},
		{PluginOptions{ProtoVersion: 3, Streaming: "parallel"}, 16, "pgoutput streaming: parallel needs proto_version 4 or later, not 3"},
		{PluginOptions{ProtoVersion: 2, TwoPhase: true}, 15, "pgoutput two_phase: needs proto_version 3 or later, not 2"},
		{PluginOptions{ProtoVersion: 1, Binary: true}, 13, "pgoutput binary: not in PostgreSQL 13 (it is in PostgreSQL 14 and later)"},
		{PluginOptions{ProtoVersion: 1, Messages: true}, 12, "pgoutput messages: not in PostgreSQL 12 (it is in PostgreSQL 14 and later)"},
		{PluginOptions{ProtoVersion: 2, Streaming: "yes"}, 14, `pgoutput streaming: value "yes" is not one the manual names`},
	} {
		if err := tc.o.Check(tc.major); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v on %d: %v, want %q", tc.o, tc.major, err, tc.want)
		}
	}
}

// TestCommands: the replication commands, written by the codec's typed
// commands in the major's syntax (identifiers quoted, as pg_recvlogical
// writes them too).
func TestCommands(t *testing.T) {
	must := func(c codec.Command, major int) string {
		b, err := c.Append(nil, codec.Params{Major: major})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	start, err := startReplication("s", 0x16_B374D848, []string{"a", "it's"}, PluginOptions{ProtoVersion: 1, Binary: true}, 14)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ got, want string }{
		{must(createSlot("s", 14, false), 14), `CREATE_REPLICATION_SLOT "s" LOGICAL "pgoutput" NOEXPORT_SNAPSHOT`},
		{must(createSlot("s", 15, true), 15), `CREATE_REPLICATION_SLOT "s" LOGICAL "pgoutput" (TWO_PHASE, SNAPSHOT 'nothing')`},
		{must(start, 14),
			`START_REPLICATION SLOT "s" LOGICAL 16/B374D848 ("proto_version" '1', "publication_names" '"a","it''s"', "binary" 'true')`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	for _, bad := range []string{"", "Upper", "has space", "x;drop", strings.Repeat("a", 64)} {
		if checkSlotName(bad) == nil {
			t.Errorf("slot name %q accepted", bad)
		}
	}
	if err := checkSlotName(strings.Repeat("a", 63)); err != nil {
		t.Error(err)
	}
}
