package matrix

import (
	"encoding/json"
	"strings"
	"testing"
)

// The flow layer says where protocol-flow.html's lists of what the server
// may send changed, checked by hand against the pages: NegotiateProtocolVersion
// joins the authentication phase's list in 11 and AuthenticationSCMCredential
// leaves it in 16 (wire changes, with the message in the diff); the
// function call list never changes; both languages, Markdown, JSON and the
// page show it.
func TestFlowLayer(t *testing.T) {
	h := committed(t)
	rows := map[string]ItemRow{}
	for _, r := range h.itemRows(flowLayer) {
		rows[r.Slug] = r
	}
	if len(rows) != 5 {
		t.Fatalf("%d flow rows, want the 4 lists and direct TLS", len(rows))
	}
	index := func(major int) int {
		for i, s := range h.Specs {
			if s.Major == major {
				return i
			}
		}
		t.Fatalf("no major %d", major)
		return 0
	}
	for _, c := range []struct {
		slug    string
		major   int
		want    Status
		wireHas string
	}{
		{"flow-start-up-1", 10, Baseline, ""},
		{"flow-start-up-1", 11, Wire, "+may send negotiate-protocol-version"},
		{"flow-start-up-1", 16, Wire, "-may send authentication-scm-credential"},
		{"flow-start-up-1", 19, Unchanged, ""},
		{"flow-start-up-2", 16, Unchanged, ""},
		{"flow-function-call-1", 14, Unchanged, ""},
		// "The server will recognize connections which immediately begin
		// SSL negotiation without any previous SSLRequest packets" is new in 17.
		{"flow-direct-tls", 16, Absent, ""},
		{"flow-direct-tls", 17, Added, ""},
		{"flow-direct-tls", 19, Unchanged, ""},
	} {
		i := index(c.major)
		if got := rows[c.slug].Cells[i].Status; got != c.want {
			t.Errorf("%s in %d: %s, want %s", c.slug, c.major, got, c.want)
		}
		if c.wireHas != "" {
			d := h.itemDetail(flowLayer, rows[c.slug], i, English)
			if diff := strings.Join(d.LayoutDiff, "\n"); !strings.Contains(diff, c.wireHas) {
				t.Errorf("%s %d: wire diff lacks %q:\n%s", c.slug, c.major, c.wireHas, diff)
			}
		}
	}
	for i, r := range rows["flow-function-call-1"].Cells {
		if i > 0 && r.Status != Unchanged {
			t.Errorf("function call list in %d: %s", h.Specs[i].Major, r.Status)
		}
	}
	zh := string(h.Markdown(Chinese))
	if !strings.Contains(zh, "\n## 消息流：各阶段服务器可能发送的消息（protocol-flow.html）\n\n| 消息列表 | 10 |") ||
		!strings.Contains(zh, "| Start-up 1 (`flow-start-up-1`) | 已收录 | [线格式变更](#flow-start-up-1-10-to-11) |") {
		t.Error("the Chinese matrix has no flow table")
	}
	data, err := h.JSON(English)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Flow struct {
			Title string `json:"title"`
			Lists []struct {
				Slug  string `json:"slug"`
				Cells []struct {
					Status string `json:"status"`
					Link   string `json:"link"`
				} `json:"cells"`
			} `json:"lists"`
			Details []Detail `json:"details"`
		} `json:"flow"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Flow.Lists) != 5 || doc.Flow.Lists[0].Cells[1].Status != "wire change" ||
		doc.Flow.Lists[0].Cells[1].Link != "#flow-start-up-1-10-to-11" || len(doc.Flow.Details) == 0 {
		t.Errorf("JSON flow: %v, %d lists, %d details", err, len(doc.Flow.Lists), len(doc.Flow.Details))
	}
	page, err := h.HTML(English)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section class="layer" id="layer-flow"`, `<td id="flow-start-up-1-16" data-major="16" class="s-wire chg">`,
		`<article class="detail item" id="flow-start-up-1-15-to-16"`, `<tr class="ce cz"><td><code>may send authentication-scm-credential</code>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}
