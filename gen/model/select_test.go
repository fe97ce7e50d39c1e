package model

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

func committedModel(t *testing.T) *Model {
	t.Helper()
	specs, ov := loadCommitted(t)
	mod, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func TestParseMajors(t *testing.T) {
	for in, want := range map[string][]int{"14-18": {14, 15, 16, 17, 18}, "10,12": {10, 12}, "12, 10-11,12": {10, 11, 12}, "19": {19}} {
		got, err := ParseMajors(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"18-14", "x", "14-", "-3", "0", "64", "14-18-19", ",", " , "} {
		if got, err := ParseMajors(in); err == nil {
			t.Errorf("%q: accepted as %v", in, got)
		}
	}
}

func TestParseLayers(t *testing.T) {
	got, err := ParseLayers(spec.EmbeddedRules(), "logical,replication,logical-replication")
	if want := []string{spec.LayerLogicalReplication, spec.LayerStreamingReplication}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if _, err := ParseLayers(spec.EmbeddedRules(), "logical,physical"); err == nil || !strings.Contains(err.Error(), `unknown layer "physical"`) {
		t.Errorf("physical: %v", err)
	}
	if _, err := ParseLayers(spec.EmbeddedRules(), ","); err == nil || err.Error() != `"," names no layer` {
		t.Errorf("a list of no layer: %v", err)
	}
	if got, err := ParseLayers(spec.EmbeddedRules(), ""); got != nil || err != nil {
		t.Errorf("no value is the default (all layers): %v, %v", got, err)
	}
}

func slugs(mod *Model) map[string]*Message {
	out := map[string]*Message{}
	for _, m := range mod.Messages {
		out[m.Slug] = m
	}
	return out
}

// The consumer of the issue: 14-18, logical and streaming replication.
func TestSelectMajorsAndLayers(t *testing.T) {
	full := committedModel(t)
	before := slugs(full)["logical-stream-abort"].Layouts[1].Majors
	mod, err := full.Select(Selection{Majors: []int{14, 15, 16, 17, 18}, Layers: []string{spec.LayerLogicalReplication, spec.LayerStreamingReplication}})
	if err != nil {
		t.Fatal(err)
	}
	got := slugs(mod)
	for slug, m := range got {
		if m.Layer == spec.LayerFrontendBackend {
			t.Errorf("%s: frontend-backend message selected", slug)
		}
		if m.Majors[0] < 14 || m.Majors[len(m.Majors)-1] > 18 {
			t.Errorf("%s: majors %v", slug, m.Majors)
		}
	}
	for _, slug := range []string{"logical-insert", "logical-stream-start", "logical-tuple-data", "replication-xlog-data"} {
		if got[slug] == nil {
			t.Errorf("%s missing", slug)
		}
	}
	if got["replication-primary-status-update"] != nil {
		t.Error("PG 19's primary status update selected for 14-18")
	}
	if len(mod.ErrorFields) != 0 {
		t.Errorf("error field codes without the frontend-backend layer: %d", len(mod.ErrorFields))
	}
	// Stream Abort: one layout for 14-15, one with the abort LSN from 16 on.
	abort := got["logical-stream-abort"]
	var layouts [][]int
	for _, l := range abort.Layouts {
		layouts = append(layouts, l.Majors)
	}
	if want := [][]int{{14, 15}, {16, 17, 18}}; !reflect.DeepEqual(layouts, want) {
		t.Errorf("stream abort layouts %v, want %v", layouts, want)
	}
	if after := slugs(full)["logical-stream-abort"].Layouts[1].Majors; !reflect.DeepEqual(after, full.Majors[slices.Index(full.Majors, 16):]) || !reflect.DeepEqual(before, after) {
		t.Errorf("Select changed the full model's layouts: %v, then %v", before, after)
	}
}

// Fields of majors left out are dropped: Insert's xid exists only from 14.
func TestSelectDropsFieldsOfOtherMajors(t *testing.T) {
	mod, err := committedModel(t).Select(Selection{Majors: []int{10, 11, 12, 13}, Messages: []string{"logical-insert"}})
	if err != nil {
		t.Fatal(err)
	}
	got := slugs(mod)
	if len(got) != 2 || got["logical-insert"] == nil || got["logical-tuple-data"] == nil {
		t.Fatalf("got %v, want logical-insert and the part it carries", mod.Messages)
	}
	// Only their derived defaults come along.
	for _, d := range mod.Defaults {
		if d.Slug != "logical-insert" && d.Slug != "logical-tuple-data" {
			t.Errorf("default of an unselected message: %+v", d)
		}
	}
	if len(mod.Defaults) == 0 {
		t.Error("the selected messages' derived defaults are gone")
	}
	full := slugs(committedModel(t))["logical-insert"]
	if len(got["logical-insert"].Fields) != len(full.Fields)-1 {
		t.Errorf("fields %d of %d; the xid of 14+ should be gone", len(got["logical-insert"].Fields), len(full.Fields))
	}
}

func TestSelectPatterns(t *testing.T) {
	mod, err := committedModel(t).Select(Selection{Messages: []string{"logical-stream-*", "Bind"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range mod.Messages {
		names = append(names, m.Slug)
	}
	if got := strings.Join(names, " "); got != "bind logical-stream-abort logical-stream-commit logical-stream-prepare logical-stream-start logical-stream-stop" {
		t.Errorf("selected %s", got)
	}
}

// The commands layer alone brings the messages its results are read with,
// RowDescription and DataRow, and no other message.
func TestSelectCommandsAlone(t *testing.T) {
	mod, err := committedModel(t).Select(Selection{Layers: []string{spec.LayerCommands}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range mod.Messages {
		names = append(names, m.Slug)
	}
	if got := strings.Join(names, " "); got != "data-row row-description" || len(mod.Commands) == 0 {
		t.Errorf("messages %s and %d commands, want data-row row-description and the commands", got, len(mod.Commands))
	}
}

func TestSelectRefuses(t *testing.T) {
	full := committedModel(t)
	for _, c := range []struct {
		sel  Selection
		want string
	}{
		{Selection{Majors: []int{9, 10}}, "the spec has no PostgreSQL 9 (it has " + MajorList(full.Majors) + ")"},
		{Selection{Messages: []string{"no-such-*"}}, `"no-such-*" selects no message`},
		{Selection{Messages: []string{"[bind"}}, `bad pattern "[bind"`},
		{Selection{Majors: []int{10, 11, 12, 13}, Messages: []string{"logical-stream-start"}}, `"logical-stream-start" selects no message of PostgreSQL 10–13`},
		{Selection{Layers: []string{spec.LayerLogicalReplication}, Messages: []string{"bind"}}, `"bind" selects no message`},
	} {
		if _, err := full.Select(c.sel); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.sel, err, c.want)
		}
	}
}

// A selection is a model of its own: no pointer of it leads into the
// model it was selected from, and every reference (a count's group, a
// condition's choice, a part's message, an element's struct) points at
// what the selection holds.
func TestSelectPointsIntoItself(t *testing.T) {
	full := committedModel(t)
	inFull := modelPointers(reflect.ValueOf(full))
	for _, sel := range []Selection{
		{Majors: []int{14, 15, 16}, Layers: []string{spec.LayerLogicalReplication}},
		{Messages: []string{"notice-response", "error-response"}},
		{Messages: []string{"NoticeResponse"}},
		{Majors: []int{10, 11, 12, 13}, Messages: []string{"logical-insert", "row-description", "bind"}},
	} {
		mod, err := full.Select(sel)
		if err != nil {
			t.Fatal(err)
		}
		name := sel.Flags(full.Rules)
		for p, where := range modelPointers(reflect.ValueOf(mod)) {
			if inFull[p] != "" {
				t.Errorf("%s: %s is the full model's %s", name, where, inFull[p])
			}
		}
		checkReferences(t, name, mod)
	}
	// The full model's own references hold too.
	checkReferences(t, "full", full)
}

// modelPointers maps every pointer to a value of package model reachable
// from v to the path it was first reached by. GoType, a value whose Elem
// is never written after it is made, is left out.
func modelPointers(v reflect.Value) map[uintptr]string {
	pkg := reflect.TypeOf(Model{}).PkgPath()
	out := map[uintptr]string{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type().Elem() == reflect.TypeOf(GoType{}) {
				return
			}
			if v.Type().Elem().PkgPath() == pkg {
				if _, seen := out[v.Pointer()]; seen {
					return
				}
				out[v.Pointer()] = path
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k))
			}
		}
	}
	walk(v, "Model")
	return out
}

// checkReferences holds every reference of mod's layouts to what mod holds.
func checkReferences(t *testing.T, name string, mod *Model) {
	t.Helper()
	msgs := map[*Message]bool{}
	for _, m := range mod.Messages {
		msgs[m] = true
	}
	for _, m := range mod.Messages {
		structs := map[*Struct]bool{}
		for _, st := range m.Structs {
			structs[st] = true
			if st.Msg != m || !slices.Contains(st.Same, st) {
				t.Errorf("%s: %s's struct %s: Msg %p, Same %v", name, m.Slug, st.Name, st.Msg, st.Same)
			}
			for _, o := range st.Same {
				if !msgs[o.Msg] || o.Name != st.Name {
					t.Errorf("%s: %s's struct %s shares %s with %s, which the model lacks", name, m.Slug, st.Name, o.Name, o.Msg.Slug)
				}
			}
		}
		for _, l := range m.Layouts {
			var walk func(items []*Item)
			walk = func(items []*Item) {
				for _, it := range items {
					where := fmt.Sprintf("%s: %s pg%v %s", name, m.Slug, l.Majors, it)
					switch {
					case it.Op == OpCount && (it.Sizes == nil || !slices.Contains(items, it.Sizes)):
						t.Errorf("%s: counts no item beside it", where)
					case it.Cond.When != nil && !slices.Contains(items, it.Cond.When.Choice):
						t.Errorf("%s: depends on no choice beside it", where)
					case it.Op == OpPart && !msgs[it.Part]:
						t.Errorf("%s: carries a part the model lacks", where)
					case it.Op == OpGroup && it.GroupEntry != nil && it.GroupEntry.Type != "" && !structs[it.Struct]:
						t.Errorf("%s: has elements of a struct the message lacks", where)
					}
					walk(it.Elem)
				}
			}
			walk(l.Items)
		}
	}
}
