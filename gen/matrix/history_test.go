package matrix

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

func fixtures(t *testing.T) []*spec.Spec {
	t.Helper()
	specs, err := spec.LoadAll(os.DirFS("testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// build compares specs with the spec-derived layout (the fixtures have no overlay).
func build(t *testing.T, specs ...*spec.Spec) *History {
	t.Helper()
	h, err := Build(specs, SpecLayout)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The histories testdata/README.md says the fixtures were written to have.
func TestBuildFixtures(t *testing.T) {
	h := build(t, fixtures(t)...)
	want := map[string][]Status{
		"authenticationscmcredential": {Baseline, Wording, Removed},
		"startupmessage":              {Baseline, Unchanged, Wire},
		"logical-begin-prepare":       {Absent, Added, Unchanged},
		"logical-update":              {Baseline, Annotation, Unchanged},
		"logical-stream-abort":        {Baseline, Unchanged, Wire},
		"xlogdata":                    {Baseline, Unchanged, Wording},
	}
	var order []string
	for _, r := range h.Rows {
		order = append(order, r.Slug)
		var got []Status
		for _, c := range r.Cells {
			got = append(got, c.Status)
		}
		if !slices.Equal(got, want[r.Slug]) {
			t.Errorf("%s: %v, want %v", r.Slug, got, want[r.Slug])
		}
	}
	// By layer, then where the manual prints them: Begin Prepare, new in
	// 15, sits before Update as 15 prints it.
	wantOrder := []string{"authenticationscmcredential", "startupmessage",
		"logical-begin-prepare", "logical-update", "logical-stream-abort", "xlogdata"}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("row order %v, want %v", order, wantOrder)
	}
	abort := h.Rows[4]
	if !abort.Cells[1].ZhOnly || abort.Cells[2].ZhOnly {
		t.Errorf("stream abort zh-only flags %v, want only 14→15 (16 has no Chinese)", abort.Cells)
	}
	if h.Rows[0].Latest.Name != "AuthenticationSCMCredential" || h.Rows[5].Latest.Name != "WALData" {
		t.Errorf("rows are labelled by the last major that has them: %q, %q", h.Rows[0].Latest.Name, h.Rows[5].Latest.Name)
	}
}

func TestFactsFixtures(t *testing.T) {
	f := build(t, fixtures(t)...).AllFacts()
	if f[0].StartupVersion != "3.0" || f[2].StartupVersion != "3.2" {
		t.Errorf("startup versions %q, %q; want 3.0 (196608) and 3.2 (196610)", f[0].StartupVersion, f[2].StartupVersion)
	}
	if len(f[0].ProtocolVersions) != 0 || !slices.Equal(f[2].ProtocolVersions, []string{"3.2"}) {
		t.Errorf("named frontend/backend versions %v, %v; want none, [3.2]", f[0].ProtocolVersions, f[2].ProtocolVersions)
	}
	if !slices.Equal(f[0].LogicalVersions, []string{"2"}) || !slices.Equal(f[2].LogicalVersions, []string{"2", "4"}) {
		t.Errorf("logical versions %v, %v; want [2], [2 4]", f[0].LogicalVersions, f[2].LogicalVersions)
	}
	if f[0].NewErrorFields != nil || len(f[1].NewErrorFields) != 0 || !slices.Equal(f[2].NewErrorFields, []string{"X"}) {
		t.Errorf("new error fields %v, %v, %v; want nil (first major), none, [X]", f[0].NewErrorFields, f[1].NewErrorFields, f[2].NewErrorFields)
	}
	if f[2].Messages[spec.LayerFrontendBackend] != 1 || f[1].Messages[spec.LayerLogicalReplication] != 3 {
		t.Errorf("message counts %v, %v", f[1].Messages, f[2].Messages)
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(#([^)]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#### (.+)$`)
)

// Every changed cell links to a detail that exists, in both languages, and
// the Chinese rendering also explains translation-only changes.
func TestMarkdownLinksResolve(t *testing.T) {
	h := build(t, fixtures(t)...)
	for _, lang := range []Lang{English, Chinese} {
		md := string(h.Markdown(lang))
		ids := map[string]bool{}
		for _, m := range mdHeading.FindAllStringSubmatch(md, -1) {
			ids[anchor(m[1])] = true
		}
		var links []string
		for _, m := range mdLink.FindAllStringSubmatch(md, -1) {
			links = append(links, m[1])
			if !ids[m[1]] {
				t.Errorf("%s: link #%s has no heading", lang, m[1])
			}
		}
		want := []string{"authenticationscmcredential-14-to-15", "startupmessage-15-to-16", "logical-update-14-to-15",
			"logical-stream-abort-15-to-16", "xlogdata-15-to-16"}
		if lang == Chinese {
			want = slices.Insert(want, 3, "logical-stream-abort-14-to-15")
		}
		if !slices.Equal(links, want) {
			t.Errorf("%s: links %v, want %v", lang, links, want)
		}
		if !strings.Contains(md, "(https://www.postgresql.org/docs/15/protocol-logicalrep-message-formats.html#PROTOCOL-LOGICALREP-MESSAGE-FORMATS-BEGIN-PREPARE)") {
			t.Errorf("%s: the added cell does not link to the 15 manual", lang)
		}
	}
}

func TestAnchorFollowsGitHub(t *testing.T) {
	for in, want := range map[string]string{
		"logical-update 14 to 15":   "logical-update-14-to-15",
		"Stream_Abort (B): 15 → 16": "stream_abort-b-15--16",
		"逻辑复制格式":                    "逻辑复制格式",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRenderingIsDeterministic(t *testing.T) {
	for _, lang := range []Lang{English, Chinese} {
		a, b := build(t, fixtures(t)...), build(t, fixtures(t)...)
		if string(a.Markdown(lang)) != string(b.Markdown(lang)) {
			t.Errorf("%s Markdown differs between runs", lang)
		}
		ja, err := a.JSON(lang)
		if err != nil {
			t.Fatal(err)
		}
		jb, _ := b.JSON(lang)
		if string(ja) != string(jb) {
			t.Errorf("%s JSON differs between runs", lang)
		}
	}
}

func TestDiffFixtures(t *testing.T) {
	specs := fixtures(t)
	var got []string
	for _, d := range build(t, specs[0], specs[2]).Diff("", English) {
		got = append(got, d.Slug+": "+string(d.Status))
	}
	// 14 → 16 directly: the rename and the annotation change both show.
	want := []string{"authenticationscmcredential: removed", "startupmessage: wire change",
		"logical-begin-prepare: added", "logical-update: annotation change",
		"logical-stream-abort: wire change", "xlogdata: wording change"}
	if !slices.Equal(got, want) {
		t.Errorf("Diff(14, 16) = %v, want %v", got, want)
	}
	if d := build(t, specs[0], specs[1]).Diff("logical-stream-abort", English); len(d) != 0 {
		t.Errorf("English diff lists a translation-only change: %+v", d)
	}
	d := build(t, specs[0], specs[1]).Diff("logical-stream-abort", Chinese)
	if len(d) != 1 || !d[0].ZhOnly || d[0].InEnglish || !slices.Contains(d[0].TableDiff, "+    子事务的 Xid（对于顶层事务，与事务的 Xid 相同）。") {
		t.Errorf("Chinese diff of a translation change: %+v", d)
	}
	d = build(t, specs[1], specs[2]).Diff("startupmessage", Chinese)
	if len(d) != 1 || !d[0].InEnglish || !slices.Contains(d[0].LayoutDiff, "+  int width=4 value=196610") {
		t.Errorf("16 has no Chinese, so its diff is English with the layout: %+v", d)
	}
}

// TestBuiltLayoutIsModelLayout: the layouts Load reads from the model it
// built are the ones ModelLayout resolves anew, for every message of every
// committed major, so that the matrix need not resolve them twice.
func TestBuiltLayoutIsModelLayout(t *testing.T) {
	dir := os.DirFS("../../spec")
	mod, specs, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := spec.LoadOverlay(dir)
	if err != nil {
		t.Fatal(err)
	}
	built, resolved := builtLayout(mod), ModelLayout(ov)
	n := 0
	for _, s := range specs {
		for _, m := range s.Messages {
			want, err := resolved(s, m.Slug)
			if err != nil {
				t.Fatal(err)
			}
			got, err := built(s, m.Slug)
			if err != nil {
				t.Fatalf("pg%d %s: %v", s.Major, m.Slug, err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("pg%d %s: built %v, resolved %v", s.Major, m.Slug, got, want)
			}
			n++
		}
	}
	if n < 500 {
		t.Errorf("only %d layouts compared", n)
	}
	if _, err := built(specs[0], "no-such-message"); err == nil {
		t.Error("a message the model lacks has a layout")
	}
}
