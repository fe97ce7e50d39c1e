package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// committedFlow is the committed history with its model and flow rules.
func committedFlow(t *testing.T) *History {
	t.Helper()
	h, err := Load(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// flowStep is machine's step into major to, failing the test when there is none.
func flowStep(t *testing.T, fc *FlowChanges, machine string, to int) FlowStep {
	t.Helper()
	for _, sec := range fc.Sections {
		if sec.Machine != machine {
			continue
		}
		for _, st := range sec.Steps {
			if st.To == to {
				return st
			}
		}
	}
	t.Fatalf("no step of %s into %d", machine, to)
	return FlowStep{}
}

// ruleChanges lists a step's changes as "added state what" (what is the
// message's slug and answer, or the event).
func ruleChanges(fc *FlowChanges, st FlowStep) []string {
	var out []string
	for _, c := range st.Changes {
		r := fc.rule(c.Rule)
		what := r.Event + r.Message
		if r.Answer != "" {
			what += " " + r.Answer
		}
		out = append(out, string(c.Status)+" "+r.State+" "+what)
	}
	return out
}

// The flow changes say where the conversation changed, checked against the
// corpus pages by hand: protocol-flow.html documents GSSENCRequest from 12
// and connections that "immediately begin SSL negotiation without any
// previous SSLRequest" from 17, and lists AuthenticationSCMCredential in
// the start-up phase up to 15; protocol-replication.html of 15 (not 14)
// gives BASE_BACKUP's CopyData messages (new archive, archive or manifest
// data, progress report, manifest); pgoutput's streaming messages are
// documented from 14 and "available since protocol version 2".
func TestFlowChanges(t *testing.T) {
	h := committedFlow(t)
	fc := h.flowChanges(English)
	for _, c := range []struct {
		machine string
		to      int
		has     []string
	}{
		{"frontend", 12, []string{"added startup gssenc-request", "added ssl-refused gssenc-request"}},
		{"frontend", 17, []string{"added startup direct-tls", "added tls-startup ssl-request", "added tls-startup gssenc-request"}},
		{"backend", 12, []string{"added gss-answer gssenc-response G", "added gss-answer gssenc-response N"}},
		{"backend", 16, []string{"removed authentication authentication-scm-credential"}},
		{"backend", 17, []string{"added ssl-answer-in-tls ssl-response N"}},
		{"replication-backend", 15, []string{"added backup replication-new-archive", "added backup-archive replication-archive-or-manifest-data",
			"added backup-archive replication-manifest", "added backup-archive replication-progress-report"}},
		{"logical", 14, []string{"added between logical-stream-start", "added stream logical-stream-stop", "added between logical-stream-commit"}},
		{"logical", 15, []string{"added between logical-begin-prepare", "added prepared-transaction logical-prepare"}},
	} {
		st := flowStep(t, fc, c.machine, c.to)
		got := ruleChanges(fc, st)
		for _, want := range c.has {
			if !slices.Contains(got, want) {
				t.Errorf("%s into %d: lacks %q; has %q", c.machine, c.to, want, got)
			}
		}
		if st.Status != Wire || st.Label != "flow change" {
			t.Errorf("%s into %d: %s %q, want a flow change", c.machine, c.to, st.Status, st.Label)
		}
	}
	for _, c := range []struct {
		machine string
		to      int
	}{{"frontend", 13}, {"frontend", 16}, {"replication-backend", 14}, {"logical", 19}} {
		if st := flowStep(t, fc, c.machine, c.to); st.Status != Unchanged || st.Label != "unchanged" || len(st.Changes) != 0 {
			t.Errorf("%s into %d: %s %q %q, want unchanged", c.machine, c.to, st.Status, st.Label, ruleChanges(fc, st))
		}
	}
	// 18 speaks protocol 3.2 (protocol-overview.html of 18: "The current,
	// latest version of the protocol is version 3.2"); the frontend/backend
	// steps into 18 say so.
	if st := flowStep(t, fc, "backend", 18); st.Protocol != "3.0 → 3.2" || st.Status != Wire {
		t.Errorf("backend into 18: protocol %q, status %s", st.Protocol, st.Status)
	}
	if st := flowStep(t, fc, "logical", 18); st.Protocol != "" {
		t.Errorf("logical into 18: protocol %q, want none (not the frontend/backend layer)", st.Protocol)
	}

	// A rule links to the manual of the newest major it holds in.
	newest := h.Specs[len(h.Specs)-1].Major
	tls := fc.rule("flow-rule-frontend-startup-direct-tls")
	if tls == nil || !strings.Contains(tls.Reason, "immediately begin SSL negotiation") ||
		tls.URL != fmt.Sprintf("https://www.postgresql.org/docs/%d/protocol-flow.html#PROTOCOL-FLOW-SSL", newest) ||
		!strings.Contains(tls.LeadsTo, "`tls-handshake`") || tls.Majors[0] != 17 || tls.Majors[len(tls.Majors)-1] != newest {
		t.Errorf("direct TLS rule: %+v", tls)
	}
	scm := fc.rule("flow-rule-backend-authentication-authentication-scm-credential")
	if scm == nil || !strings.HasPrefix(scm.URL, "https://www.postgresql.org/docs/15/") {
		t.Errorf("a removed rule links to the last major it holds in: %+v", scm)
	}
	start := fc.rule("flow-rule-logical-between-logical-stream-start")
	if start == nil || !slices.Contains(start.Needs, "pgoutput proto_version ≥ 2") || !strings.Contains(start.LeadsTo, "opens a streamed transaction") {
		t.Errorf("Stream Start: %+v", start)
	}
	for _, id := range []string{"flow-rule-backend-authentication-negotiate-protocol-version", "flow-rule-backend-parameters-ready-for-query",
		"flow-rule-logical-between-logical-begin-prepare"} {
		if !slices.Contains(fc.Versioned, id) {
			t.Errorf("versioned rules lack %s", id)
		}
	}
	if slices.Contains(fc.Versioned, "flow-rule-frontend-startup-direct-tls") {
		t.Error("direct TLS depends on the major only, not on a version negotiated")
	}
	// Every rule a step or the versioned list names is explained once.
	seen := map[string]bool{}
	for _, r := range fc.Rules {
		if seen[r.ID] || r.Reason == "" || len(r.Majors) == 0 {
			t.Errorf("rule %s: twice, or no reason or majors", r.ID)
		}
		seen[r.ID] = true
	}
	for _, sec := range fc.Sections {
		for _, st := range sec.Steps {
			for _, c := range st.Changes {
				if !seen[c.Rule] {
					t.Errorf("%s into %d names %s, which has no reason", sec.Machine, st.To, c.Rule)
				}
			}
		}
	}
}

// Every rendering shows the flow changes, the same each time, with
// Chinese headings in the Chinese one; a history without flow rules has none.
func TestFlowChangesRendered(t *testing.T) {
	h := committedFlow(t)
	en, zh := h.Markdown(English), h.Markdown(Chinese)
	if !bytes.Equal(en, h.Markdown(English)) || !bytes.Equal(zh, h.Markdown(Chinese)) {
		t.Error("two Markdown renderings differ")
	}
	hasAll(t, "English Markdown", en,
		"\n## Flow changes between majors (spec/flow.json)\n",
		"\n### Streaming replication messages: sent by the backend (`replication-backend`)\n",
		"| 16 → 17 | added | `startup` | direct TLS (a TLS handshake without SSLRequest) | → `tls-handshake`; backend → `encrypted` |  | [why](#flow-rule-frontend-startup-direct-tls) |\n",
		"| 14 → 15 | added | `backup` | new archive (`replication-new-archive`) | → `backup-archive` |",
		"| 12 → 13 | unchanged |",
		"| 17 → 18 | newest protocol version |  | 3.0 → 3.2 |",
		"\n#### flow rule frontend startup direct-tls\n",
		// at a glance: a row per step, a cell per side
		"| 16 → 17 | added 5 | added 4, removed 1 | unchanged | unchanged | unchanged |\n",
		"| 12 → 13 | unchanged | unchanged | unchanged | unchanged | unchanged |\n")
	hasAll(t, "Chinese Markdown", zh,
		"\n## 各大版本之间的消息流变更（spec/flow.json）\n",
		"\n### 前后端消息格式：前端发送（`frontend`）\n",
		"| 大版本 | 变更 | 状态 | 消息 | 之后 | 条件 | 理由 |\n",
		"| 12 → 13 | 未变 |",
		"\n### 消息流规则\n",
		"| 16 → 17 | 新增 5 | 新增 4，移除 1 | 未变 | 未变 | 未变 |\n",
		"| 大版本 | [frontend](#前后端消息格式前端发送frontend) |")
	// A link of the tables lands on a heading of the details.
	if !bytes.Contains(en, []byte("(#flow-rule-replication-backend-backup-replication-new-archive)")) ||
		anchor("flow rule replication-backend backup replication-new-archive") != "flow-rule-replication-backend-backup-replication-new-archive" {
		t.Error("the BASE_BACKUP rule's link and heading disagree")
	}

	data, err := h.JSON(English)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FlowChanges FlowChanges `json:"flow_changes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if st := flowStep(t, &doc.FlowChanges, "frontend", 17); !slices.Contains(ruleChanges(&doc.FlowChanges, st), "added startup direct-tls") {
		t.Errorf("JSON: frontend into 17 lacks direct TLS: %+v", st)
	}

	page, err := h.HTML(English)
	if err != nil {
		t.Fatal(err)
	}
	hasAll(t, "the page", page,
		`<section class="flow-changes" id="flow-changes" aria-labelledby="flow-changes-h">`,
		`<a href="#flow-changes"><span lang="en">Flow changes</span><span lang="zh-CN">消息流变更</span></a>`,
		`<tr data-major="17"><th scope="row">16 → 17</th><td class="s-added"><span lang="en">added</span><span lang="zh-CN">新增</span></td><td><code>startup</code></td>`,
		`<tr data-major="13" class="same"><th scope="row">12 → 13</th><td class="s-unchanged">`)

	bare := committed(t)
	if bytes.Contains(bare.Markdown(English), []byte("Flow changes")) {
		t.Error("a history without flow rules shows flow changes")
	}
	if p, _ := bare.HTML(English); bytes.Contains(p, []byte(`id="flow-changes"`)) || bytes.Contains(p, []byte(`href="#flow-changes"`)) {
		t.Error("a page without flow rules shows flow changes")
	}
}

// hasAll fails the test for each of wants that doc (named what) lacks.
func hasAll(t *testing.T, what string, doc []byte, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("%s lacks %q", what, want)
		}
	}
}
