package extract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pgspec/pgspec/internal/corpus"
	"github.com/pgspec/pgspec/spec"
)

// readDoc returns one corpus file.
func readDoc(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// miniCorpus is the English and Chinese pages of 18 with the real
// manifests' rows for them.
func miniCorpus(t *testing.T) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, name := range corpus.Manifests {
		fsys[name] = &fstest.MapFile{Data: manifestRows(readDoc(t, name), func(p string) bool { return strings.Contains(p, "/18/") })}
	}
	for _, lang := range []string{"en", "zh"} {
		for _, k := range PagesOf(18) {
			name := lang + "/18/" + k.File
			fsys[name] = &fstest.MapFile{Data: readDoc(t, name)}
		}
	}
	return fsys
}

// manifestRows keeps the rows of a manifest's file table whose path keep
// accepts, and every other line.
func manifestRows(manifest []byte, keep func(path string) bool) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(manifest, []byte("\n")) {
		if p, ok := bytes.CutPrefix(line, []byte("| `")); ok && !keep(string(p[:bytes.IndexByte(p, '`')])) {
			continue
		}
		out = append(out, line...)
	}
	return out
}

// setPage replaces a page of the mini corpus and its checksum in the
// manifest that lists it, as a corpus maintainer would.
func setPage(t *testing.T, fsys fstest.MapFS, name string, data []byte) {
	t.Helper()
	oldSum, sum := sha256.Sum256(fsys[name].Data), sha256.Sum256(data)
	old := hex.EncodeToString(oldSum[:])
	manifest := ManifestFile
	if !bytes.Contains(fsys[manifest].Data, []byte(old)) {
		manifest = ChapterManifestFile
	}
	fsys[manifest].Data = replaceOnce(t, fsys[manifest].Data, old, hex.EncodeToString(sum[:]))
	fsys[name].Data = data
}

// corrections18 is the reviewed corrections file restricted to major 18.
func corrections18(t *testing.T) *spec.Corrections {
	corr := readRepoCorrections(t)
	corr.List = slices.DeleteFunc(corr.List, func(c spec.Correction) bool { return c.Major != 18 })
	return corr
}

