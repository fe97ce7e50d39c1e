package model

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// tiny loads the tiny test spec and its overlay as generic JSON to mutate.
func tiny(t *testing.T) ([]*spec.Spec, map[string]any) {
	t.Helper()
	fsys := os.DirFS("../testdata/spec")
	specs, err := spec.LoadAll(fsys)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../testdata/spec/overlay.json")
	if err != nil {
		t.Fatal(err)
	}
	var ov map[string]any
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	return specs, ov
}

// build parses the mutated overlay and builds the model, returning the error text.
func build(t *testing.T, specs []*spec.Spec, ov map[string]any) string {
	t.Helper()
	o, err := parse(t, ov)
	if err != nil {
		return err.Error()
	}
	if _, err := Build(specs, o); err != nil {
		return err.Error()
	}
	return ""
}

// parse parses the mutated overlay.
func parse(t *testing.T, ov map[string]any) (*spec.Overlay, error) {
	t.Helper()
	data, err := json.Marshal(ov)
	if err != nil {
		t.Fatal(err)
	}
	return spec.ParseOverlay(data)
}

func messages(ov map[string]any) map[string]any { return ov["messages"].(map[string]any) }

func entry(ov map[string]any, slug string) map[string]any { return messages(ov)[slug].(map[string]any) }

func fields(ov map[string]any, slug string) []any { return entry(ov, slug)["fields"].([]any) }

func TestTinyOverlayBuilds(t *testing.T) {
	specs, ov := tiny(t)
	if got := build(t, specs, ov); got != "" {
		t.Fatal(got)
	}
}

