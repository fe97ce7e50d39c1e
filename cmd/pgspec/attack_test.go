package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/internal/corpus"
	"github.com/pgspec/pgspec/spec"
)

// committed are the majors of the committed spec, increasing.
var committed = func() []int {
	specs, err := spec.LoadAll(spec.Embedded())
	if err != nil {
		panic(err)
	}
	var out []int
	for _, s := range specs {
		out = append(out, s.Major)
	}
	return out
}()

// workingSpec is a spec directory holding the repository's reviewed files
// (overlay, wire-change acknowledgements, corrections) and no pgNN.json.
func workingSpec(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"overlay.json", "wirechanges.json", "corrections.json", "layers.json", "logicalversions.json", "flow.json"} {
		data, err := os.ReadFile(filepath.Join(corpus.Root(), "spec", f))
		if err != nil {
			t.Fatal(err)
		}
		corpus.WriteFile(t, filepath.Join(dir, f), data)
	}
	return dir
}

// Tried as an attacker would: a corpus that lost a directory, or a page of
// 19 (which has no translation to be checked against) that lost a row, a
// message or half its length, with its checksum updated, must never become a
// codec: extract or gen refuses, naming what is wrong, and writes nothing.
func TestDamagedCorpusNeverBecomesACodec(t *testing.T) {
	all := committed
	page := func(docs, name string) []byte {
		data, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	// cut removes from the page the first match of re, or of its first
	// group when it has one.
	cut := func(t *testing.T, data []byte, re string) []byte {
		loc := regexp.MustCompile(re).FindSubmatchIndex(data)
		if loc == nil {
			t.Fatalf("%s not in the page", re)
		}
		if len(loc) > 2 {
			loc = loc[2:]
		}
		return append(bytes.Clone(data[:loc[0]]), data[loc[1]:]...)
	}
	const (
		formats    = "en/19/protocol-message-formats.html"
		logicalrep = "en/19/protocol-logicalrep-message-formats.html"
	)
	for _, c := range []struct {
		name    string
		damage  func(t *testing.T, docs string)
		extract string // what extract says, or "" when only gen can tell
		gen     string
	}{
		{"major directory dropped", func(t *testing.T, docs string) {
			os.RemoveAll(filepath.Join(docs, "en", "17"))
		}, "en/17: the directory is missing; MANIFEST.md lists its pages", ""},
		{"language directory dropped", func(t *testing.T, docs string) {
			os.RemoveAll(filepath.Join(docs, "zh"))
		}, "zh/10: the directory is missing; MANIFEST.md lists its pages", ""},
		{"a row of 19 dropped", func(t *testing.T, docs string) {
			corpus.SetPage(t, docs, formats, cut(t, page(docs, formats), `<dt><span class="term">Int32</span></dt><dd><p>\s*The process ID of this backend.\s*</p></dd>`))
		}, "", "1 wire changes are not acknowledged in wirechanges.json: review each, then add it with its reason:\n" +
			`  {"major":19,"message":"backend-key-data","change":"field-removed","field":"ProcessID","reason":""}` + "\n"},
		{"a message of 19 dropped", func(t *testing.T, docs string) {
			corpus.SetPage(t, docs, formats, cut(t, page(docs, formats), `(?s)(<dt id="PROTOCOL-MESSAGE-FORMATS-SYNC">.*?)<dt id="PROTOCOL-MESSAGE-FORMATS-TERMINATE">`))
		}, "", "1 wire changes are not acknowledged in wirechanges.json: review each, then add it with its reason:\n" +
			`  {"major":19,"message":"sync","change":"message-removed","reason":""}` + "\n"},
		{"half a page of 19 dropped mid-entry", func(t *testing.T, docs string) {
			data := page(docs, logicalrep)
			corpus.SetPage(t, docs, logicalrep, data[:len(data)/2])
		}, `en/19/protocol-logicalrep-message-formats.html: message "Truncate": message term has no description`, ""},
		{"half a page of 19 dropped at an entry", func(t *testing.T, docs string) {
			data := page(docs, logicalrep)
			corpus.SetPage(t, docs, logicalrep, data[:bytes.Index(data, []byte(`<dt id="PROTOCOL-LOGICALREP-MESSAGE-FORMATS-STREAM-START"`))])
		}, "", `pg19 logical-insert: no message part "TupleData" in pg19`},
		{"the middle half of a page of 19 dropped", func(t *testing.T, docs string) {
			corpus.SetPage(t, docs, logicalrep, cut(t, page(docs, logicalrep), `(?s)(<dt id="PROTOCOL-LOGICALREP-MESSAGE-FORMATS-STREAM-START".*?)<dt id="PROTOCOL-LOGICALREP-MESSAGE-FORMATS-TUPLEDATA"`))
		}, "", "9 wire changes are not acknowledged in wirechanges.json: review each, then add it with its reason:\n" +
			`  {"major":19,"message":"logical-begin-prepare","change":"message-removed","reason":""}` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := corpus.Copy(t, all...)
			c.damage(t, docs)
			specDir := workingSpec(t)
			code, _, stderr := pgspec(t, "extract", "--docs", docs, "--spec", specDir, "--out", specDir)
			if c.extract != "" {
				if code != 1 || !strings.Contains(stderr, c.extract) {
					t.Fatalf("extract: exit %d, stderr %q; want exit 1 and %q", code, stderr, c.extract)
				}
				if files, _ := filepath.Glob(filepath.Join(specDir, "pg*.json")); len(files) != 0 {
					t.Errorf("a failed extract wrote %v", files)
				}
				return
			}
			if code != 0 {
				t.Fatalf("extract: exit %d: %s", code, stderr)
			}
			out := filepath.Join(t.TempDir(), "codec")
			code, _, stderr = pgspec(t, "gen", "--spec", specDir, "--out", out)
			if code != 1 || !strings.Contains(stderr, c.gen) {
				t.Errorf("gen: exit %d, stderr %q; want exit 1 and %q", code, stderr, c.gen)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused gen created its output directory")
			}
		})
	}
}