// pageError parses a page and returns its single *Error.
func pageError(t *testing.T, data []byte, kind PageKind) *Error {
	t.Helper()
	_, err := ParsePage(bytes.NewReader(data), "en/18/"+kind.File, kind)
	if err == nil {
		t.Fatal("ParsePage succeeded, want an error")
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return pe
}

func replaceOnce(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	if bytes.Count(data, []byte(old)) < 1 {
		t.Fatalf("%q not in page", old)
	}
	return bytes.Replace(data, []byte(old), []byte(new), 1)
}

func TestUnknownFormatNamesFileMessageRow(t *testing.T) {
	data := replaceOnce(t, readDoc(t, "en/18/protocol-message-formats.html"), `<span class="term">Int16[<em class="replaceable"><code>C</code></em>]</span>`, `<span class="term">Float8[C]</span>`)
	pe := pageError(t, data, Pages[0])
	if pe.File != "en/18/protocol-message-formats.html" || pe.Message != "Bind" || pe.Row != 6 || !strings.Contains(pe.Error(), `unknown format "Float8[C]"`) {
		t.Errorf("got %q", pe.Error())
	}
}

func TestFieldWithoutDescription(t *testing.T) {
	data := replaceOnce(t, readDoc(t, "en/18/protocol-message-formats.html"), "Identifies the message as a Bind command.", "")
	pe := pageError(t, data, Pages[0])
	if pe.Message != "Bind" || pe.Row != 1 || !errors.Is(pe, ErrNoDescription) {
		t.Errorf("got %q", pe.Error())
	}
}

func TestPageFromWrongChapter(t *testing.T) {
	// The error-fields page handed over as the message-formats page.
	pe := pageError(t, readDoc(t, "en/18/protocol-error-fields.html"), Pages[0])
	if !strings.Contains(pe.Error(), "no section PROTOCOL-MESSAGE-FORMATS") {
		t.Errorf("got %q", pe.Error())
	}
}

func TestTruncatedPage(t *testing.T) {
	data := readDoc(t, "en/18/protocol-logicalrep-message-formats.html")
	// Cut inside Update's table: the entry ends before its description.
	cut := bytes.Index(data, []byte(`<dt id="PROTOCOL-LOGICALREP-MESSAGE-FORMATS-UPDATE">`))
	pe := pageError(t, data[:cut+200], Pages[1])
	if pe.Message != "Update" {
		t.Errorf("got %q, want the error to name Update", pe.Error())
	}
	// Cut before any message: no release label, nothing to read.
	pe = pageError(t, data[:len(data)/20], Pages[1])
	if pe.File != "en/18/"+Pages[1].File {
		t.Errorf("got %q", pe.Error())
	}
}

func TestMissingPage(t *testing.T) {
	fsys := miniCorpus(t)
	delete(fsys, "en/18/protocol-replication.html")
	_, err := Extract(fsys, &spec.Corrections{})
	if err == nil || !strings.Contains(err.Error(), "en/18/protocol-replication.html") {
		t.Fatalf("got %v, want an error naming the missing page", err)
	}
}

func TestChangedPageFailsManifestCheck(t *testing.T) {
	fsys := miniCorpus(t)
	f := fsys["zh/18/protocol-message-types.html"]
	f.Data = append(bytes.Clone(f.Data), ' ')
	_, err := Extract(fsys, &spec.Corrections{})
	if err == nil || !strings.Contains(err.Error(), "zh/18/protocol-message-types.html: sha256") {
		t.Fatalf("got %v", err)
	}
}

// The chapter's other pages are checked as the five are: checksum, the
// page's own section, its language, and the release the five name.
func TestChapterPagesAreChecked(t *testing.T) {
	for _, c := range []struct {
		name, page string
		edit       func(fsys fstest.MapFS, data []byte) []byte
		want       string
	}{
		{"changed", "en/18/protocol-flow.html", nil, "en/18/protocol-flow.html: sha256 "},
		{"another page", "en/18/protocol-flow.html", func(fsys fstest.MapFS, _ []byte) []byte { return fsys["en/18/sasl-authentication.html"].Data },
			"en/18/protocol-flow.html: no section PROTOCOL-FLOW: not the protocol-flow.html page of the protocol chapter"},
		{"another language", "zh/18/protocol-changes.html", func(fsys fstest.MapFS, _ []byte) []byte { return fsys["en/18/protocol-changes.html"].Data },
			"zh/18/protocol-changes.html: a page in en, not zh"},
		{"another release", "en/18/protocol-overview.html", func(_ fstest.MapFS, data []byte) []byte {
			return bytes.ReplaceAll(data, []byte("PostgreSQL 18.6 Documentation"), []byte("PostgreSQL 18.5 Documentation"))
		}, "en/18/protocol-overview.html: release 18.5, the protocol pages are of 18.6"},
	} {
		fsys := miniCorpus(t)
		if c.edit == nil {
			fsys[c.page].Data = append(bytes.Clone(fsys[c.page].Data), ' ')
		} else {
			setPage(t, fsys, c.page, c.edit(fsys, fsys[c.page].Data))
		}
		_, err := Extract(fsys, corrections18(t))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestTranslationMismatchNeedsCorrection(t *testing.T) {
	fsys := miniCorpus(t)
	// Without the reviewed corrections, zh/18's full-width parentheses are an error naming file, message and row.
	_, err := Extract(fsys, &spec.Corrections{})
	if err == nil || !strings.Contains(err.Error(), `zh/18/protocol-logicalrep-message-formats.html: message "Rollback Prepared": row 3: format "Int64（XLogRecPtr）", English has "Int64 (XLogRecPtr)"`) {
		t.Fatalf("got %v", err)
	}
	// A translation that lost a row.
	name := "zh/18/protocol-message-formats.html"
	setPage(t, fsys, name, replaceOnce(t, fsys[name].Data, `<span class="term">Int16[<em class="replaceable"><code>C</code></em>]</span>`, `<span class="term">Int16</span>`))
	_, err = Extract(fsys, corrections18(t))
	if err == nil || !strings.Contains(err.Error(), `zh/18/protocol-message-formats.html: message "Bind": row 6: format "Int16", English has "Int16[C]"`) {
		t.Fatalf("got %v", err)
	}
}

func TestCorrectionsAreChecked(t *testing.T) {
	_, err := spec.ReadCorrections(strings.NewReader(`{"corrections":[{"lang":"zh","major":18,"message":"Bind","kind":"format","rows":[3],"reason":"x"}]}`))
	if err == nil || !strings.Contains(err.Error(), "needs a reason and evidence") {
		t.Errorf("entry without evidence: %v", err)
	}
	_, err = spec.ReadCorrections(strings.NewReader(`{"corrections":[{"lang":"zh","major":18,"message":"Bind","kind":"typo","rows":[3],"reason":"x","evidence":"y"}]}`))
	if err == nil || !strings.Contains(err.Error(), `unknown kind "typo"`) {
		t.Errorf("unknown kind: %v", err)
	}
	// An entry that excuses nothing is stale and must go.
	fsys := miniCorpus(t)
	corr := corrections18(t)
	corr.List = append(corr.List, spec.Correction{Lang: "zh", Major: 18, Message: "Bind", Kind: spec.CorrFormat, Rows: []int{3}, Reason: "x", Evidence: "y"})
	_, err = Extract(fsys, corr)
	if err == nil || !strings.Contains(err.Error(), `(zh 18 "Bind" format) matches nothing`) {
		t.Errorf("stale entry: %v", err)
	}
}

// A command item whose value the extractor cannot type, and a translation
// that loses an option, are errors naming file and command.
func TestReplicationCommandItems(t *testing.T) {
	data := replaceOnce(t, readDoc(t, "en/18/protocol-replication.html"), `MAX_RATE</code> <em class="replaceable"><code>rate</code>`, `MAX_RATE</code> <em class="replaceable"><code>speed</code>`)
	_, err := ParsePage(bytes.NewReader(data), "en/18/protocol-replication.html", Pages[2])
	if err == nil || !strings.Contains(err.Error(), `en/18/protocol-replication.html: message "BASE_BACKUP [ ( option [, ...] ) ]": item "MAX_RATE speed": value of no known kind`) {
		t.Errorf("unknown placeholder: %v", err)
	}
	fsys := miniCorpus(t)
	name := "zh/18/protocol-replication.html"
	setPage(t, fsys, name, regexp.MustCompile(`(?s)<dt><span class="term"><code class="literal">INCREMENTAL</code></span></dt><dd>.*?</dd>`).ReplaceAll(fsys[name].Data, nil))
	_, err = Extract(fsys, corrections18(t))
	if err == nil || !strings.Contains(err.Error(), `zh/18/protocol-replication.html: message "BASE_BACKUP [ ( option [, ...] ) ]": the translation lacks INCREMENTAL`) {
		t.Errorf("translation without INCREMENTAL: %v", err)
	}
}

// MANIFEST's values are in its prose; reworded so that no value set can be
// read, the English page is refused rather than MANIFEST left open to any value.
func TestKeywordValuesFromProse(t *testing.T) {
	fsys := miniCorpus(t)
	name := "en/18/protocol-replication.html"
	setPage(t, fsys, name, replaceOnce(t, fsys[name].Data, "with a value of", "set to"))
	_, err := Extract(fsys, corrections18(t))
	if err == nil || !strings.Contains(err.Error(), `en/18/protocol-replication.html: message "BASE_BACKUP [ ( option [, ...] ) ]": item "MANIFEST manifest_option": a keyword whose values neither its term nor its description lists`) {
		t.Errorf("MANIFEST without its values: %v", err)
	}
	specs, err := Extract(miniCorpus(t), corrections18(t))
	if err != nil {
		t.Fatal(err)
	}
	bb := specs[0].FindCommand("base-backup")
	for _, o := range bb.Options {
		if want := map[string]string{"MANIFEST": "[yes force-encode no]", "MANIFEST_CHECKSUMS": "[NONE CRC32C SHA224 SHA256 SHA384 SHA512]"}[o.Name]; want != "" && fmt.Sprint(o.Values) != want {
			t.Errorf("%s: values %v, want %s", o.Name, o.Values, want)
		}
	}
}

func TestEmptyFieldTable(t *testing.T) {
	// A table with no rows before Bind's first: later steps pair messages by their first row.
	data := replaceOnce(t, readDoc(t, "en/18/protocol-message-formats.html"), `class="id_link">#</a></dt><dd><div class="variablelist"><dl class="variablelist"><dt><span class="term">Byte1('B')</span>`,
		`class="id_link">#</a></dt><dd><div class="variablelist"><dl class="variablelist"></dl></div><div class="variablelist"><dl class="variablelist"><dt><span class="term">Byte1('B')</span>`)
	pe := pageError(t, data, Pages[0])
	if pe.Message != "Bind" || pe.Row != 0 || !strings.Contains(pe.Error(), "field table 1 has no rows") {
		t.Errorf("got %q", pe.Error())
	}
}

func TestReplicationCommandWithoutTerm(t *testing.T) {
	// START_REPLICATION's term emptied: its sub-messages are still read, with
	// no command to name, and the command list names the entry it cannot read.
	data := readDoc(t, "en/18/protocol-replication.html")
	data = regexp.MustCompile(`(?s)(<dt id="PROTOCOL-REPLICATION-START-REPLICATION">).*?</dt>`).ReplaceAll(data, []byte("$1</dt>"))
	p, err := ParsePage(bytes.NewReader(data), "en/18/protocol-replication.html", Pages[2])
	if err == nil || err.Error() != `en/18/protocol-replication.html: the entry at #PROTOCOL-REPLICATION-START-REPLICATION is not a replication command: its term "" names none` {
		t.Fatalf("got %v", err)
	}
	i := slices.IndexFunc(p.Messages, func(m spec.Message) bool { return m.Name == "XLogData" })
	if i < 0 || p.Messages[i].Context != "" {
		t.Errorf("XLogData not read, or given a context: %+v", p.Messages)
	}
}

func TestUnpairedMessagesAreNamed(t *testing.T) {
	msg := func(name string) spec.Message {
		return spec.Message{Name: name, Direction: "F", Blocks: []spec.Block{{Rows: []spec.Row{{Format: "Byte1('X')", Description: spec.Text{En: name}}}}}}
	}
	en := []spec.Message{msg("Bind"), msg("Close")}
	errs := alignMessages("zh/18/p.html", en, en[:1], 18, &spec.Corrections{}, nil)
	if len(errs) != 1 || errs[0].Error() != `zh/18/p.html: message "Close": the translation lacks English message` {
		t.Errorf("translation short by one: %v", errs)
	}
	errs = alignMessages("zh/18/p.html", en[:1], []spec.Message{msg("Bind"), msg("Flush")}, 18, &spec.Corrections{}, nil)
	if len(errs) != 1 || errs[0].Error() != `zh/18/p.html: message "Flush": the translation has a message English lacks` {
		t.Errorf("translation long by one: %v", errs)
	}
}

func TestFieldTableInsideProse(t *testing.T) {
	// Bind's first table wrapped in a note: its rows would otherwise be read as one paragraph.
	data := replaceOnce(t, readDoc(t, "en/18/protocol-message-formats.html"), `class="id_link">#</a></dt><dd><div class="variablelist"><dl class="variablelist"><dt><span class="term">Byte1('B')</span>`,
		`class="id_link">#</a></dt><dd><div class="note"><div class="variablelist"><dl class="variablelist"><dt><span class="term">Byte1('B')</span>`)
	pe := pageError(t, data, Pages[0])
	if pe.Message != "Bind" || !strings.Contains(pe.Error(), "field tables nested in prose: rows dropped") {
		t.Errorf("got %q", pe.Error())
	}
}

// The manifest says what the corpus must hold: a major or language
// directory that is missing, a directory it does not list, a page it
// forgets, a row listed twice, and Chinese without English are all errors.
func TestManifestListsWhatMustBeThere(t *testing.T) {
	for _, c := range []struct {
		name   string
		break_ func(fsys fstest.MapFS)
		want   string
	}{
		{"language dir missing", func(fsys fstest.MapFS) {
			for _, k := range PagesOf(18) {
				delete(fsys, "zh/18/"+k.File)
			}
		}, "zh/18: the directory is missing; MANIFEST.md lists its pages"},
		{"major dir missing", func(fsys fstest.MapFS) {
			for name := range fsys {
				if !strings.HasPrefix(name, "MANIFEST") {
					delete(fsys, name)
				}
			}
		}, "en/18: the directory is missing; MANIFEST.md lists its pages\nzh/18: the directory is missing"},
		{"dir not listed", func(fsys fstest.MapFS) {
			fsys["en/17/protocol-message-formats.html"] = &fstest.MapFile{Data: []byte("x")}
		}, "en/17: not in MANIFEST.md: list its pages (pgspec fetch does) or remove it"},
		{"page not listed", func(fsys fstest.MapFS) {
			fsys["MANIFEST.md"].Data = manifestRows(fsys["MANIFEST.md"].Data, func(p string) bool { return p != "en/18/protocol-replication.html" })
		}, "MANIFEST.md: lists en/18 but not en/18/protocol-replication.html"},
		{"row twice", func(fsys fstest.MapFS) {
			m := fsys["MANIFEST.md"].Data
			i := bytes.Index(m, []byte("| `en/18/"))
			row := m[i : i+bytes.IndexByte(m[i:], '\n')+1]
			fsys["MANIFEST.md"].Data = append(bytes.Clone(m), row...)
		}, "en/18/protocol-message-formats.html is listed twice"},
		{"chapter page not listed", func(fsys fstest.MapFS) {
			fsys[ChapterManifestFile].Data = manifestRows(fsys[ChapterManifestFile].Data, func(p string) bool { return p != "zh/18/protocol-flow.html" })
		}, "MANIFEST.md: lists zh/18 but not zh/18/protocol-flow.html"},
		{"chapter manifest missing", func(fsys fstest.MapFS) {
			delete(fsys, ChapterManifestFile)
		}, "MANIFEST.md: lists en/18 but not en/18/protocol-overview.html"},
		{"row in both manifests", func(fsys fstest.MapFS) {
			m := fsys[ChapterManifestFile].Data
			i := bytes.Index(m, []byte("| `en/18/protocol-flow.html"))
			fsys[ManifestFile].Data = append(bytes.Clone(fsys[ManifestFile].Data), m[i:i+bytes.IndexByte(m[i:], '\n')+1]...)
		}, "MANIFEST-chapter.md: en/18/protocol-flow.html is listed in MANIFEST.md too: keep one row"},
		{"page of another major", func(fsys fstest.MapFS) {
			fsys[ChapterManifestFile].Data = bytes.Replace(fsys[ChapterManifestFile].Data, []byte("| `en/18/protocol-flow.html`"),
				[]byte("| `en/18/logicaldecoding-output-plugin.html` | en | 18 | 18.6 | x | x | `00` |\n| `en/18/protocol-flow.html`"), 1)
		}, "MANIFEST-chapter.md: en/18/logicaldecoding-output-plugin.html is not one of the protocol pages of 18"},
		{"chinese without english", func(fsys fstest.MapFS) {
			for _, name := range corpus.Manifests {
				fsys[name].Data = manifestRows(fsys[name].Data, func(p string) bool { return !strings.HasPrefix(p, "en/") })
			}
			for _, k := range PagesOf(18) {
				delete(fsys, "en/18/"+k.File)
			}
		}, "zh/18: MANIFEST.md lists Chinese pages of 18 but no English ones"},
		{"columns disagree", func(fsys fstest.MapFS) {
			fsys["MANIFEST.md"].Data = bytes.Replace(fsys["MANIFEST.md"].Data, []byte("| `en/18/protocol-replication.html` | en | 18 |"), []byte("| `en/18/protocol-replication.html` | en | 17 |"), 1)
		}, `en/18/protocol-replication.html: language "en" and major "17" do not match the path`},
	} {
		fsys := miniCorpus(t)
		c.break_(fsys)
		_, err := Extract(fsys, corrections18(t))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// Bytes that are not UTF-8 are named by file and offset, even with the
// checksum updated to match them.
func TestInvalidUTF8IsRefused(t *testing.T) {
	fsys := miniCorpus(t)
	name := "en/18/protocol-error-fields.html"
	data := bytes.Clone(fsys[name].Data)
	off := bytes.Index(data, []byte("Severity"))
	data[off] = 0xff
	setPage(t, fsys, name, data)
	_, err := Extract(fsys, corrections18(t))
	want := fmt.Sprintf("en/18/protocol-error-fields.html: invalid UTF-8 at byte offset %d", off)
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// A message documented twice is named as a duplicate, not silently merged.
func TestDuplicateMessageIsNamed(t *testing.T) {
	fsys := miniCorpus(t)
	name := "en/18/protocol-message-formats.html"
	data := fsys[name].Data
	start := bytes.Index(data, []byte(`<dt id="PROTOCOL-MESSAGE-FORMATS-FLUSH"`))
	end := start + bytes.Index(data[start:], []byte(`<dt id="PROTOCOL-MESSAGE-FORMATS-FUNCTIONCALL"`))
	entry := bytes.Replace(data[start:end], []byte(`id="PROTOCOL-MESSAGE-FORMATS-FLUSH"`), []byte(`id="FLUSH-AGAIN"`), 1)
	setPage(t, fsys, name, slices.Concat(data[:end], entry, data[end:]))
	_, err := Extract(fsys, corrections18(t))
	want := `en/18/protocol-message-formats.html: message "Flush": duplicate message: documented again at #FLUSH-AGAIN (first at #PROTOCOL-MESSAGE-FORMATS-FLUSH)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// A page larger than any protocol page is refused without being read whole.
func TestHugePageIsRefused(t *testing.T) {
	fsys := miniCorpus(t)
	setPage(t, fsys, "en/18/protocol-message-types.html", make([]byte, MaxPage+1))
	_, err := Extract(fsys, corrections18(t))
	if err == nil || !strings.Contains(err.Error(), "en/18/protocol-message-types.html: more than 8388608 bytes: not a protocol page") {
		t.Errorf("got %v", err)
	}
}