func TestOverlayProblems(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(map[string]any)
		want   []string
	}{
		{"entry matching nothing", func(ov map[string]any) {
			e := entry(ov, "bind")
			e["fields"] = append(fields(ov, "bind"), map[string]any{"match": "no such description", "name": "Ghost"})
		}, []string{`overlay bind: field 3 ("no such description"): matches no row in any major`}},
		{"row matched by no entry", func(ov map[string]any) {
			entry(ov, "bind")["fields"] = fields(ov, "bind")[1:]
		}, []string{`pg10 bind: row String "The name of the destination portal." is matched by no overlay entry`,
			`pg11 bind: row String "The name of the destination portal." is matched by no overlay entry`}},
		{"row matched by two entries", func(ov map[string]any) {
			entry(ov, "bind")["fields"] = append(fields(ov, "bind"), map[string]any{"match": "portal", "name": "Portal2"})
		}, []string{`pg10 bind: row String "The name of the destination portal." matched by two entries ("destination portal", "portal")`}},
		{"field without a name", func(ov map[string]any) {
			fields(ov, "cancel")[0].(map[string]any)["name"] = ""
		}, []string{`cancel: field 0 ("process ID"): field without a name`}},
		{"name the manual already gives", func(ov map[string]any) {
			messages(ov)["auth-ok"] = map[string]any{"name": "AuthOk", "reason": "r"}
		}, []string{`overlay auth-ok: name AuthOk restates the default (the manual's); remove it`}},
		{"overlay message not in any spec", func(ov map[string]any) {
			messages(ov)["nope"] = map[string]any{"name": "Nope", "reason": "r"}
		}, []string{`overlay nope: matches no message in any major`}},
		{"group without an entry", func(ov map[string]any) {
			delete(entry(ov, "bind"), "groups")
		}, []string{`pg10 bind: lead "Next, the following pair of fields appear for each parameter:" opens a group that no overlay group entry names`}},
		{"decision without a reason", func(ov map[string]any) {
			delete(fields(ov, "logical-tuple-data")[1].(map[string]any), "reason")
		}, []string{`logical-tuple-data: field 1 ("value of the column"): decides structure but has no reason`}},
		{"overlay restating the manual", func(ov map[string]any) {
			xid := fields(ov, "logical-update")[0].(map[string]any)
			xid["gate"], xid["reason"] = "streamed", "r"
			kind := fields(ov, "logical-update")[2].(map[string]any)
			kind["choice"], kind["reason"] = "optional", "r"
			old := fields(ov, "logical-update")[3].(map[string]any)
			old["when"], old["reason"] = "OldKind", "r"
		}, []string{`pg11 logical-update: the entry "only present for streamed" gives the gate streamed the manual already states`,
			`pg10 logical-update: the entry "as a key|as an old tuple" makes OldKind optional, as the manual already does; remove its choice`,
			`pg10 logical-update: the entry "old tuple or primary key" gives the condition the manual already states; remove its when`}},
		{"when naming no choice", func(ov map[string]any) {
			old := fields(ov, "logical-update")[3].(map[string]any)
			old["when"], old["reason"] = "Nope", "r"
		}, []string{`pg10 logical-update: the entry "old tuple or primary key" makes Old depend on Nope, which is no choice before it`}},
		{"Go type of another width", func(ov map[string]any) {
			rel := fields(ov, "logical-update")[1].(map[string]any)
			rel["type"], rel["reason"] = "uint64", "r"
		}, []string{`pg10 logical-update: Int32 "`, `is 4 bytes wide, but its Go type is uint64`}},
		{"unknown gate", func(ov map[string]any) {
			fields(ov, "logical-update")[0].(map[string]any)["gate"] = "sometimes"
		}, []string{`unknown gate "sometimes"`}},
		{"flattened group with two fields", func(ov map[string]any) {
			groups := entry(ov, "startup")["groups"].([]any)
			delete(groups[0].(map[string]any), "type")
		}, []string{`pg10 startup: group Params has 2 fields per element; give it a type`}},
		{"field types that disagree", func(ov map[string]any) {
			fields(ov, "key-data")[0].(map[string]any)["majors"] = "10"
			fields(ov, "key-data")[0].(map[string]any)["reason"] = "test"
			entry(ov, "key-data")["fields"] = append(fields(ov, "key-data"), map[string]any{"match": "process ID", "majors": "11", "name": "ProcessID", "type": "int64", "reason": "test"})
		}, []string{`key-data: field ProcessID is int64 in pg11 but uint32 in pg10`}},
		{"64-bit integer without a kind", func(ov map[string]any) {
			delete(fields(ov, "replication-keepalive")[0].(map[string]any), "kind")
		}, []string{`replication-keepalive: 64-bit field Keepalive.WALEnd has no annotation in the manual; give its overlay entry a kind`}},
		{"kind the annotation already gives", func(ov map[string]any) {
			xid := fields(ov, "logical-update")[0].(map[string]any)
			xid["kind"], xid["reason"] = "xid", "r"
		}, []string{`the entry "only present for streamed" gives the kind xid the manual's annotation (TransactionId) already states; remove it`}},
		{"unknown kind", func(ov map[string]any) {
			fields(ov, "replication-keepalive")[0].(map[string]any)["kind"] = "lsm"
		}, []string{`kind "lsm" is none of lsn, timestamp, oid, xid, full-xid, plain`}},
		{"secret that is no field", func(ov map[string]any) {
			entry(ov, "password")["secret"] = []any{"Passwd"}
			entry(ov, "password")["reason"] = "r"
		}, []string{`overlay password: secret Passwd is no field of the message`}},
		{"secret without a reason", func(ov map[string]any) {
			entry(ov, "key-data")["secret"] = []any{"SecretKey"}
		}, []string{`key-data: no reason`}},
		{"unknown overlay key", func(ov map[string]any) {
			entry(ov, "bind")["nmae"] = "typo"
		}, []string{`unknown field "nmae"`}},
		{"counted group of elements that can take no bytes", func(ov map[string]any) {
			entry(ov, "bind")["fields"] = append(fields(ov, "bind"), map[string]any{"match": "value of the parameter", "name": "Params", "gate": "streamed", "reason": "a test"})
		}, []string{`pg10–11 bind: group Params has elements that can take no bytes, so its count cannot be bounded`}},
		{"every problem at once", func(ov map[string]any) {
			messages(ov)["auth-ok"] = map[string]any{"name": "AuthOk", "reason": "r"}
			entry(ov, "bind")["fields"] = append(fields(ov, "bind")[1:], map[string]any{"match": "nothing at all", "name": "Ghost"})
		}, []string{"restates the default", "is matched by no overlay entry", "matches no row in any major"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			specs, ov := tiny(t)
			c.mutate(ov)
			got := build(t, specs, ov)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
		})
	}
}

// TestNewMajorNeedsTheOverlay: a row PostgreSQL 20 adds that no overlay
// entry covers is an error, not a silent guess.
func TestNewMajorNeedsTheOverlay(t *testing.T) {
	specs, ov := tiny(t)
	next := *specs[len(specs)-1]
	next.Major = 12
	next.Messages = append([]spec.Message(nil), next.Messages...)
	for i := range next.Messages {
		if next.Messages[i].Slug == "cancel" {
			m := next.Messages[i]
			m.Blocks = []spec.Block{{Rows: append(append([]spec.Row(nil), m.Blocks[0].Rows...),
				spec.Row{Format: "Int32", Type: spec.Type{Kind: spec.KindInt, Width: 4}, Description: spec.Text{En: "The new cancel flags."}})}}
			next.Messages[i] = m
		}
	}
	got := build(t, append(specs, &next), ov)
	if want := `pg12 cancel: row Int32 "The new cancel flags." is matched by no overlay entry`; !strings.Contains(got, want) {
		t.Errorf("got %q", got)
	}
}