// A run that fails leaves what the previous run wrote as it was, and no
// temporary file beside it.
func TestFailedRunLeavesOutputIntact(t *testing.T) {
	snapshot := func(dir string) map[string]string {
		files := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			files[e.Name()] = string(data)
		}
		return files
	}
	same := func(t *testing.T, what string, a, b map[string]string) {
		t.Helper()
		if len(a) != len(b) {
			t.Errorf("%s: %d files before, %d after", what, len(a), len(b))
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s: %s changed", what, k)
			}
		}
	}

	// export: one record cannot be written (its name is taken by a directory).
	out := t.TempDir()
	corpus.WriteFile(t, filepath.Join(out, "logical-update.json"), []byte("old"))
	os.Mkdir(filepath.Join(out, "bind.json"), 0o755)
	before := snapshot(out)
	if code, _, stderr := pgspec(t, "export", "--out", out); code != 1 || !strings.Contains(stderr, "bind.json: is a directory") {
		t.Errorf("export: exit %d, %q", code, stderr)
	}
	same(t, "export", before, snapshot(out))

	// gen: the spec has a wire change nobody acknowledged.
	specDir := workingSpec(t)
	for _, m := range committed {
		data, _ := os.ReadFile(filepath.Join(corpus.Root(), "spec", fmt.Sprintf("pg%d.json", m)))
		corpus.WriteFile(t, filepath.Join(specDir, fmt.Sprintf("pg%d.json", m)), data)
	}
	corpus.WriteFile(t, filepath.Join(specDir, "wirechanges.json"), []byte(`{"wire_changes": []}`))
	codec := t.TempDir()
	corpus.WriteFile(t, filepath.Join(codec, "bind_gen.go"), []byte("package codec // old"))
	corpus.WriteFile(t, filepath.Join(codec, "stale_gen.go"), []byte("package codec // stale"))
	before = snapshot(codec)
	var acknowledged struct {
		WireChanges []any `json:"wire_changes"`
	}
	if data, err := os.ReadFile(filepath.Join(corpus.Root(), "spec", "wirechanges.json")); err != nil || json.Unmarshal(data, &acknowledged) != nil {
		t.Fatalf("spec/wirechanges.json: %v", err)
	}
	if code, _, stderr := pgspec(t, "gen", "--spec", specDir, "--out", codec); code != 1 ||
		!strings.Contains(stderr, fmt.Sprintf(": %d wire changes are not acknowledged", len(acknowledged.WireChanges))) {
		t.Errorf("gen: exit %d, %q", code, stderr)
	}
	same(t, "gen", before, snapshot(codec))

	// extract: the corpus lacks a page.
	docs := t.TempDir()
	corpus.WriteFile(t, filepath.Join(docs, "MANIFEST.md"), []byte("## Files\n\n| `en/18/protocol-message-formats.html` | en | 18 | 18.6 | x | y | `00` |\n"))
	corpus.WriteFile(t, filepath.Join(specDir, "pg18.json"), []byte("old"))
	before = snapshot(specDir)
	if code, _, _ := pgspec(t, "extract", "--docs", docs, "--out", specDir); code != 1 {
		t.Errorf("extract: exit %d", code)
	}
	same(t, "extract", before, snapshot(specDir))
}
