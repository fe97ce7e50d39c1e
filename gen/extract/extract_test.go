package extract

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pgspec/pgspec/internal/corpus"
	"github.com/pgspec/pgspec/spec"
)

// The expectations below were read off the HTML pages of the corpus by hand
// (page and major named in each case), not taken from the extractor's output.

var (
	extractOnce  sync.Once
	extracted    map[int]*spec.Spec
	extractError error
)

// realSpecs extracts the whole corpus once per test binary.
func realSpecs(t *testing.T) map[int]*spec.Spec {
	t.Helper()
	dir := corpus.Dir(t)
	extractOnce.Do(func() {
		corr := readRepoCorrections(t)
		specs, err := Extract(os.DirFS(dir), corr)
		extractError = err
		extracted = map[int]*spec.Spec{}
		for _, s := range specs {
			extracted[s.Major] = s
		}
	})
	if extractError != nil {
		t.Fatalf("Extract: %v", extractError)
	}
	return extracted
}

func readRepoCorrections(t testing.TB) *spec.Corrections {
	t.Helper()
	f, err := os.Open(filepath.Join(corpus.Root(), "spec", "corrections.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := spec.ReadCorrections(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func message(t *testing.T, s *spec.Spec, slug string) *spec.Message {
	t.Helper()
	m := s.Find(slug)
	if m == nil {
		t.Fatalf("pg%d: no message %q", s.Major, slug)
	}
	return m
}

func formats(m *spec.Message) []string {
	var out []string
	for _, r := range m.Rows() {
		out = append(out, r.Format)
	}
	return out
}

func layerCount(s *spec.Spec, layer string) int {
	n := 0
	for _, m := range s.Messages {
		if m.Layer == layer {
			n++
		}
	}
	return n
}

func hasAnnotation(anns []spec.Annotation, kind, value string) bool {
	return slices.ContainsFunc(anns, func(a spec.Annotation) bool { return a.Kind == kind && a.Value == value })
}

func TestReleasesAndProvenance(t *testing.T) {
	specs := realSpecs(t)
	want := map[int][2]string{ // English and Chinese release labels from each page's home link
		10: {"10.1", "10.1"}, 13: {"13.16", "13.1"}, 15: {"15.20", "15.7"},
		17: {"17.12", "17.5"}, 18: {"18.6", "18.3"}, 19: {"19rc1", ""},
	}
	for major, w := range want {
		s := specs[major]
		if s.Release != w[0] || s.ReleaseZh != w[1] {
			t.Errorf("pg%d: release %q/%q, want %q/%q", major, s.Release, s.ReleaseZh, w[0], w[1])
		}
	}
	for major := 10; major < 10+len(specs); major++ {
		if specs[major] == nil {
			t.Fatalf("majors %v extracted, want every one from 10 on", slices.Sorted(maps.Keys(specs)))
		}
	}
	// en/14 was rebuilt from the translation's English originals (MANIFEST.md).
	src := specs[14].Sources[0]
	if src.Lang != "en" || src.Page != "protocol-message-formats.html" || src.Upstream != "14.1 (pgdoc-cn translation base)" ||
		src.SHA256 != "4e747f68b142b246d4a601a05f222"+src.SHA256[29:] {
		t.Errorf("pg14 first source = %+v", src)
	}
	// The chapter's other five pages are sources too, and 19's pgoutput page.
	if n := len(specs[19].Sources); n != 11 {
		t.Errorf("pg19 has %d sources, want the 11 English pages only", n)
	}
	if n := len(specs[18].Sources); n != 20 {
		t.Errorf("pg18 has %d sources, want 10 English + 10 Chinese pages", n)
	}
	var pages []string
	for _, src := range specs[19].Sources[5:] {
		pages = append(pages, src.Page+" "+src.Release)
	}
	if got := strings.Join(pages, ", "); got != "protocol-overview.html 19rc1, protocol-flow.html 19rc1, sasl-authentication.html 19rc1, "+
		"protocol-logical-replication.html 19rc1, protocol-changes.html 19rc1, logicaldecoding-output-plugin.html 19rc1" {
		t.Errorf("pg19 chapter sources: %s", got)
	}
	if src := specs[18].Sources[19]; src.Lang != "zh" || src.Page != "protocol-changes.html" || src.Release != "18.3" || src.Upstream != "18.3 (translation base)" {
		t.Errorf("pg18 last source = %+v", src)
	}
}

func TestMessageCountsPerPage(t *testing.T) {
	specs := realSpecs(t)
	cases := []struct {
		major, fb, logical, streaming int
	}{
		// Counted top-level (F)/(B) entries, logical entries and replication sub-messages in en/<major>/*.html.
		{10, 51, 9, 4}, {11, 52, 10, 4}, {12, 53, 10, 4}, {14, 53, 15, 4},
		{15, 53, 20, 8}, {16, 52, 20, 8}, {18, 52, 20, 8}, {19, 52, 20, 10},
	}
	for _, c := range cases {
		s := specs[c.major]
		got := [3]int{layerCount(s, spec.LayerFrontendBackend), layerCount(s, spec.LayerLogicalReplication), layerCount(s, spec.LayerStreamingReplication)}
		if got != [3]int{c.fb, c.logical, c.streaming} {
			t.Errorf("pg%d: messages per layer %v, want %v", c.major, got, [3]int{c.fb, c.logical, c.streaming})
		}
	}
}

func TestFrontendBackendTables(t *testing.T) {
	specs := realSpecs(t)
	// en/18/protocol-message-formats.html, Bind (F).
	bind := message(t, specs[18], "bind")
	want := []string{"Byte1('B')", "Int32", "String", "String", "Int16", "Int16[C]", "Int16", "Int32", "Byten", "Int16", "Int16[R]"}
	if got := formats(bind); !slices.Equal(got, want) {
		t.Errorf("pg18 Bind formats %q, want %q", got, want)
	}
	if bind.Direction != "F" || bind.Anchor != "PROTOCOL-MESSAGE-FORMATS-BIND" {
		t.Errorf("pg18 Bind direction %q anchor %q", bind.Direction, bind.Anchor)
	}
	if len(bind.Blocks) != 3 || !hasAnnotation(bind.Blocks[1].Lead.Annotations, spec.AnnRepeatEach, "parameter") ||
		!hasAnnotation(bind.Blocks[2].Lead.Annotations, spec.AnnAfterGroup, "parameter") {
		t.Errorf("pg18 Bind blocks: want the per-parameter pair and the after-the-last-parameter block, got %+v", bind.Blocks)
	}
	if !hasAnnotation(bind.Blocks[0].Rows[4].Annotations, spec.AnnCountName, "C") ||
		!hasAnnotation(bind.Blocks[1].Rows[0].Annotations, spec.AnnNullMinusOne, "") ||
		!hasAnnotation(bind.Blocks[1].Rows[1].Annotations, spec.AnnLengthFrom, "n") {
		t.Error("pg18 Bind: missing count-name C, null-minus-one or length-from n")
	}
	// Older pages have no dt ids: the anchor falls back to the section.
	if a := message(t, specs[12], "bind").Anchor; a != "PROTOCOL-MESSAGE-FORMATS" {
		t.Errorf("pg12 Bind anchor %q, want the section id", a)
	}

	// BackendKeyData: fixed length and a 4-byte key in 17, variable key in 18 (protocol 3.2).
	if got, want := formats(message(t, specs[17], "backend-key-data")), []string{"Byte1('K')", "Int32(12)", "Int32", "Int32"}; !slices.Equal(got, want) {
		t.Errorf("pg17 BackendKeyData %q, want %q", got, want)
	}
	bkd := message(t, specs[18], "backend-key-data")
	if got, want := formats(bkd), []string{"Byte1('K')", "Int32", "Int32", "Byten"}; !slices.Equal(got, want) {
		t.Errorf("pg18 BackendKeyData %q, want %q", got, want)
	}
	if !hasAnnotation(bkd.Rows()[3].Annotations, spec.AnnRest, "") || len(bkd.Notes) != 1 || !hasAnnotation(bkd.Notes[0].Annotations, spec.AnnProtocolChange, "3.2") {
		t.Errorf("pg18 BackendKeyData: want rest-of-message key and a 'Before protocol version 3.2' note, got %+v", bkd.Notes)
	}

	// en/10 StartupMessage: the parameter names nested in a row's description stay in that row.
	sm := message(t, specs[10], "startup-message")
	if got, want := formats(sm), []string{"Int32", "Int32(196608)", "String", "String"}; !slices.Equal(got, want) {
		t.Errorf("pg10 StartupMessage %q, want %q", got, want)
	}
	if !hasAnnotation(sm.Blocks[1].Lead.Annotations, spec.AnnTerminated, "") {
		t.Error("pg10 StartupMessage: the name/value pairs' zero-byte terminator was not recognised")
	}
	if v := *message(t, specs[18], "startup-message").Rows()[1].Type.Value; v != 196610 {
		t.Errorf("pg18 StartupMessage version %d, want 196610 (3.2)", v)
	}
	if s := specs[11].Find("gssenc-request"); s != nil {
		t.Error("pg11 has GSSENCRequest; it arrived in 12")
	}
	message(t, specs[12], "gssenc-request")
}

func TestLogicalReplicationTables(t *testing.T) {
	specs := realSpecs(t)
	// en/10/protocol-logicalrep-message-formats.html, TupleData: 't' carries length and value.
	td10 := message(t, specs[10], "logical-tuple-data")
	if got, want := formats(td10), []string{"Int16", "Byte1('n')", "Byte1('u')", "Byte1('t')", "Int32", "Byten"}; !slices.Equal(got, want) {
		t.Errorf("pg10 TupleData %q, want %q", got, want)
	}
	if !td10.Part || len(td10.Blocks) != 4 || !hasAnnotation(td10.Blocks[2].Lead.Annotations, spec.AnnAlternative, "") {
		t.Errorf("pg10 TupleData: want a part of 4 blocks with 'Or' alternatives, got %+v", td10)
	}
	// en/14: Byte1('b') added; Int32 + Byten now follow 'b'.
	if got, want := formats(message(t, specs[14], "logical-tuple-data")), []string{"Int16", "Byte1('n')", "Byte1('u')", "Byte1('t')", "Byte1('b')", "Int32", "Byten"}; !slices.Equal(got, want) {
		t.Errorf("pg14 TupleData %q, want %q", got, want)
	}
	// Update: xid Int32 in 14, Int32 (TransactionId) in 15 (an annotation change only).
	u14, u15 := message(t, specs[14], "logical-update"), message(t, specs[15], "logical-update")
	if u14.Rows()[1].Format != "Int32" || u15.Rows()[1].Format != "Int32 (TransactionId)" || u15.Rows()[1].Type.Annotation != "TransactionId" {
		t.Errorf("Update xid: pg14 %q pg15 %q", u14.Rows()[1].Format, u15.Rows()[1].Format)
	}
	xid := u15.Rows()[1].Annotations
	if !hasAnnotation(xid, spec.AnnStreamedOnly, "streamed transactions") || !hasAnnotation(xid, spec.AnnSinceProtocol, "2") {
		t.Errorf("pg15 Update xid annotations %+v", xid)
	}
	if !hasAnnotation(u15.Notes[0].Annotations, spec.AnnExclusive, "a 'K' message part or an 'O' message part") {
		t.Errorf("pg15 Update: 'K' or 'O', never both, not recognised: %+v", u15.Notes)
	}
	if specs[10].Find("logical-truncate") != nil || specs[11].Find("logical-truncate") == nil {
		t.Error("logical Truncate must arrive in 11")
	}
	// en/15: "The following messages (Begin Prepare, …, Stream Prepare) are available since protocol version 3."
	// stands before Begin Prepare's list and marks each message it names.
	bp, sp := message(t, specs[15], "logical-begin-prepare"), message(t, specs[15], "logical-stream-prepare")
	if bp.Lead == nil || !hasAnnotation(bp.Lead.Annotations, spec.AnnMessagesSince, "3") ||
		!hasAnnotation(sp.Annotations, spec.AnnSinceProtocol, "3") || bp.Lead.Text.Zh == "" {
		t.Errorf("pg15 two-phase messages: lead %+v, Stream Prepare annotations %+v", bp.Lead, sp.Annotations)
	}
	// en/14 "(Stream Start, Stream Stop, Stream Commit, and Stream Abort) … since protocol version 2".
	if !hasAnnotation(message(t, specs[14], "logical-stream-abort").Annotations, spec.AnnSinceProtocol, "2") {
		t.Error("pg14 Stream Abort not marked since protocol version 2")
	}
	if td := message(t, specs[15], "logical-tuple-data"); td.Lead == nil || !hasAnnotation(td.Lead.Annotations, spec.AnnSharedParts, "") {
		t.Error("pg15 TupleData: 'The following message parts are shared by the above messages.' not recognised")
	}
	// en/18 Rollback Prepared (8 rows).
	if got := formats(message(t, specs[18], "logical-rollback-prepared")); len(got) != 8 || got[2] != "Int64 (XLogRecPtr)" {
		t.Errorf("pg18 Rollback Prepared %q", got)
	}
	// Stream Abort gains abort LSN and timestamp in 16 (protocol version 4).
	sa15, sa16 := message(t, specs[15], "logical-stream-abort"), message(t, specs[16], "logical-stream-abort")
	if len(sa15.Rows()) != 3 || len(sa16.Rows()) != 5 || !hasAnnotation(sa16.Rows()[3].Annotations, spec.AnnSinceProtocol, "4") {
		t.Errorf("Stream Abort: pg15 %q, pg16 %q", formats(sa15), formats(sa16))
	}
}

func TestStreamingReplicationTables(t *testing.T) {
	specs := realSpecs(t)
	// en/19/protocol-replication.html renames XLogData to WALData: same slug, both names as aliases.
	w19, x10 := message(t, specs[19], "replication-xlog-data"), message(t, specs[10], "replication-xlog-data")
	if w19.Name != "WALData" || x10.Name != "XLogData" || !slices.Equal(w19.Aliases, []string{"WALData", "XLogData"}) {
		t.Errorf("XLogData/WALData identity: 19 %q %v, 10 %q", w19.Name, w19.Aliases, x10.Name)
	}
	if got, want := formats(w19), []string{"Byte1('w')", "Int64", "Int64", "Int64", "Byten"}; !slices.Equal(got, want) {
		t.Errorf("pg19 WALData %q, want %q", got, want)
	}
	if w19.Context != "START_REPLICATION" || w19.Anchor != "PROTOCOL-REPLICATION-WALDATA" {
		t.Errorf("pg19 WALData context %q anchor %q", w19.Context, w19.Anchor)
	}
	hs := message(t, specs[10], "replication-hot-standby-feedback-message")
	if !slices.Equal(hs.Aliases, []string{"Hot Standby feedback message", "Hot standby feedback message"}) {
		t.Errorf("hot standby feedback aliases %v", hs.Aliases)
	}
	// 19: 'p' is both the progress report (B, BASE_BACKUP) and the primary status request (F).
	req, prog := message(t, specs[19], "replication-request-primary-status-update"), message(t, specs[19], "replication-progress-report")
	if req.Direction != "F" || prog.Direction != "B" || req.Rows()[0].Type.Tag != "p" || prog.Rows()[0].Type.Tag != "p" || prog.Context != "BASE_BACKUP" {
		t.Errorf("pg19 'p' messages: %+v / %+v", req, prog)
	}
	if got := formats(message(t, specs[19], "replication-primary-status-update")); len(got) != 5 || got[0] != "Byte1('s')" {
		t.Errorf("pg19 primary status update %q", got)
	}
	// "The number of bytes from the current tablespace…" is a number, not a count of elements.
	if r := message(t, specs[15], "replication-progress-report").Rows()[1]; len(r.Annotations) != 0 {
		t.Errorf("pg15 progress report byte count annotated %+v", r.Annotations)
	}
	if specs[14].Find("replication-new-archive") != nil || specs[15].Find("replication-new-archive") == nil {
		t.Error("BASE_BACKUP's CopyData messages must arrive in 15")
	}
}

func TestTermPages(t *testing.T) {
	specs := realSpecs(t)
	for _, major := range []int{10, 18, 19} {
		s := specs[major]
		var codes []string
		for _, f := range s.ErrorFields {
			codes = append(codes, f.Term)
		}
		// en/<major>/protocol-error-fields.html lists the same 18 codes in 10, 18 and 19.
		if want := []string{"S", "V", "C", "M", "D", "H", "P", "p", "q", "W", "s", "t", "c", "d", "n", "F", "L", "R"}; !slices.Equal(codes, want) {
			t.Errorf("pg%d error fields %q", major, codes)
		}
		var types []string
		for _, d := range s.DataTypes {
			types = append(types, d.Term)
		}
		if want := []string{"Intn(i)", "Intn[k]", "String(s)", "Byten(c)"}; !slices.Equal(types, want) {
			t.Errorf("pg%d data types %q", major, types)
		}
	}
	if d := specs[18].ErrorFields[2].Description; d.Zh == "" || d.En[:5] != "Code:" {
		t.Errorf("pg18 error field C: %+v", d)
	}
}

func TestChineseAlignment(t *testing.T) {
	specs := realSpecs(t)
	// zh/10/protocol-replication.html translates the sub-message names.
	ka := message(t, specs[10], "replication-primary-keepalive-message")
	if ka.NameZh != "主要存活消息" || ka.Name != "Primary keepalive message" {
		t.Errorf("pg10 keepalive names %q / %q", ka.Name, ka.NameZh)
	}
	// zh/18 Bind: leads and rows carry their Chinese text.
	bind := message(t, specs[18], "bind")
	if got := bind.Blocks[1].Lead.Text.Zh; got != "接下来，对于每个参数，都会出现以下一对字段：" {
		t.Errorf("pg18 Bind lead zh %q", got)
	}
	if got := bind.Rows()[0].Description.Zh; got != "将消息标识为 Bind 命令。" {
		t.Errorf("pg18 Bind row 1 zh %q", got)
	}
	// zh/14 TupleData lacks Byte1('b') (a reviewed correction); the rows after it still align.
	td := message(t, specs[14], "logical-tuple-data").Rows()
	if td[4].Description.Zh != "" || td[5].Description.Zh != "列值的长度。" {
		t.Errorf("pg14 TupleData zh: row 5 %q, row 6 %q", td[4].Description.Zh, td[5].Description.Zh)
	}
	// zh/18 Rollback Prepared prints full-width parentheses (a reviewed correction).
	rp := message(t, specs[18], "logical-rollback-prepared").Rows()
	if rp[2].FormatZh != "Int64（XLogRecPtr）" || rp[2].Format != "Int64 (XLogRecPtr)" || rp[1].FormatZh != "" {
		t.Errorf("pg18 Rollback Prepared formats %q/%q", rp[2].Format, rp[2].FormatZh)
	}
	// 19 has no translation.
	if d := message(t, specs[19], "bind").Rows()[0].Description.Zh; d != "" {
		t.Errorf("pg19 has Chinese text %q", d)
	}
	for _, major := range []int{15, 16, 17} { // MANIFEST.md: zh and en agree fully here
		for _, m := range specs[major].Messages {
			for i, r := range m.Rows() {
				if r.Description.Zh == "" || r.FormatZh != "" {
					t.Errorf("pg%d %s row %d: zh %q format_zh %q", major, m.Slug, i+1, r.Description.Zh, r.FormatZh)
				}
			}
		}
	}
}

func TestCoverageCountsEveryRow(t *testing.T) {
	for major, s := range realSpecs(t) {
		rows := 0
		for _, m := range s.Messages {
			rows += len(m.Rows())
		}
		en := s.Coverage[0]
		if en.Lang != "en" || en.Rows != rows || en.Messages != len(s.Messages) {
			t.Errorf("pg%d: coverage %+v, spec has %d messages and %d rows", major, en, len(s.Messages), rows)
		}
		// The one paragraph no recogniser reads: Origin's "Note that there can be multiple Origin messages".
		if en.Unparsed != 1 {
			t.Errorf("pg%d: %d paragraphs unparsed, want 1", major, en.Unparsed)
		}
	}
}

func TestExtractIsDeterministicAndCommitted(t *testing.T) {
	dir := corpus.Dir(t)
	corr := readRepoCorrections(t)
	a, err := Extract(os.DirFS(dir), corr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Extract(os.DirFS(dir), corr)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		da, _ := spec.Marshal(a[i])
		db, _ := spec.Marshal(b[i])
		if !bytes.Equal(da, db) {
			t.Fatalf("pg%d: two extractions differ", a[i].Major)
		}
		committed, err := os.ReadFile(filepath.Join(corpus.Root(), "spec", spec.FileName(a[i].Major)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(da, committed) {
			t.Errorf("spec/%s is stale: run make spec", spec.FileName(a[i].Major))
		}
	}
}

func BenchmarkExtractAll(b *testing.B) {
	fsys := os.DirFS(corpus.Dir(b))
	corr := readRepoCorrections(b)
	for b.Loop() {
		if _, err := Extract(fsys, corr); err != nil {
			b.Fatal(err)
		}
	}
}

// Every layer of spec/layers.json is extracted from the page it names.
func TestPagesAreTheLayersPages(t *testing.T) {
	for _, l := range spec.EmbeddedRules().Layers {
		if !slices.Contains(Pages, PageKind{File: l.Page, Section: l.Section, Layer: l.Layer}) {
			t.Errorf("layer %s: Pages has no %s (%s)", l.Layer, l.Page, l.Section)
		}
	}
}

// commandShape is one command as a line: slug, syntax, options with kind,
// values and default, result sets with their row count and columns, and
// what follows.
func commandShape(c *spec.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", c.Slug, c.Syntax)
	for _, o := range c.Options {
		fmt.Fprintf(&b, " %s:%s", o.Name, o.Kind)
		if len(o.Values) > 0 {
			fmt.Fprintf(&b, "=%s", strings.Join(o.Values, "|"))
		}
		if o.Default != "" {
			fmt.Fprintf(&b, "(%s)", o.Default)
		}
	}
	for _, r := range c.Results {
		var cols []string
		for _, col := range r.Columns {
			cols = append(cols, cmp.Or(col.Name, "_")+" "+cmp.Or(col.Type, "_"))
		}
		rows := r.Rows
		if r.Prose {
			rows += " prose"
		}
		fmt.Fprintf(&b, " [%s: %s]", rows, strings.Join(cols, ", "))
	}
	if len(c.Follows) > 0 {
		fmt.Fprintf(&b, " -> %s", strings.Join(c.Follows, ","))
	}
	return b.String()
}

// The replication commands as each major's manual documents them, checked
// against protocol-replication.html by hand.
func TestReplicationCommands(t *testing.T) {
	specs := realSpecs(t)
	slugs := func(s *spec.Spec) string {
		var out []string
		for _, c := range s.Commands {
			out = append(out, c.Slug)
		}
		return strings.Join(out, " ")
	}
	for major, want := range map[int]string{
		10: "identify-system show timeline-history create-replication-slot start-replication-physical start-replication-logical drop-replication-slot base-backup",
		15: "identify-system show timeline-history create-replication-slot create-replication-slot-legacy read-replication-slot start-replication-physical start-replication-logical drop-replication-slot base-backup",
		17: "identify-system show timeline-history create-replication-slot create-replication-slot-legacy alter-replication-slot read-replication-slot start-replication-physical start-replication-logical drop-replication-slot upload-manifest base-backup",
	} {
		if got := slugs(specs[major]); got != want {
			t.Errorf("pg%d commands:\n got %s\nwant %s", major, got, want)
		}
	}
	for _, c := range []struct {
		major int
		slug  string
		want  string
	}{
		{10, "identify-system", "identify-system none [one: systemid text, timeline int4, xlogpos text, dbname text]"},
		{17, "identify-system", "identify-system none [one: systemid text, timeline int8, xlogpos text, dbname text]"},
		{10, "create-replication-slot", "create-replication-slot keyword RESERVE_WAL:flag EXPORT_SNAPSHOT:flag NOEXPORT_SNAPSHOT:flag USE_SNAPSHOT:flag " +
			"[one: slot_name text, consistent_point text, snapshot_name text, output_plugin text]"},
		{15, "create-replication-slot", "create-replication-slot list TWO_PHASE:boolean(false) RESERVE_WAL:boolean(false) SNAPSHOT:keyword=export|use|nothing(export) " +
			"[one: slot_name text, consistent_point text, snapshot_name text, output_plugin text]"},
		{15, "create-replication-slot-legacy", "create-replication-slot-legacy keyword RESERVE_WAL:flag EXPORT_SNAPSHOT:flag NOEXPORT_SNAPSHOT:flag USE_SNAPSHOT:flag TWO_PHASE:flag"},
		{17, "alter-replication-slot", "alter-replication-slot list FAILOVER:boolean"},
		{19, "alter-replication-slot", "alter-replication-slot list TWO_PHASE:boolean FAILOVER:boolean"},
		{15, "read-replication-slot", "read-replication-slot none [one: slot_type text, restart_lsn text, restart_tli int8]"},
		// The timeline switch's result set and BASE_BACKUP's start and end
		// positions are sentences: "a result set with one row and two columns …".
		{10, "start-replication-physical", "start-replication-physical none [one prose: _ int8, _ text] -> CopyBothResponse"},
		{10, "base-backup", "base-backup keyword LABEL:string PROGRESS:flag FAST:flag WAL:flag NOWAIT:flag MAX_RATE:integer TABLESPACE_MAP:flag " +
			"[one prose: _ _, _ _] [many: spcoid oid, spclocation text, size int8] [one prose: _ _, _ _] -> CopyOutResponse"},
		{17, "base-backup", "base-backup list LABEL:string TARGET:string(client) TARGET_DETAIL:string PROGRESS:boolean(false) CHECKPOINT:keyword=fast|spread(spread) " +
			"WAL:boolean(false) WAIT:boolean(true) COMPRESSION:string COMPRESSION_DETAIL:string MAX_RATE:integer TABLESPACE_MAP:boolean(false) " +
			"VERIFY_CHECKSUMS:boolean(true) MANIFEST:keyword=yes|force-encode|no(no) MANIFEST_CHECKSUMS:keyword=NONE|CRC32C|SHA224|SHA256|SHA384|SHA512(CRC32C) INCREMENTAL:flag " +
			"[one prose: _ _, _ _] [many: spcoid oid, spclocation text, size int8] [one prose: _ _, _ _] -> CopyOutResponse"},
	} {
		cmd := specs[c.major].FindCommand(c.slug)
		if cmd == nil {
			t.Errorf("pg%d has no %s", c.major, c.slug)
			continue
		}
		if got := commandShape(cmd); got != c.want {
			t.Errorf("pg%d %s:\n got %s\nwant %s", c.major, c.slug, got, c.want)
		}
	}
	// Physical START_REPLICATION's parts come from its synopsis alone.
	var parts []string
	for _, p := range specs[13].FindCommand("start-replication-physical").Parameters {
		parts = append(parts, p.Name+":"+p.Kind)
	}
	if got := strings.Join(parts, " "); got != "SLOT:flag slot_name:identifier PHYSICAL:flag XXX/XXX:lsn TIMELINE:flag tli:timeline" {
		t.Errorf("pg13 start-replication-physical parameters: %s", got)
	}
	// Chinese: descriptions aligned by name; 11's translation prints the
	// older BASE_BACKUP synopsis but documents NOVERIFY_CHECKSUMS.
	bb := specs[11].FindCommand("base-backup")
	if bb.SynopsisZh != "BASE_BACKUP [ LABEL 'label' ] [ PROGRESS ] [ FAST ] [ WAL ] [ NOWAIT ] [ MAX_RATE rate ] [ TABLESPACE_MAP ]" ||
		!strings.HasPrefix(bb.Options[2].Description.Zh, "请求一个快速检查点") || !strings.HasPrefix(bb.Description.Zh, "指示服务器开始流传送一个基础备份") {
		t.Errorf("pg11 base-backup in Chinese: %q %q %q", bb.SynopsisZh, bb.Options[2].Description.Zh, bb.Description.Zh)
	}
	if col := specs[15].FindCommand("identify-system").Results[0].Columns[0]; col.Description.Zh == "" {
		t.Errorf("pg15 IDENTIFY_SYSTEM systemid has no Chinese description")
	}
}

// pgoutput's parameters: two up to 14 (the manual is silent on 14's
// binary, messages and streaming), six in 15, origin from 16, and from 19
// on the logical decoding chapter's page with a type each.
func TestPgoutputOptions(t *testing.T) {
	specs := realSpecs(t)
	for major, want := range map[int]string{
		10: "proto_version publication_names",
		14: "proto_version publication_names",
		15: "proto_version publication_names binary messages streaming two_phase",
		16: "proto_version publication_names binary messages streaming two_phase origin",
		19: "proto_version:integer publication_names:string binary:boolean messages:boolean streaming:enum two_phase:boolean origin:enum",
	} {
		var got []string
		for _, o := range specs[major].PluginOptions {
			n := o.Name
			if o.Type != "" {
				n += ":" + o.Type
			}
			got = append(got, n)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("pg%d pgoutput options: %s, want %s", major, strings.Join(got, " "), want)
		}
	}
	if o := specs[19].PluginOptions[0]; o.Page != "logicaldecoding-output-plugin.html" || o.Anchor != "PGOUTPUT-OPTIONS-PROTO-VERSION" || o.Description.Zh != "" {
		t.Errorf("pg19 proto_version: %+v", o)
	}
	if o := specs[16].PluginOptions[6]; o.Page != "protocol-logical-replication.html" || !strings.Contains(o.Description.En, `"none"`) || o.Description.Zh == "" {
		t.Errorf("pg16 origin: %+v", o)
	}
}

// Each message page's opening paragraphs, before its first list, are kept
// with their translation: the logical replication page's one paragraph
// (with the section number the link prints), the replication page's
// several.
func TestPageIntros(t *testing.T) {
	specs := realSpecs(t)
	in := specs[15].Intro("protocol-logicalrep-message-formats.html")
	if len(in) != 1 || in[0].En != "This section describes the detailed format of each logical replication message. These messages are either returned by the replication slot SQL interface or are sent by a walsender. In the case of a walsender, they are encapsulated inside replication protocol WAL messages as described in Section 55.4, and generally obey the same message flow as physical replication." ||
		!strings.HasPrefix(in[0].Zh, "本节描述了每个逻辑复制消息的详细格式。") {
		t.Errorf("15's logical replication page opens with %+v", in)
	}
	if in := specs[18].Intro("protocol-replication.html"); len(in) < 4 || !strings.HasPrefix(in[0].En, "To initiate streaming replication, the frontend sends the replication parameter in the startup message.") || in[0].Zh == "" {
		t.Errorf("18's replication page opens with %+v", in)
	}
	for _, s := range specs {
		if len(s.Intros) != 3 {
			t.Errorf("%d: intros of %d pages, want the three message pages", s.Major, len(s.Intros))
		}
	}
}