// TestLayoutOf tells wire changes from annotation changes: the tiny spec's
// Truncate only gains "(Oid)" in 11, its KeyData changes the secret key.
func TestLayoutOf(t *testing.T) {
	specs, ovJSON := tiny(t)
	data, _ := json.Marshal(ovJSON)
	ov, err := spec.ParseOverlay(data)
	if err != nil {
		t.Fatal(err)
	}
	layout := func(s *spec.Spec, slug string) string {
		l, err := LayoutOf(s, slug, ov)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(l, " ")
	}
	if a, b := layout(specs[0], "logical-truncate"), layout(specs[1], "logical-truncate"); a != b {
		t.Errorf("annotation change reads as a wire change:\n%s\n%s", a, b)
	}
	if a, b := layout(specs[0], "key-data"), layout(specs[1], "key-data"); a == b {
		t.Errorf("secret key change not seen: %s", a)
	}
	want := `tag8('K') length32 int32:ProcessID rest(3.0:4..4)(3.2:4..256):SecretKey`
	if got := layout(specs[1], "key-data"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := LayoutOf(specs[0], "logical-stream-abort", ov); err == nil {
		t.Error("a message the major lacks has a layout")
	}
}

// TestDerived: what the manual says in prose becomes structure without an
// overlay entry deciding it; the tiny overlay names the fields only.
func TestDerived(t *testing.T) {
	specs, ovJSON := tiny(t)
	data, _ := json.Marshal(ovJSON)
	ov, err := spec.ParseOverlay(data)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	item := func(slug, field string, major int) *Item {
		for _, m := range mod.Messages {
			for _, l := range m.Layouts {
				if m.Slug != slug || !slices.Contains(l.Majors, major) {
					continue
				}
				for _, it := range l.Items {
					if it.Field == field && it.Op != OpCount {
						return it
					}
				}
			}
		}
		t.Fatalf("%s: no field %s in pg%d", slug, field, major)
		return nil
	}
	if c := item("logical-update", "Xid", 11).Cond; c.Gate != GateStreamed {
		t.Errorf("Update.Xid: %+v, want the streamed gate (“only present for streamed transactions”)", c)
	}
	if c := item("logical-stream-abort", "AbortLSN", 11).Cond; c.Gate != GateParallel {
		t.Errorf("StreamAbort.AbortLSN: %+v, want the parallel gate (“present only when streaming is set to parallel”)", c)
	}
	if ch := item("logical-update", "OldKind", 10).Choice; ch == nil || string(ch.Tags) != "KO" || !ch.Optional {
		t.Errorf("Update.OldKind: %+v, want an optional choice of K, O (“This field is optional”)", ch)
	}
	if w := item("logical-update", "Old", 10).Cond.When; w == nil || w.Field != "OldKind" || len(w.Tags) != 0 {
		t.Errorf("Update.Old: %+v, want present when OldKind != 0 (“only present if the previous 'O' or 'K' part is present”)", w)
	}
	if ch := item("logical-tuple-data", "Columns", 10).Elem[0].Choice; ch == nil || ch.Optional {
		t.Errorf("TupleData.Columns.Kind: %+v, want a required choice (alternatives joined by “Or”)", ch)
	}
	has := func(prefix string) bool {
		return slices.ContainsFunc(mod.Defaults, func(d Default) bool { return strings.HasPrefix(d.Text, prefix) })
	}
	for _, want := range []string{"logical-update Xid: gate streamed", "logical-update: Byte1('N') is a constant",
		"logical-update OldKind: optional choice of 'K' or 'O'", "logical-update Old: present when OldKind != 0", "auth-ok: Go name AuthOk"} {
		if !has(want) {
			t.Errorf("defaults lack %q:\n%v", want, mod.Defaults)
		}
	}
	if has("logical-update: Go name") {
		t.Error("the defaults list a Go name for Update, which the overlay names")
	}
}

// A field "available since protocol version N" for an N the code has never
// seen is a row of spec/logicalversions.json, not code: without the row the
// model refuses the field, naming the table; with it the field is sent from
// version N on, in the streaming state the row names, if any.
func TestNewLogicalVersionIsARow(t *testing.T) {
	specs, ovJSON := tiny(t)
	for _, s := range specs {
		if m := s.Find("logical-truncate"); m != nil {
			blk := &m.Blocks[len(m.Blocks)-1]
			blk.Rows = append(blk.Rows, spec.Row{Format: "Int32", Type: spec.Type{Kind: spec.KindInt, Width: 4},
				Description: spec.Text{En: "Number of frobnications. This field is available since protocol version 5."},
				Annotations: []spec.Annotation{{Kind: spec.AnnSinceProtocol, Value: "5", Phrase: "available since protocol version 5"}}})
		}
	}
	fs := fields(ovJSON, "logical-truncate")
	entry(ovJSON, "logical-truncate")["fields"] = append(fs, map[string]any{"match": "frobnications", "name": "Frobs"})
	ov, err := parse(t, ovJSON)
	if err != nil {
		t.Fatal(err)
	}
	rules := *spec.EmbeddedRules()
	ov.Rules = &rules
	if _, err := Build(specs, ov); err == nil || !strings.Contains(err.Error(), `"Number of frobnications. This field is available since proto…" is available since protocol version 5, which logicalversions.json does not list`) {
		t.Fatalf("a version the table lacks: %v", err)
	}
	for _, c := range []struct {
		gate string
		want string
	}{
		{"", "Int32 [logical protocol 5+]"},
		{spec.GateStreamed, "Int32 [streamed] [logical protocol 5+]"},
	} {
		rules.LogicalVersions = append(spec.EmbeddedRules().LogicalVersions[:4:4], &spec.LogicalVersion{Version: 5, Major: 20, Gate: c.gate, Brings: "frobnication", Reason: "a test"})
		mod, err := Build(specs, ov)
		if err != nil {
			t.Fatalf("gate %q: %v", c.gate, err)
		}
		var got string
		for _, m := range mod.Messages {
			if m.Slug == "logical-truncate" {
				last := m.Layouts[len(m.Layouts)-1].Items
				got = last[len(last)-1].Manual()
			}
		}
		if got != c.want {
			t.Errorf("gate %q: the field is %q, want %q", c.gate, got, c.want)
		}
	}
}

// An item whose op lacks what the generated code needs is an error of
// Build naming the message and the field, not a panic of emit.
func TestIllFormedItems(t *testing.T) {
	for _, c := range []struct {
		name   string
		slug   string
		mutate func(rows []spec.Row)
		want   string
	}{
		{"part the major lacks", "logical-update", func(rows []spec.Row) {
			rows[len(rows)-1].Type.Part = "TupleDatum"
		}, `pg10 logical-update: no message part "TupleDatum" in pg10`},
		{"zero-terminated group of another shape", "startup", func(rows []spec.Row) {
			rows[len(rows)-1].Format, rows[len(rows)-1].Type = "Int32", spec.Type{Kind: spec.KindInt, Width: 4}
		}, `pg10 startup: group Params is ended by a zero byte, but its elements are not fixed bytes then strings, always present`},
		{"fixed value wider than its row", "cancel", func(rows []spec.Row) {
			rows[1].Format, rows[1].Type.Width = "Int16(80877102)", 2
		}, `pg10 cancel: Int16(80877102) "The cancel request code." fixes the value 80877102 in 2 bytes`},
	} {
		t.Run(c.name, func(t *testing.T) {
			specs, ov := tiny(t)
			m := specs[0].Find(c.slug)
			var rows []spec.Row
			for i := range m.Blocks {
				rows = append(rows, m.Blocks[i].Rows...)
			}
			c.mutate(rows)
			// rows are copies: write them back block by block.
			for i := range m.Blocks {
				n := len(m.Blocks[i].Rows)
				m.Blocks[i].Rows, rows = rows[:n:n], rows[n:]
			}
			got := build(t, specs, ov)
			if !strings.Contains(got, c.want) {
				t.Errorf("missing %q in:\n%s", c.want, got)
			}
		})
	}
}

// Where a layer travels is a row's in (spec/layers.json): the field it
// names carries the layer; a field the message lacks, or one that is no
// []byte, is an error naming the table.
func TestLayerTravelsInAField(t *testing.T) {
	specs, ovJSON := tiny(t)
	ov, err := parse(t, ovJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		msg, field, err string
	}{
		{"sasl-response", "Data", ""},
		{"sasl-response", "Nope", "layers.json: layer logical-replication travels in sasl-response's Nope, no field of the message"},
		{"password", "Password", "layers.json: layer logical-replication travels in password's Password, which is no []byte or not the message's only carrier"},
	} {
		rules := *spec.EmbeddedRules()
		rules.Layers = slices.Clone(rules.Layers)
		for i, l := range rules.Layers {
			c2 := *l
			c2.In = nil
			if l.Layer == spec.LayerLogicalReplication {
				c2.In = &spec.CarrierRule{Message: c.msg, Field: c.field}
			}
			rules.Layers[i] = &c2
		}
		ov.Rules = &rules
		mod, err := Build(specs, ov)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("in %s's %s: %v, want %s", c.msg, c.field, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range mod.Messages {
			for _, f := range m.Fields {
				if f.Carries != "" {
					got = append(got, m.Slug+"."+f.Name+" "+f.Carries)
				}
			}
		}
		if want := []string{"sasl-response.Data logical-replication"}; !slices.Equal(got, want) {
			t.Errorf("carriers %v, want %v", got, want)
		}
	}
}
