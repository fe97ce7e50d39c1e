package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// Every form of help prints to stdout and exits 0.
func TestHelpExitsZero(t *testing.T) {
	forms := [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "-h"}, {"help", "--help"}, {"help", "help"}}
	for name := range commands {
		forms = append(forms, []string{"help", name}, []string{name, "-h"}, []string{name, "--help"})
	}
	for _, args := range forms {
		code, out, stderr := pgspec(t, args...)
		if code != 0 || !strings.HasPrefix(out, "usage: pgspec ") || stderr != "" {
			t.Errorf("pgspec %q: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
	_, out, _ := pgspec(t, "help", "diff")
	if !strings.HasPrefix(out, "usage: pgspec diff [flags] A B [MESSAGE]\n\nclassify and diff") || !strings.Contains(out, "\nflags:\n  -lang language\n") {
		t.Errorf("help diff:\n%s", out)
	}
	// No arguments at all is a usage error.
	if code, _, stderr := pgspec(t); code != 2 || !strings.HasPrefix(stderr, "usage: pgspec") {
		t.Errorf("no arguments: exit %d, stderr %q", code, stderr)
	}
}

// Flags are accepted before and after the positional arguments, and a
// message is named by its slug or its Go type name alike.
func TestFlagsAnywhereAndGoNames(t *testing.T) {
	same := [][2][]string{
		{{"show", "--version", "14", "--lang", "zh", "logical-update"}, {"show", "LogicalUpdate", "--version", "14", "--lang", "zh"}},
		{{"show", "--version", "17", "bind"}, {"show", "Bind", "--version=17"}},
		{{"diff", "--lang", "zh", "13", "14", "logical-insert"}, {"diff", "13", "--lang", "zh", "14", "LogicalInsert"}},
		{{"list", "--version", "12", "--layer", "logical-replication"}, {"list", "--layer", "logical-replication", "--version", "12"}},
		// list takes the layer names gen -layers takes.
		{{"list", "--layer", "logical"}, {"list", "--layer", "logical-replication"}},
		{{"list", "--layer", "replication"}, {"list", "--layer", "streaming-replication"}},
		{{"matrix", "--format", "json", "--lang", "zh"}, {"matrix", "--lang", "zh", "--format", "json"}},
	}
	for _, pair := range same {
		c1, o1, e1 := pgspec(t, pair[0]...)
		c2, o2, e2 := pgspec(t, pair[1]...)
		if c1 != 0 || c2 != 0 || o1 != o2 || o1 == "" {
			t.Errorf("%q and %q differ: exit %d/%d, stderr %q/%q", pair[0], pair[1], c1, c2, e1, e2)
		}
	}
	// After --, everything is an argument.
	if code, _, stderr := pgspec(t, "show", "--", "-bind"); code != 2 || !strings.Contains(stderr, `unknown message "-bind"`) {
		t.Errorf("show -- -bind: exit %d, %q", code, stderr)
	}
}

// The default version is the newest release (18.6 while 19 is a release
// candidate), not a release candidate, which is shown when asked for;
// show's heading names the release. The majors come from the spec.
func TestDefaultVersionIsNewestRelease(t *testing.T) {
	specs, err := spec.LoadAll(spec.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	released, newest := specs[0], specs[len(specs)-1]
	for _, s := range specs {
		if s.Released() {
			released = s
		}
	}
	_, out, _ := pgspec(t, "show", "bind")
	if want := fmt.Sprintf("Bind (F) — PostgreSQL %d (%s), ", released.Major, released.Release); !strings.HasPrefix(out, want) {
		t.Errorf("show bind: %q, want %q", firstLine(out), want)
	}
	_, out, _ = pgspec(t, "show", "--version", strconv.Itoa(newest.Major), "bind")
	if want := fmt.Sprintf("Bind (F) — PostgreSQL %d (%s), ", newest.Major, newest.Release); !strings.HasPrefix(out, want) {
		t.Errorf("show --version %d bind: %q, want %q", newest.Major, firstLine(out), want)
	}
	// The messages only the release candidate has (19's primary status
	// messages while it is one): the default list lacks them.
	_, outDefault, _ := pgspec(t, "list")
	_, outNewest, _ := pgspec(t, "list", "--version", strconv.Itoa(newest.Major))
	for _, m := range newest.Messages {
		if released.Find(m.Slug) != nil {
			continue
		}
		if strings.Contains(outDefault, m.Slug) || !strings.Contains(outNewest, m.Slug) {
			t.Errorf("list defaults to %s, or --version %d lacks %s", newest.Release, newest.Major, m.Slug)
		}
		want := fmt.Sprintf("pgspec show: %s is not in PostgreSQL %d (it is in %d and later)\n", m.Slug, released.Major, newest.Major)
		if code, _, stderr := pgspec(t, "show", m.Slug); code != 2 || stderr != want {
			t.Errorf("show %s: exit %d, %q, want %q", m.Slug, code, stderr, want)
		}
	}
}

// show notes under the table where the codec follows a correction of the
// manual (TupleData's text columns carry a length and value from 14 on,
// which the manual prints for 'b' only), and only in the majors it corrects.
func TestShowNotesCorrections(t *testing.T) {
	const note = "The codec corrects the manual here (spec/overlay.json, Data): From 14 on the manual prints the Int32 length and Byten after Byte1('b') only"
	for _, c := range []struct {
		version string
		want    bool
	}{{"14", true}, {"18", true}, {"13", false}} {
		_, out, _ := pgspec(t, "show", "--version", c.version, "logical-tuple-data")
		if strings.Contains(out, note) != c.want {
			t.Errorf("show --version %s logical-tuple-data: note %v, want %v:\n%s", c.version, !c.want, c.want, out)
		}
	}
	if _, out, _ := pgspec(t, "show", "bind"); strings.Contains(out, "corrects the manual") {
		t.Errorf("show bind notes a correction:\n%s", out)
	}
}

// export's category and labels are in the language asked for.
func TestExportLabelsInLanguage(t *testing.T) {
	for lang, want := range map[string][3]string{
		"en": {"Logical replication messages", "Position", "Layer"},
		"zh": {"逻辑复制格式", "位置", "层次"},
	} {
		dir := t.TempDir()
		if code, _, stderr := pgspec(t, "export", "--out", dir, "--lang", lang); code != 0 {
			t.Fatalf("export %s: %s", lang, stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, "logical-update.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Item struct {
				Category string
				Versions map[string]struct {
					Tables []struct{ Columns []struct{ Label string } }
					Facts  []struct{ Label string }
				}
			}
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		v := r.Item.Versions["18"]
		if got := [3]string{r.Item.Category, v.Tables[0].Columns[0].Label, v.Facts[0].Label}; got != want {
			t.Errorf("%s: category and labels %q, want %q", lang, got, want)
		}
	}
}

// The built binary needs nothing beside it: run from an empty directory,
// every command that reads the spec works from the copy built in.
func TestBinaryRunsAnywhere(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pgspec")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir()
	for _, args := range [][]string{
		{"list"},
		{"show", "LogicalUpdate"},
		{"diff", "17", "18", "cancel-request"},
		{"matrix", "--format", "json", "--out", "m.json"},
		{"export", "--out", "records"},
		{"gen", "--out", "codec"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("pgspec %q in an empty directory: %v\n%s", args, err, out)
		}
	}
	for _, p := range []string{"m.json", "records/logical-update.json", "codec/bind_gen.go"} {
		if _, err := os.Stat(filepath.Join(work, p)); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// The README's command list names every command, and every flag it shows
// is one the command takes.
func TestREADMECommandList(t *testing.T) {
	listed := map[string]bool{}
	flagRE := regexp.MustCompile(`--([a-z][a-z-]*)`)
	for _, line := range readmeSteps(t, "## The command") {
		words := strings.Fields(line)
		if len(words) < 2 || words[0] != "pgspec" {
			t.Errorf("README: %q is not a pgspec command", line)
			continue
		}
		name := words[1]
		listed[name] = true
		code, help, stderr := pgspec(t, "help", name)
		if code != 0 {
			t.Errorf("README lists %q: pgspec help %s: exit %d, %s", line, name, code, stderr)
			continue
		}
		for _, m := range flagRE.FindAllStringSubmatch(line, -1) {
			if !regexp.MustCompile(`(?m)^  -` + m[1] + `\b`).MatchString(help) {
				t.Errorf("README: pgspec %s has no flag --%s", name, m[1])
			}
		}
	}
	for name := range commands {
		if !listed[name] {
			t.Errorf("README's command list lacks pgspec %s", name)
		}
	}
}

// show -resolved prints each row of a message as the generator resolves
// it, with the overlay entry that named it: the message's own entry, a
// shared one or its group's; derived items say so, a length or tag nothing.
func TestShowResolved(t *testing.T) {
	ov, err := spec.LoadOverlay(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	shared := func(match string) string {
		i := slices.IndexFunc(ov.Fields, func(e *spec.FieldEntry) bool { return e.Match == match })
		return fmt.Sprintf("← overlay fields[%d] %q", i, match)
	}
	code, out, stderr := pgspec(t, "show", "-resolved", "-version", "16", "LogicalStreamAbort")
	want := "logical-stream-abort in PostgreSQL 16, as the generator resolves it (row → Go field ← what named it):\n" +
		"  Byte1('A')\n" +
		"  Int32 → Xid uint32  " + shared("^Xid of the transaction") + "\n" +
		"  Int32 → SubXid uint32  " + shared("Xid of the subtransaction") + "\n" +
		"  Int64 [parallel] [logical protocol 4+] → AbortLSN uint64  " + shared("LSN of the abort") + "\n" +
		"  Int64 [parallel] [logical protocol 4+] → AbortTime int64  " + shared("Abort timestamp") + "\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, %s\n%s\nwant\n%s", code, stderr, out, want)
	}
	if _, out, _ = pgspec(t, "show", "-resolved", "logical-relation"); !strings.Contains(out, "\n  Int32 → RelationOID uint32  ← overlay messages[\"logical-relation\"].fields[0] \"^O?ID of the relation\"\n") {
		t.Errorf("show -resolved logical-relation does not name the message's own entry:\n%s", out)
	}
	_, out, _ = pgspec(t, "show", "-resolved", "bind")
	for _, line := range []string{"\n  Int32 length\n", "\n  repeated → Parameters [][]byte  ← overlay messages[\"bind\"].groups[0] ", "\n    Int32 length, Byten (−1: NULL)\n"} {
		if !strings.Contains(out, line) {
			t.Errorf("show -resolved bind lacks %q:\n%s", line, out)
		}
	}
}

// The replication commands: list --layer commands lists them alone, show
// prints a command's options and results, in either language, and a
// command a major lacks is named with the majors that have it.
func TestCommandsListAndShow(t *testing.T) {
	_, out, _ := pgspec(t, "list", "--layer", "commands", "--version", "14")
	if out != "identify-system\tIDENTIFY_SYSTEM\tnone\tcommands\nshow\tSHOW\tnone\tcommands\ntimeline-history\tTIMELINE_HISTORY\tnone\tcommands\n"+
		"create-replication-slot\tCREATE_REPLICATION_SLOT\tkeyword\tcommands\nstart-replication-physical\tSTART_REPLICATION\tnone\tcommands\n"+
		"start-replication-logical\tSTART_REPLICATION\tlist\tcommands\ndrop-replication-slot\tDROP_REPLICATION_SLOT\tnone\tcommands\nbase-backup\tBASE_BACKUP\tkeyword\tcommands\n" {
		t.Errorf("list --layer commands --version 14:\n%s", out)
	}
	if _, out, _ := pgspec(t, "list", "--layer", "commands,logical"); !strings.Contains(out, "logical-update\t") || !strings.Contains(out, "upload-manifest\tUPLOAD_MANIFEST\tnone\tcommands\n") || strings.Contains(out, "\tBind\t") {
		t.Errorf("list --layer commands,logical:\n%s", out)
	}
	_, out, _ = pgspec(t, "show", "CREATE_REPLICATION_SLOT", "--version", "15")
	for _, want := range []string{
		"CREATE_REPLICATION_SLOT slot_name [ TEMPORARY ] { PHYSICAL | LOGICAL output_plugin } [ ( option [, ...] ) ] — PostgreSQL 15 (15.20), protocol-replication.html#PROTOCOL-REPLICATION-CREATE-REPLICATION-SLOT\nsyntax: list\n",
		"\n  SNAPSHOT { 'export' | 'use' | 'nothing' }  (keyword export|use|nothing, default export)  Decides what to do",
		"\nresult set 1 (one row):\n  slot_name (text)  The name of the newly-created replication slot.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show CREATE_REPLICATION_SLOT --version 15 lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = pgspec(t, "show", "base-backup", "--version", "10", "--lang", "zh")
	if !strings.Contains(out, "\n  FAST  (flag)  请求一个快速检查点。\n") || !strings.Contains(out, "\nthen: CopyOutResponse\n") {
		t.Errorf("show base-backup --version 10 --lang zh:\n%s", out)
	}
	if code, _, stderr := pgspec(t, "show", "upload-manifest", "--version", "16"); code != 2 || stderr != "pgspec show: upload-manifest is not in PostgreSQL 16 (it is in 17 and later)\n" {
		t.Errorf("show upload-manifest --version 16: exit %d, %q", code, stderr)
	}
}
