package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/gen/extract"
	"github.com/pgspec/pgspec/internal/corpus"
)

// fakeMajor20 serves "PostgreSQL 20": the pages of 19 (the five and the
// chapter's others) with one Int32 added at the end of logical Commit and
// one new pgoutput message, Progress ('Q').
func fakeMajor20(t *testing.T) *httptest.Server {
	t.Helper()
	pages := map[string][]byte{}
	for _, k := range extract.PagesOf(19) {
		data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "en", "19", k.File))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(data), "PostgreSQL 19rc1 Documentation", "PostgreSQL 20.0 Documentation")
		if k.File == "protocol-logicalrep-message-formats.html" {
			commit := `<dt id="PROTOCOL-LOGICALREP-MESSAGE-FORMATS-COMMIT"`
			end := "</dl></div></dd>"
			i := strings.Index(s, commit)
			if i < 0 || !strings.Contains(s[i:], end) {
				t.Fatal("logical Commit not found in en/19")
			}
			j := i + strings.Index(s[i:], end)
			s = s[:j] + `<dt><span class="term">Int32</span></dt><dd><p>Number of changes in the transaction.</p></dd>` + end +
				`<dt id="PROTOCOL-LOGICALREP-MESSAGE-FORMATS-PROGRESS"><span class="term">Progress</span></dt><dd>` +
				`<div class="variablelist"><dl class="variablelist">` +
				`<dt><span class="term">Byte1('Q')</span></dt><dd><p>Identifies the message as a progress message.</p></dd>` +
				`<dt><span class="term">Int64 (XLogRecPtr)</span></dt><dd><p>The LSN the walsender has decoded up to.</p></dd>` +
				`</dl></div></dd>` + s[j+len(end):]
		}
		pages["/docs/20/"+k.File] = []byte(s)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if data, ok := pages[r.URL.Path]; ok {
			w.Write(data)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// editJSON rewrites a JSON file of the spec directory through edit.
func editJSON(t *testing.T, path string, edit func(doc map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	if data, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	corpus.WriteFile(t, path, data)
}

// The new-major drill, run step by step from the README's "When PostgreSQL
// N ships" (its paths mapped to temporary copies, fetch pointed at the fake
// 20): fetch → extract → gen stops with exactly what a person must decide
// (the overlay's Go names, then the wire changes to acknowledge), the two
// $EDITOR steps write those, and then the codec gains 20 and the matrix
// shows 19 → 20's changes as wire changes; the module's tests with 20
// fail only in goldens. It builds and runs the module's tests a second time,
// so -short skips it (make check, which CI runs, does not pass -short).
func TestNewMajorDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the module's tests again, in a copy with a new major")
	}
	srv := fakeMajor20(t)
	docs := corpus.Copy(t, committed...)
	specDir := workingSpec(t)
	codec := filepath.Join(t.TempDir(), "codec")
	now = func() time.Time { return time.Date(2027, 9, 25, 12, 0, 0, 0, time.UTC) }
	defer func() { now = time.Now }()
	// A consumer's package before 20: logical replication of 14–19.
	consumer := filepath.Join(t.TempDir(), "wire")
	if code, _, stderr := pgspec(t, "gen", "-spec", filepath.Join(corpus.Root(), "spec"), "-out", consumer, "-majors", "14-19", "-layers", "logical"); code != 0 {
		t.Fatalf("consumer gen: %s", stderr)
	}
	before := generated(t, consumer)
	paths := map[string]string{"../shared/docs": docs, "spec": specDir, "codec": codec}
	for _, f := range []string{"matrix.md", "matrix.zh.md", "matrix.json", "matrix.html"} {
		paths["spec/"+f] = filepath.Join(specDir, f)
	}

	fetched := func(code int, out, stderr string) {
		if code != 0 || strings.Count(out, "\n") != 11 || !strings.HasPrefix(out, "en/20/protocol-message-formats.html  20.0  ") ||
			!strings.Contains(out, "\nen/20/logicaldecoding-output-plugin.html  20.0  ") {
			t.Fatalf("fetch: exit %d\n%s%s", code, out, stderr)
		}
		manifest, _ := os.ReadFile(filepath.Join(docs, "MANIFEST.md"))
		if !strings.Contains(string(manifest), "| `en/20/protocol-replication.html` | en | 20 | 20.0 | "+srv.URL+"/docs/20/protocol-replication.html | fetched by pgspec fetch on 2027-09-25T12:00:00Z, ") ||
			!strings.Contains(string(manifest), "| `en/20/protocol-flow.html` | en | 20 | 20.0 | ") {
			t.Errorf("MANIFEST.md does not record the fetched pages")
		}
	}
	extracted := func(code int, out, stderr string) {
		if code != 0 || !strings.Contains(out, "\n20    en         83    353 ") {
			t.Fatalf("extract: exit %d\n%s%s", code, out, stderr)
		}
	}
	// The three gen runs: first the overlay (the new rows need Go names;
	// the new message's name is the manual's),
	// then the wire changes, each acknowledged once with its reason, then
	// the codec.
	gens := []func(code int, out, stderr string){
		func(code int, out, stderr string) {
			if stderr = strings.TrimPrefix(stderr, "pgspec gen: spec "+specDir+": "); code != 1 || stderr != "2 problem(s):\n"+
				"  pg20 logical-commit: row Int32 \"Number of changes in the transaction.\" is matched by no overlay entry\n"+
				"  pg20 logical-progress: row Int64 (XLogRecPtr) \"The LSN the walsender has decoded up to.\" is matched by no overlay entry\n" {
				t.Fatalf("gen before the overlay: exit %d, %q", code, stderr)
			}
		},
		func(code int, out, stderr string) {
			if stderr = strings.TrimPrefix(stderr, "pgspec gen: spec "+specDir+": "); code != 1 || stderr != "2 wire changes are not acknowledged in wirechanges.json: review each, then add it with its reason:\n"+
				`  {"major":20,"message":"logical-commit","change":"field-added","field":"Changes","reason":""}`+"\n"+
				`  {"major":20,"message":"logical-progress","change":"message-added","reason":""}`+"\n" {
				t.Fatalf("gen before the acknowledgements: exit %d, %q", code, stderr)
			}
			if _, err := os.Stat(codec); err == nil {
				t.Fatal("a refused gen wrote its output")
			}
		},
		func(code int, out, stderr string) {
			if code != 0 {
				t.Fatalf("gen with the decisions made: exit %d, %s", code, stderr)
			}
			// The review surface: the one derivation the pinned list lacks.
			if !strings.HasSuffix(out, "; 1 differ from the pinned list of the committed spec (-v lists all):\n"+
				"  + logical-progress: Go name LogicalProgress, Logical + the manual's “Progress”\n") {
				t.Errorf("gen with the decisions made printed:\n%s", out)
			}
			progress, err := os.ReadFile(filepath.Join(codec, "logical_progress_gen.go"))
			if err != nil || !strings.Contains(string(progress), "type LogicalProgress struct {") {
				t.Errorf("LogicalProgress not generated: %v", err)
			}
			commit, _ := os.ReadFile(filepath.Join(codec, "logical_commit_gen.go"))
			if !strings.Contains(string(commit), "// Layout changes: PostgreSQL 20: adds Changes.") || !strings.Contains(string(commit), "// read20 is the layout of PostgreSQL 20 and later.") {
				t.Errorf("LogicalCommit does not gain 20:\n%s", commit)
			}
		},
	}
	edits := map[string]func(){
		"spec/overlay.json": func() {
			editJSON(t, filepath.Join(specDir, "overlay.json"), func(doc map[string]any) {
				doc["fields"] = append(doc["fields"].([]any),
					map[string]any{"match": "number of changes in the transaction", "name": "Changes"},
					map[string]any{"match": "walsender has decoded up to", "name": "DecodedLSN"})
			})
		},
		"spec/wirechanges.json": func() {
			editJSON(t, filepath.Join(specDir, "wirechanges.json"), func(doc map[string]any) {
				doc["wire_changes"] = append(doc["wire_changes"].([]any),
					map[string]any{"major": 20, "message": "logical-commit", "change": "field-added", "field": "Changes", "reason": "Commit counts the transaction's changes."},
					map[string]any{"major": 20, "message": "logical-progress", "change": "message-added", "reason": "PostgreSQL 20 reports decoding progress."})
			})
		},
	}
	matrixWritten := false
	for _, step := range readmeSteps(t, "## When PostgreSQL N ships") {
		words := strings.Fields(step)
		var runs [][]string // the pgspec command lines of the step
		switch {
		case words[0] == "$EDITOR" && len(words) == 2 && edits[words[1]] != nil:
			edits[words[1]]()
			delete(edits, words[1])
			continue
		case words[0] == "pgspec" && len(words) > 1:
			runs = [][]string{words[1:]}
		case len(words) == 3 && words[0] == "go" && words[1] == "generate":
			// What go generate runs: the pgspec directives of the packages.
			runs = generateDirectives(t, words[2])
		default:
			t.Fatalf("README step %q: neither a pgspec command, go generate nor an edit this test makes", step)
		}
		for _, args := range runs {
			drillRun(t, args, paths, srv, func(code int, out, stderr string) {
				switch args[0] {
				case "fetch":
					fetched(code, out, stderr)
				case "extract":
					extracted(code, out, stderr)
				case "gen":
					if len(gens) == 0 {
						t.Fatalf("README step %q: one gen run too many", step)
					}
					gens[0](code, out, stderr)
					gens = gens[1:]
				case "matrix":
					md, err := os.ReadFile(filepath.Join(specDir, "matrix.md"))
					if code != 0 || err != nil {
						t.Fatalf("matrix: exit %d, %v, %s", code, err, stderr)
					}
					for _, row := range []string{"| Progress | absent | ", "| Commit | present | "} {
						if !strings.Contains(string(md), row) {
							t.Errorf("matrix.md has no row %q", row)
						}
					}
					if !strings.Contains(string(md), " | [wire change](#logical-commit-19-to-20) |\n") {
						t.Errorf("matrix.md does not show Commit 19 → 20 as a wire change")
					}
					matrixWritten = true
				default:
					t.Fatalf("README step %q: a command this test does not check", step)
				}
			})
		}
	}
	if len(gens) != 0 || len(edits) != 0 || !matrixWritten {
		t.Fatalf("the README's steps left %d gen runs and edits %v undone, matrix written: %v", len(gens), edits, matrixWritten)
	}

	code, out, stderr := pgspec(t, "matrix", "-spec", specDir, "-format", "json")
	if code != 0 {
		t.Fatalf("matrix: %s", stderr)
	}
	var m struct {
		Layers []struct {
			Messages []struct {
				Slug  string
				Cells []struct {
					Major  int
					Status string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	changed := map[string]string{}
	for _, l := range m.Layers {
		for _, msg := range l.Messages {
			for _, c := range msg.Cells {
				if c.Major == 20 && c.Status != "unchanged" && c.Status != "absent" {
					changed[msg.Slug] = c.Status
				}
			}
		}
	}
	if len(changed) != 2 || changed["logical-progress"] != "added" || changed["logical-commit"] != "wire change" {
		t.Errorf("19 → 20 in the matrix: %v", changed)
	}

	// The new major churns only what changed on the wire: the files of the
	// two messages plus at most four (constants, dispatchers), in codec/ and
	// in a consumer's package of logical replication for 14 and later.
	churn(t, "codec/", generated(t, filepath.Join(corpus.Root(), "codec")), generated(t, codec), 2)
	if code, _, stderr := pgspec(t, "gen", "-spec", specDir, "-out", consumer, "-majors", "14-20", "-layers", "logical"); code != 0 {
		t.Fatalf("consumer gen with 20: %s", stderr)
	}
	churn(t, "the consumer", before, generated(t, consumer), 2)

	// The module's tests with 20 in its spec fail only in goldens.
	onlyGoldensFail(t, specDir, docs)
}

// onlyGoldensFail copies the module beside a corpus (../shared/docs, the
// drill's, and ../shared/seeds), puts the drill's spec in its spec/,
// regenerates it as make generate does and runs its tests there (the drill
// aside): every test that fails must be a golden one, its message naming
// the go test -update command that rewrites its file; after those
// commands, the tests of those packages pass.
func onlyGoldensFail(t *testing.T, specDir, docs string) {
	t.Helper()
	root := t.TempDir()
	mod := filepath.Join(root, "pgspec")
	files, err := exec.Command("git", "-C", corpus.Root(), "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(corpus.Root(), name))
		if err != nil {
			t.Fatal(err)
		}
		corpus.WriteFile(t, filepath.Join(mod, name), data)
	}
	reviewed, _ := filepath.Glob(filepath.Join(specDir, "*"))
	for _, path := range reviewed {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		corpus.WriteFile(t, filepath.Join(mod, "spec", filepath.Base(path)), data)
	}
	shared := filepath.Join(root, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(docs, filepath.Join(shared, "docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(corpus.Dir(t), "..", "seeds"), filepath.Join(shared, "seeds")); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "PGSPEC_DOCS="+filepath.Join(shared, "docs"))
		return cmd
	}
	for _, args := range [][]string{{"git", "init", "-q"}, {"git", "add", "-A"}, {"go", "generate", "./..."}} {
		if out, err := run(args...).CombinedOutput(); err != nil {
			t.Fatalf("%s in the module with the new major: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The module's test binaries stop themselves (-timeout) before this
	// one's deadline, so a slow machine fails the drill with what ran.
	timeout := "10m"
	if d, ok := t.Deadline(); ok {
		timeout = (time.Until(d) * 3 / 4).Round(time.Second).String()
	}
	failed := failingTests(t, run("go", "test", "-json", "-count=1", "-timeout", timeout, "-skip", "^TestNewMajorDrill$", "./..."))
	rewrite := regexp.MustCompile(`\(review, then go test (\./\S*) -run (\S+) -update\)`)
	updates, pkgs := map[[2]string]bool{}, map[string]bool{}
	for _, f := range failed {
		m := rewrite.FindStringSubmatch(f.output)
		if m == nil {
			t.Errorf("%s %s fails, and not as a golden (no \"go test … -update\" in its message):\n%s", f.pkg, f.test, f.output)
			continue
		}
		updates[[2]string{m[1], m[2]}], pkgs[m[1]] = true, true
	}
	if !updates[[2]string{"./gen/model", "^TestResolvedLayouts$"}] {
		t.Errorf("the resolved layouts' golden does not see the new major; failing: %v", failed)
	}
	if t.Failed() {
		return
	}
	for u := range updates {
		if out, err := run("go", "test", u[0], "-run", u[1], "-update").CombinedOutput(); err != nil {
			t.Errorf("go test %s -run %s -update: %v\n%s", u[0], u[1], err, out)
		}
	}
	args := []string{"go", "test", "-count=1", "-skip", "^TestNewMajorDrill$"}
	if out, err := run(append(args, slices.Sorted(maps.Keys(pkgs))...)...).CombinedOutput(); err != nil {
		t.Errorf("after the -update runs, the goldens' packages still fail: %v\n%s", err, out)
	}
}

// failure is a test that failed, with what it printed.
type failure struct{ pkg, test, output string }

// failingTests runs a go test -json command and returns its failing tests,
// leaves only (a test whose subtest failed is not listed); a package that
// fails outside any test (a build error, a panic) is one with no test name.
func failingTests(t *testing.T, cmd *exec.Cmd) []failure {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	type key struct{ pkg, test string }
	output := map[key]*strings.Builder{}
	var failed []key
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var ev struct{ Action, Package, ImportPath, Test, Output string }
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("go test -json: %v\n%s", err, stderr.String())
		}
		k := key{cmp.Or(ev.Package, ev.ImportPath), ev.Test}
		if output[k] == nil {
			output[k] = &strings.Builder{}
		}
		switch ev.Action {
		case "output", "build-output":
			output[k].WriteString(ev.Output)
		case "fail", "build-fail":
			failed = append(failed, k)
		}
	}
	var leaves []failure
	for _, k := range failed {
		inner := slices.ContainsFunc(failed, func(o key) bool {
			return o.pkg == k.pkg && o != k && (k.test == "" || strings.HasPrefix(o.test, k.test+"/"))
		})
		if !inner {
			leaves = append(leaves, failure{k.pkg, k.test, output[k].String()})
		}
	}
	if err != nil && len(leaves) == 0 {
		t.Fatalf("go test failed, yet no test did: %v\n%s", err, stderr.String())
	}
	return leaves
}

// drillRun runs pgspec with args, its paths (repository-relative) mapped
// to the drill's copies, fetch pointed at the fake site, and checks it.
func drillRun(t *testing.T, args []string, paths map[string]string, srv *httptest.Server, check func(code int, out, stderr string)) {
	t.Helper()
	args = slices.Clone(args)
	for i, a := range args {
		if p, ok := paths[a]; ok {
			args[i] = p
		}
	}
	if args[0] == "fetch" {
		args = append(args, "-base-url", srv.URL+"/docs/")
	}
	code, out, stderr := pgspec(t, args...)
	check(code, out, stderr)
}

// generateDirectives are the pgspec command lines go generate runs for
// pattern (./codec, ./...): the //go:generate go run …/cmd/pgspec lines of
// the repository's packages, in go generate's order, their relative paths
// made repository-relative.
func generateDirectives(t *testing.T, pattern string) [][]string {
	t.Helper()
	root := corpus.Root()
	dirs := []string{strings.TrimPrefix(pattern, "./")}
	if pattern == "./..." {
		cmd := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		dirs = nil
		for _, d := range strings.Fields(string(out)) {
			rel, _ := filepath.Rel(root, d)
			dirs = append(dirs, rel)
		}
	}
	var runs [][]string
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(src), "\n") {
				words := strings.Fields(strings.TrimPrefix(line, "//go:generate "))
				if !strings.HasPrefix(line, "//go:generate ") || len(words) < 4 || words[0] != "go" || words[1] != "run" || !strings.HasSuffix(words[2], "cmd/pgspec") {
					continue
				}
				args := words[3:]
				for i := 1; i < len(args); i++ {
					if flag := args[i-1]; (flag == "--spec" || flag == "--out") && !strings.HasPrefix(args[i], "-") {
						args[i] = filepath.Join(dir, args[i]) // go generate runs in dir
					}
				}
				runs = append(runs, args)
			}
		}
	}
	if len(runs) == 0 {
		t.Fatalf("go generate %s runs no pgspec", pattern)
	}
	return runs
}

// churn fails unless the files added, removed or changed from before to
// after are at most changedMessages + 4.
func churn(t *testing.T, what string, before, after map[string]string, changedMessages int) {
	t.Helper()
	var changed []string
	for name, src := range after {
		if before[name] != src {
			changed = append(changed, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	if len(changed) > changedMessages+4 {
		t.Errorf("%s: a new major changed %d files, want at most %d: %v", what, len(changed), changedMessages+4, changed)
	}
}
