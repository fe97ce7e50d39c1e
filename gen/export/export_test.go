package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/internal/corpus"
	"github.com/pgspec/pgspec/spec"
)

// seedRecord holds the keys of ../shared/seeds/logical-update.json that
// carry meaning (see the seeds README); the rest is pg.center bookkeeping.
type seedRecord struct {
	Item struct {
		Slug, Name, Category string
		Aliases              []string
		Versions             map[string]struct {
			Fields         []Field
			Facts          []Fact
			FactsZh        []Fact  `json:"facts_zh"`
			TablesZh       []Table `json:"tables_zh"`
			Release        struct{ Label, Major string }
			Sources        []Source
			ManualPath     string         `json:"manual_path"`
			ComparisonData ComparisonData `json:"comparison_data"`
			ComparisonHash string         `json:"comparison_hash"`
		}
	}
	Comparison Comparison
}

func loadSeed(t *testing.T) seedRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "..", "seeds", "logical-update.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s seedRecord
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func realSpecs(t *testing.T) []*spec.Spec {
	t.Helper()
	specs, err := spec.LoadAll(os.DirFS(filepath.Join(corpus.Root(), "spec")))
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

func record(t *testing.T, specs []*spec.Spec, layout matrix.LayoutFunc, slug string, lang matrix.Lang) Record {
	t.Helper()
	h, err := matrix.Build(specs, layout)
	if err != nil {
		t.Fatal(err)
	}
	records, err := Records(h, lang)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(records, func(r Record) bool { return r.Item.Slug == slug })
	if i < 0 {
		t.Fatalf("no record %q", slug)
	}
	return records[i]
}

// The export of logical-update against the seed, for every major both hold
// (10..19; the seed's 20 is a devel snapshot outside the corpus).
//
// Minor releases: the seed was made from the latest minors (10.23, 11.22,
// 12.22, 13.23, 14.24, 15.19, 16.15, 17.11, 18.6, 19rc1); the corpus holds
// 10.1, 11.2, 12.2, 14.1 and 16.8 (pgdoc-cn bases, reconstructed) and 13.16,
// 15.20, 17.12, 18.6, 19rc1 (Debian), as its MANIFEST says. Update's
// field table did not change in any of those minor releases, so formats,
// descriptions and the seed's comparison hashes must all match exactly;
// only release labels differ. The seed's Chinese rows are pg.center's own
// translation, not the pgdoc-cn manual, so only their positions and formats
// are compared.
func TestLogicalUpdateMatchesSeed(t *testing.T) {
	seed := loadSeed(t)
	ov, err := spec.LoadOverlay(os.DirFS(filepath.Join(corpus.Root(), "spec")))
	if err != nil {
		t.Fatal(err)
	}
	r := record(t, realSpecs(t), matrix.ModelLayout(ov), "logical-update", matrix.Chinese)
	if r.Kind != "protocol" || r.Item.Slug != seed.Item.Slug || r.Item.Name != seed.Item.Name ||
		r.Item.Category != seed.Item.Category || !slices.Equal(r.Item.Aliases, seed.Item.Aliases) {
		t.Errorf("identity: kind %q slug %q name %q category %q aliases %v; seed %q %q %q %v",
			r.Kind, r.Item.Slug, r.Item.Name, r.Item.Category, r.Item.Aliases,
			seed.Item.Slug, seed.Item.Name, seed.Item.Category, seed.Item.Aliases)
	}
	compared := 0
	for major, want := range seed.Item.Versions {
		got, ok := r.Item.Versions[major]
		if !ok {
			if major != "20" {
				t.Errorf("%s: in the seed, not in the export", major)
			}
			continue
		}
		compared++
		if !slices.Equal(got.Fields, want.Fields) {
			t.Errorf("%s: fields\n got %v\nseed %v", major, got.Fields, want.Fields)
		}
		if got.ComparisonHash != want.ComparisonHash {
			t.Errorf("%s: comparison hash %s, seed %s", major, got.ComparisonHash, want.ComparisonHash)
		}
		if got.ComparisonData.Layer != want.ComparisonData.Layer {
			t.Errorf("%s: layer %q, seed %q", major, got.ComparisonData.Layer, want.ComparisonData.Layer)
		}
		if !slices.Equal(got.FactsZh, want.FactsZh) || !slices.Equal(got.Facts, want.Facts) {
			t.Errorf("%s: facts %v / %v, seed %v / %v", major, got.Facts, got.FactsZh, want.Facts, want.FactsZh)
		}
		if got.Release.Major != want.Release.Major || got.ManualPath != want.ManualPath {
			t.Errorf("%s: release major %q manual %q, seed %q %q", major, got.Release.Major, got.ManualPath, want.Release.Major, want.ManualPath)
		}
		if got.Sources[0].URL != want.Sources[0].URL || got.Sources[0].Path != want.Sources[0].Path || got.Sources[0].Label != want.Sources[0].Label {
			t.Errorf("%s: source %+v, seed %+v", major, got.Sources[0], want.Sources[0])
		}
		gotRows, wantRows := got.TablesZh[0].Rows, want.TablesZh[0].Rows
		if len(gotRows) != len(wantRows) {
			t.Errorf("%s: %d Chinese rows, seed %d", major, len(gotRows), len(wantRows))
		}
		for i := range min(len(gotRows), len(wantRows)) {
			if gotRows[i].C0 != wantRows[i].C0 || gotRows[i].C1 != wantRows[i].C1 || gotRows[i].C2 == "" {
				t.Errorf("%s: Chinese row %d %+v, seed %+v", major, i, gotRows[i], wantRows[i])
			}
		}
	}
	if compared != 10 {
		t.Errorf("compared %d majors, want 10..19", compared)
	}
	// Our comparisons also say how: 14 adds the xid (a new field), 15 only
	// annotates Int32 as Int32 (TransactionId) and Int32 (Oid).
	var classes []string
	for _, c := range r.Comparisons {
		if c.Status == "changed" {
			classes = append(classes, c.Left+"→"+c.Right+" "+string(c.Classification))
		}
	}
	if want := []string{"13→14 wire change", "14→15 annotation change"}; !slices.Equal(classes, want) {
		t.Errorf("changed comparisons %v, want %v", classes, want)
	}
	// The seed's one comparison, 17 → 18.
	c := r.Comparisons[slices.IndexFunc(r.Comparisons, func(c Comparison) bool { return c.Right == seed.Comparison.Right })]
	if c.Left != seed.Comparison.Left || c.Status != seed.Comparison.Status || c.Diff != seed.Comparison.Diff {
		t.Errorf("comparison %+v, seed %+v", c, seed.Comparison)
	}
}

// Comparisons on the fixtures: one per adjacent pair the message is in on
// either side; added reads "not in this major" (in the export's
// language) on the left, removed on the right.
func TestComparisonsFixtures(t *testing.T) {
	specs, err := spec.LoadAll(os.DirFS("../matrix/testdata"))
	if err != nil {
		t.Fatal(err)
	}
	added := record(t, specs, matrix.SpecLayout, "logical-begin-prepare", matrix.English)
	if len(added.Comparisons) != 2 {
		t.Fatalf("begin prepare (in 15 and 16): %d comparisons, want 14→15 and 15→16", len(added.Comparisons))
	}
	first := added.Comparisons[0]
	if first.Left != "14" || first.Right != "15" || first.Status != "added" ||
		!strings.HasPrefix(first.Diff, "--- 14\n+++ 15\n@@ -1 +1,13 @@\n-not in this major\n+{\n+  \"layer\": \"logical replication\",\n+  \"fields\": [\n") {
		t.Errorf("added comparison %+v", first)
	}
	if s := added.Comparisons[1]; s.Status != "unchanged" || s.Diff != "" {
		t.Errorf("15→16: %+v", s)
	}

	removed := record(t, specs, matrix.SpecLayout, "authenticationscmcredential", matrix.English)
	var got []string
	for _, c := range removed.Comparisons {
		got = append(got, c.Left+"→"+c.Right+" "+c.Status+" "+string(c.Classification))
	}
	want := []string{"14→15 changed wording change", "15→16 removed removed"}
	if !slices.Equal(got, want) {
		t.Errorf("comparisons %v, want %v", got, want)
	}
	if d := removed.Comparisons[1].Diff; !strings.HasSuffix(d, "+not in this major\n") {
		t.Errorf("removed diff does not end with the empty right side: %q", d)
	}
	if _, ok := removed.Item.Versions["16"]; ok || removed.Item.Category != "Frontend/backend messages" {
		t.Errorf("versions %v category %q", removed.Item.Versions, removed.Item.Category)
	}

	// 16 has no Chinese: its Chinese table falls back to English and says so.
	v := record(t, specs, matrix.SpecLayout, "xlogdata", matrix.English).Item.Versions
	if v["16"].Localization.Status != "fallback" || v["16"].TablesZh[0].Rows[0].C2 != "Identifies the message as WAL data." {
		t.Errorf("16: %+v %+v", v["16"].Localization, v["16"].TablesZh[0].Rows[0])
	}
	if v["15"].Localization.Status != "complete" || v["15"].Signature != "XLogData" || v["16"].Signature != "WALData" {
		t.Errorf("15: %+v, signatures %q %q", v["15"].Localization, v["15"].Signature, v["16"].Signature)
	}
}

func TestRecordsRejectUnsafeSlug(t *testing.T) {
	s := &spec.Spec{Major: 10, Messages: []spec.Message{{Slug: "../escape", Name: "X", Layer: spec.LayerFrontendBackend}}}
	h, err := matrix.Build([]*spec.Spec{s}, matrix.SpecLayout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Records(h, matrix.English); err == nil || !strings.Contains(err.Error(), `"../escape"`) {
		t.Errorf("err = %v, want one naming the slug", err)
	}
}

// pyString must agree with Python's json.dumps(ensure_ascii=True), the
// form the seed's comparison hashes were made with.
func TestPyString(t *testing.T) {
	for in, want := range map[string]string{
		`a "b" \c`:  `"a \"b\" \\c"`,
		"tab\tnl\n": `"tab\tnl\n"`,
		"–é":        `"\u2013\u00e9"`,
		"\x7f\x01":  `"\u007f\u0001"`,
		"😀":         `"\ud83d\ude00"`,
	} {
		if got := pyString(in); got != want {
			t.Errorf("pyString(%q) = %s, want %s", in, got, want)
		}
	}
}
