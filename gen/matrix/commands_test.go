package matrix

import (
	"encoding/json"
	"strings"
	"testing"
)

// The commands layer says what the manuals changed, checked by hand against
// protocol-replication.html: a command added, an option added, a syntax
// changed, a result column retyped are wire changes; prose is wording.
func TestCommandsLayer(t *testing.T) {
	h := committed(t)
	rows := map[string]ItemRow{}
	for _, r := range h.CommandRows() {
		rows[r.Slug] = r
	}
	cell := func(slug string, major int) Change {
		for i, s := range h.Specs {
			if s.Major == major {
				return rows[slug].Cells[i]
			}
		}
		t.Fatalf("no major %d", major)
		return Change{}
	}
	for _, c := range []struct {
		slug  string
		major int
		want  Status
	}{
		{"read-replication-slot", 14, Absent}, {"read-replication-slot", 15, Added},
		{"alter-replication-slot", 17, Added}, {"alter-replication-slot", 18, Wire}, // TWO_PHASE
		{"upload-manifest", 17, Added}, {"create-replication-slot-legacy", 15, Added},
		{"create-replication-slot", 15, Wire}, {"create-replication-slot", 17, Wire}, // list syntax; FAILOVER
		{"base-backup", 11, Wire}, {"base-backup", 13, Wire}, {"base-backup", 15, Wire}, {"base-backup", 17, Wire},
		{"base-backup", 16, Wording}, {"identify-system", 14, Wording}, {"start-replication-logical", 11, Unchanged},
	} {
		if got := cell(c.slug, c.major).Status; got != c.want {
			t.Errorf("%s in %d: %s, want %s", c.slug, c.major, got, c.want)
		}
	}
	var bb Detail
	for i, s := range h.Specs {
		if s.Major == 15 {
			bb = h.CommandDetail(rows["base-backup"], i, English)
		}
	}
	diff := strings.Join(bb.LayoutDiff, "\n")
	for _, want := range []string{"-syntax keyword", "+syntax list", "-option FAST: flag", "+option CHECKPOINT: keyword fast|spread, default spread", "-option PROGRESS: flag", "+option PROGRESS: boolean, default false"} {
		if !strings.Contains(diff, want) {
			t.Errorf("base-backup 14 → 15 wire diff lacks %q:\n%s", want, diff)
		}
	}
	md := string(h.Markdown(Chinese))
	if !strings.Contains(md, "\n## 复制命令\n\n| 命令 | 10 |") || !strings.Contains(md, "| READ_REPLICATION_SLOT (`read-replication-slot`) | 未收录 |") {
		t.Errorf("the Chinese matrix has no commands table")
	}
	data, err := h.JSON(English)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Commands struct {
			Title    string `json:"title"`
			Commands []struct {
				Slug  string `json:"slug"`
				Cells []struct {
					Status string `json:"status"`
					Link   string `json:"link"`
				} `json:"cells"`
			} `json:"commands"`
			Details []Detail `json:"details"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Commands.Title != "Replication commands" || len(doc.Commands.Commands) != 12 || len(doc.Commands.Details) == 0 {
		t.Errorf("JSON commands: %v %+v", err, doc.Commands.Title)
	}
}

// The page holds the commands layer in both languages: a grid with the
// command's head and count, a note on each row that shares its command
// word, and BASE_BACKUP's 14 → 15 syntax change as its detail's lines,
// linked to both majors' manual entries.
func TestCommandsOnThePage(t *testing.T) {
	h := committed(t)
	page, err := h.HTML(English)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<section class="layer" id="layer-commands" aria-labelledby="layer-commands-h">`,
		`<span class="one"><span lang="en">command shown</span><span lang="zh-CN">条命令</span></span>`,
		`<thead><tr><th scope="col"><span lang="en">command</span><span lang="zh-CN">命令</span></th>`,
		`<a href="#create-replication-slot-legacy">CREATE_<wbr>REPLICATION_<wbr>SLOT</a><small><span lang="en">older syntax</span><span lang="zh-CN">旧语法</span></small></th>`,
		`<a href="#start-replication-physical">START_<wbr>REPLICATION</a><small>PHYSICAL</small></th>`,
		`<td id="base-backup-15" data-major="15" class="s-wire chg"><a class="cell" href="#base-backup-14-to-15">`,
		`<article class="detail item" id="base-backup-14-to-15" data-to="15">`,
		`<tr class="ce cz"><td><code>syntax keyword</code></td></tr>`,
		`<tr class="ce cz"><td><code>syntax list</code></td></tr>`,
		`<a href="https://www.postgresql.org/docs/15/protocol-replication.html#PROTOCOL-REPLICATION-BASE-BACKUP">`,
		`<h3><a href="#start-replication-logical-17-to-18">START_REPLICATION (LOGICAL) · 17 → 18</a>`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}
