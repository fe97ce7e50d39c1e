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
