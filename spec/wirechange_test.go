package spec

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadWireChangesChecksEntries(t *testing.T) {
	for _, c := range []struct{ file, err string }{
		{`{"wire_changes":[{"major":19,"message":"bind","change":"field-added","field":"X","reason":"r"}]}`, ""},
		{`{"wire_changes":[{"major":19,"message":"bind","change":"renamed","reason":"r"}]}`, `entry 1: unknown change "renamed"`},
		{`{"wire_changes":[{"major":19,"message":"bind","change":"field-added","reason":"r"}]}`, "entry 1 (19 bind: field-added): a field is named exactly by the field-* changes"},
		{`{"wire_changes":[{"major":19,"message":"bind","change":"message-added","field":"X","reason":"r"}]}`, "a field is named exactly by the field-* changes"},
		{`{"wire_changes":[{"major":19,"message":"bind","change":"message-added","reason":" "}]}`, "entry 1 (19 bind: message-added): needs a reason"},
		{`{"wire_changes":[{"message":"bind","change":"message-added","reason":"r"}]}`, "entry 1: needs major and message"},
		{`{"wire_changes":[{"major":19,"message":"bind","change":"message-added","reason":"a"},{"major":19,"message":"bind","change":"message-added","reason":"b"}]}`, "entry 2 (19 bind: message-added): listed twice"},
		{`{"wire_changes":[],"extra":1}`, WireChangesFile + `:1:20: json: unknown field "extra"`},
		{`{"wire_changes":[]} {"wire_changes":[]}`, WireChangesFile + ":1:20: content after the JSON value"},
		{`{"wire_changes":[]} x`, WireChangesFile + ":1:20: content after the JSON value"},
		{"{\"wire_changes\": [\n  {\"major\": 20,\n   \"message\": \"bind\",,\n", WireChangesFile + ":3:22: invalid character ','"},
		{"{\"wire_changes\": [\n  {\"major\": \"20\"}]}", WireChangesFile + ":2:17: json: cannot unmarshal string"},
		{"{\"wire_changes\": [\n", WireChangesFile + ":2:1: unexpected EOF"},
		{"{\"wire_changes\":[]}\n", ""},
	} {
		_, err := LoadWireChanges(fstest.MapFS{WireChangesFile: {Data: []byte(c.file)}})
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: got %v, want %q", c.file, err, c.err)
		}
	}
	if _, err := LoadWireChanges(fstest.MapFS{}); err == nil {
		t.Error("a spec without wirechanges.json passed: deleting the file would approve every change")
	}
}

func TestCheckWireChanges(t *testing.T) {
	added := WireChange{Major: 19, Message: "x", Change: MessageAdded}
	field := WireChange{Major: 19, Message: "bind", Change: FieldAdded, Field: "F"}
	old := WireChange{Major: 14, Message: "y", Change: MessageRemoved, Reason: "r"}
	ack := func(w WireChange) WireChange { w.Reason = "reviewed"; return w }

	if err := CheckWireChanges([]WireChange{added, field}, []WireChange{ack(added), ack(field), old}, []int{19}); err != nil {
		t.Errorf("all acknowledged, 14 not compared: %v", err)
	}
	err := CheckWireChanges([]WireChange{added, field}, []WireChange{ack(added), old}, []int{14, 19})
	want := "1 wire changes are not acknowledged in wirechanges.json: review each, then add it with its reason:\n" +
		`  {"major":19,"message":"bind","change":"field-added","field":"F","reason":""}` + "\n" +
		"1 acknowledged wire changes did not happen: remove them from wirechanges.json:\n  14 y: message-removed"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
