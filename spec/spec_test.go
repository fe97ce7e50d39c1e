package spec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pgspec/pgspec/spec"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func specFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("pg*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("want spec files pg10.json to the newest, found %v (%v)", files, err)
	}
	// Every major from 10 on, none missing.
	for i := range files {
		if want := fmt.Sprintf("pg%d.json", 10+i); !slices.Contains(files, want) {
			t.Fatalf("want spec files pg10.json to the newest, found %v: no %s", files, want)
		}
	}
	return files
}

func TestSpecFilesValidateAgainstSchema(t *testing.T) {
	sch := compileSchema(t)
	for _, name := range specFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSchemaRejectsBrokenSpecs(t *testing.T) {
	sch := compileSchema(t)
	data, err := os.ReadFile("pg18.json")
	if err != nil {
		t.Fatal(err)
	}
	breakers := map[string]func(m map[string]any){
		"no release":          func(m map[string]any) { delete(m, "release") },
		"unknown type kind":   func(m map[string]any) { firstRow(m)["type"].(map[string]any)["kind"] = "float" },
		"empty description":   func(m map[string]any) { firstRow(m)["description"].(map[string]any)["en"] = "" },
		"logical with a F/B":  func(m map[string]any) { logical(m)["direction"] = "B" },
		"slug not kebab-case": func(m map[string]any) { msgs(m)[0].(map[string]any)["slug"] = "Authentication_Ok" },
		"unknown annotation": func(m map[string]any) {
			firstRow(m)["annotations"] = []any{map[string]any{"kind": "maybe", "phrase": "x"}}
		},
		"extra key": func(m map[string]any) { m["generated_at"] = "now" },
	}
	for name, brk := range breakers {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		brk(m)
		raw, _ := json.Marshal(m)
		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err := sch.Validate(doc); err == nil {
			t.Errorf("%s: schema accepted it", name)
		}
	}
}

func msgs(m map[string]any) []any { return m["messages"].([]any) }

func firstRow(m map[string]any) map[string]any {
	b := msgs(m)[0].(map[string]any)["blocks"].([]any)[0].(map[string]any)
	return b["rows"].([]any)[0].(map[string]any)
}

func logical(m map[string]any) map[string]any {
	for _, x := range msgs(m) {
		if x.(map[string]any)["layer"] == spec.LayerLogicalReplication {
			return x.(map[string]any)
		}
	}
	panic("no logical message")
}

// Loading and writing back gives the same bytes: the format is stable.
func TestLoadMarshalRoundTrip(t *testing.T) {
	specs, err := spec.LoadAll(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		data, err := spec.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(spec.FileName(s.Major))
		if !bytes.Equal(data, want) {
			t.Errorf("pg%d: re-marshalled spec differs from the file", s.Major)
		}
		if !bytes.HasSuffix(data, []byte("}\n")) || bytes.Contains(data, []byte(`\u003c`)) {
			t.Errorf("pg%d: want pretty JSON with a trailing newline and unescaped HTML characters", s.Major)
		}
	}
}

func TestLoadRejectsUnknownFields(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pg18.json"), []byte(`{"major": 18, "colour": "blue"}`), 0o644)
	_, err := spec.Load(os.DirFS(dir), 18)
	if err == nil || !strings.Contains(err.Error(), `pg18.json:1:15: json: unknown field "colour"`) {
		t.Errorf("got %v", err)
	}
	os.WriteFile(filepath.Join(dir, "pg17.json"), []byte(`{"major": 18}`), 0o644)
	if _, err := spec.Load(os.DirFS(dir), 17); err == nil || !strings.Contains(err.Error(), "major is 18, want 17") {
		t.Errorf("got %v", err)
	}
}

// TestFlowValidatesAgainstSchema: flow.json is what flow.schema.json
// describes.
func TestFlowValidatesAgainstSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	for _, name := range []string{"flow.schema.json", "flow.json"} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if name == "flow.json" {
			sch, err := c.Compile("flow.schema.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(doc); err != nil {
				t.Error(err)
			}
			continue
		}
		if err := c.AddResource(name, doc); err != nil {
			t.Fatal(err)
		}
	}
}
