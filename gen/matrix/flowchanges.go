package matrix

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// The flow changes of the matrix: where the conversation itself changed
// between majors, read from the flow the trackers follow (spec/flow.json
// resolved by gen/model). A rule allows one message (or event) in one
// state of one side; the model decides the majors it holds in (its own
// majors, the message's, the page list its state follows), so a step from
// one major to the next adds the rules that hold after it and not before
// and removes the others. Nothing here knows a rule: the sections, the
// conditions and the reasons all come from the model.

// FlowChanges is the flow-changes part of a rendering in one language.
type FlowChanges struct {
	Title string `json:"title"`
	Intro string `json:"intro"`
	// ProtocolMinors is the newest minor of protocol 3 each major speaks.
	ProtocolMinors []ProtocolMinor `json:"protocol_minors"`
	// Sections are one per machine of the flow (one side of one layer).
	Sections []FlowSection `json:"sections"`
	// Versioned are the IDs of the rules that hold only in some sessions
	// of a major: by the protocol minor negotiated or the pgoutput
	// proto_version asked for.
	Versioned []string `json:"versioned"`
	// Rules are every rule a step or Versioned names, with its reason.
	Rules []FlowRule `json:"rules"`
}

// ProtocolMinor is the newest protocol version a major speaks: 3.Minor.
type ProtocolMinor struct {
	Major int `json:"major"`
	Minor int `json:"minor"`
}

// FlowSection is one machine's steps from each major to the next.
type FlowSection struct {
	Machine   string `json:"machine"`
	Layer     string `json:"layer"`
	Direction string `json:"direction"`
	Title     string `json:"title"`
	// Doc is the machine's doc in spec/flow.json (English).
	Doc   string     `json:"doc"`
	Steps []FlowStep `json:"steps"`
}

// FlowStep is the change of one machine from From to To: Wire when a rule
// was added or removed, else Unchanged.
type FlowStep struct {
	From int `json:"from"`
	To   int `json:"to"`
	Change
	Label string `json:"label"`
	// Protocol is the newest protocol version before and after ("3.0 →
	// 3.2") when it changed, on the frontend/backend layer's steps.
	Protocol string       `json:"protocol,omitempty"`
	Changes  []FlowChange `json:"changes"`
}

// FlowChange is one rule added or removed by a step.
type FlowChange struct {
	Change
	Label string `json:"label"`
	// Rule is the rule's ID in FlowChanges.Rules.
	Rule string `json:"rule"`
}

// FlowRule is one rule of the flow as the matrix shows it.
type FlowRule struct {
	// ID is the anchor of the rule's reason.
	ID      string `json:"id"`
	Machine string `json:"machine"`
	State   string `json:"state"`
	// Message is the slug of the message the rule allows, Event what it
	// allows instead (direct TLS); Answer narrows a one-byte answer.
	Message string `json:"message,omitempty"`
	Event   string `json:"event,omitempty"`
	Answer  string `json:"answer,omitempty"`
	Name    string `json:"name"`
	// LeadsTo is what the rule changes, in words: the side's next state,
	// the other side's, a request queued or ended, a stream opened.
	LeadsTo string `json:"leads_to"`
	// Needs are the rule's conditions in words: what must have come
	// before, the pgoutput version its message needs.
	Needs  []string `json:"needs,omitempty"`
	Majors []int    `json:"majors"`
	Reason string   `json:"reason"`
	// Source is the manual's page and anchor the rule comes from, URL
	// that place in the newest major the rule holds in.
	Source string `json:"source,omitempty"`
	URL    string `json:"url,omitempty"`
	// heading heads the reason in the Markdown: its anchor is ID.
	heading string
}

// flowChanges is the flow changes in lang, nil when the history has no
// flow (a spec without spec/flow.json).
func (h *History) flowChanges(lang Lang) *FlowChanges {
	if h.Model == nil || h.Model.Flow == nil {
		return nil
	}
	fw := flowVocab[lang]
	fc := &FlowChanges{Title: fw.title, Intro: fw.intro, Sections: []FlowSection{}, Versioned: []string{}, Rules: []FlowRule{}}
	majors := make([]int, len(h.Specs))
	for i, s := range h.Specs {
		majors[i] = s.Major
		fc.ProtocolMinors = append(fc.ProtocolMinors, ProtocolMinor{s.Major, h.Model.ProtocolMinors[s.Major]})
	}
	shown := map[*model.FlowRule]bool{}
	for _, m := range h.Model.Flow.Machines {
		sec := FlowSection{Machine: m.Name, Layer: m.Layer, Direction: m.Direction.String(), Doc: m.Doc,
			Title: fmt.Sprintf(fw.section, vocab[lang].layer[m.Layer], fw.side[m.Direction], m.Name)}
		for i := 1; i < len(majors); i++ {
			a, b := majors[i-1], majors[i]
			st := FlowStep{From: a, To: b, Changes: []FlowChange{}}
			if pa, pb := h.Model.ProtocolMinors[a], h.Model.ProtocolMinors[b]; pa != pb && m.Layer == spec.LayerFrontendBackend {
				st.Protocol = fmt.Sprintf("3.%d → 3.%d", pa, pb)
			}
			for _, fs := range m.States {
				for _, r := range fs.Rules {
					var c Change
					switch in, was := slices.Contains(r.Majors, b), slices.Contains(r.Majors, a); {
					case in && !was:
						c.Status = Added
					case was && !in:
						c.Status = Removed
					default:
						continue
					}
					st.Changes = append(st.Changes, FlowChange{Change: c, Label: label(c, lang), Rule: flowRuleID(r, fs)})
					shown[r] = true
				}
			}
			st.Status = Unchanged
			if len(st.Changes) > 0 || st.Protocol != "" {
				st.Status = Wire
			}
			st.Label = fw.step[st.Status]
			sec.Steps = append(sec.Steps, st)
		}
		fc.Sections = append(fc.Sections, sec)
	}
	for _, fs := range h.Model.Flow.States() {
		for _, r := range fs.Rules {
			if versioned(r) {
				fc.Versioned = append(fc.Versioned, flowRuleID(r, fs))
				shown[r] = true
			}
		}
	}
	for _, fs := range h.Model.Flow.States() {
		for _, r := range fs.Rules {
			if shown[r] {
				fc.Rules = append(fc.Rules, h.flowRule(r, fs, lang))
			}
		}
	}
	return fc
}

// versioned says whether r holds only in some sessions of its majors: its
// message needs a pgoutput version beyond the first, or it takes part in
// negotiating the protocol minor.
func versioned(r *model.FlowRule) bool {
	return r.Msg != nil && r.Msg.SinceLogical > 0 || r.Requires == spec.RequiresNegotiation || r.Requires == spec.RequiresNegotiated
}

// flowRuleHeading names rule r of state st: "flow rule backend
// ssl-answer ssl-response N"; its anchor is the rule's ID.
func flowRuleHeading(r *model.FlowRule, st *model.FlowState) string {
	what := r.Event
	if r.Msg != nil {
		what = r.Msg.Slug
		if r.Answer != 0 {
			what += " " + string(r.Answer)
		}
	}
	return "flow rule " + st.ID() + " " + what
}

func flowRuleID(r *model.FlowRule, st *model.FlowState) string { return anchor(flowRuleHeading(r, st)) }

// flowRule is r as the matrix shows it in lang.
func (h *History) flowRule(r *model.FlowRule, st *model.FlowState, lang Lang) FlowRule {
	fw := flowVocab[lang]
	fr := FlowRule{ID: flowRuleID(r, st), heading: flowRuleHeading(r, st), Machine: st.Machine.Name, State: st.Name, Event: r.Event,
		Majors: r.Majors, Reason: r.Reason, Source: r.Source, Name: fw.event[r.Event]}
	if r.Msg != nil {
		fr.Message, fr.Name = r.Msg.Slug, r.Msg.Name
		if r.Answer != 0 {
			fr.Answer = string(r.Answer)
			fr.Name += " '" + fr.Answer + "'"
		}
	}
	if r.Source != "" {
		fr.URL = fmt.Sprintf("https://www.postgresql.org/docs/%d/%s", r.Majors[len(r.Majors)-1], r.Source)
	}
	var leads []string
	if r.Next != nil {
		leads = append(leads, "→ `"+r.Next.Name+"`")
	}
	if r.Peer != nil {
		leads = append(leads, fmt.Sprintf(fw.peer, r.Peer.Machine.Name, r.Peer.Name))
	}
	if r.Push != nil {
		leads = append(leads, fmt.Sprintf(fw.push, r.Push.Machine.Name, r.Push.Name))
	}
	for _, e := range []struct {
		on   bool
		text string
	}{{r.End, fw.end}, {r.Discard, fw.discard}, {r.Streamed != "", fw.streamed[r.Streamed]}} {
		if e.on {
			leads = append(leads, e.text)
		}
	}
	if len(leads) == 0 {
		leads = []string{fw.stays}
	}
	fr.LeadsTo = strings.Join(leads, "; ")
	if r.Requires != "" {
		fr.Needs = append(fr.Needs, fw.requires[r.Requires])
	}
	if r.Msg != nil && r.Msg.SinceLogical > 0 {
		fr.Needs = append(fr.Needs, fmt.Sprintf(fw.logical, r.Msg.SinceLogical))
	}
	return fr
}

// mdEscape keeps a reason's text literal in Markdown: "_pq_." is no emphasis.
var mdEscape = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", "&lt;")

// flowWords are the flow changes' fixed texts in one language; the words
// for the flow's effects and checks are keyed by spec/flow.json's values.
type flowWords struct {
	title, intro, protocol, versionedTitle, rulesTitle string
	// protocolStep names a step's change of the newest protocol version.
	protocolStep string
	// section titles a machine's table: its layer, its side, its name.
	section string
	side    map[model.Direction]string
	step    map[Status]string
	heads   []string
	// event names what a rule allows that is no message.
	event map[string]string
	// peer and push name the other side's state, stays a rule that
	// changes nothing, the rest a rule's effects and its checks.
	peer, push, stays, end, discard, logical string
	streamed, requires                       map[string]string
	why, holds, source, sideHead, nav        string
	// count counts a step's rules of one status ("added 5"), comma joins them.
	count, comma string
}

// versionedHeads head the table of versioned rules: the columns of a
// section's, the majors the rule holds in and its side first.
func (fw flowWords) versionedHeads() []string {
	return append([]string{fw.holds, fw.sideHead}, fw.heads[2:]...)
}

var flowVocab = map[Lang]flowWords{
	English: {
		title: "Flow changes between majors (spec/flow.json)",
		intro: "Where the conversation changed from one major to the next: the rules of the flow the generated trackers follow " +
			"(spec/flow.json, each with its reason, resolved by gen/model), one table per side of each layer. " +
			"A rule allows one message in one state; it holds in the majors of its message, narrowed by its own majors and, " +
			"in a state that follows a list of protocol-flow.html, to the majors whose list names the message. " +
			"A step adds the rules that hold after it and not before, and removes the others; \"unchanged\" means every rule holds on both sides.",
		protocol:       "Newest protocol version each major speaks (from the manual's notes on what a minor changed): %s.",
		protocolStep:   "newest protocol version",
		versionedTitle: "Within a major: rules that depend on the protocol or pgoutput version",
		rulesTitle:     "Flow rules",
		section:        "%s: %s (`%s`)",
		side:           map[model.Direction]string{model.FromFrontend: "sent by the frontend", model.FromBackend: "sent by the backend"},
		step:           map[Status]string{Wire: "flow change", Unchanged: "unchanged"},
		heads:          []string{"majors", "change", "state", "message", "leads to", "needs", "reason"},
		event:          map[string]string{spec.EventDirectTLS: "direct TLS (a TLS handshake without SSLRequest)"},
		peer:           "%s → `%s`",
		push:           "queues %s `%s`",
		stays:          "stays",
		end:            "ends the oldest request",
		discard:        "discards the requests until Sync",
		logical:        "pgoutput proto_version ≥ %d",
		streamed:       map[string]string{spec.StreamOpen: "opens a streamed transaction", spec.StreamClose: "ends a streamed transaction", spec.StreamAbort: "aborts a streamed transaction"},
		requires: map[string]string{
			spec.RequiresRelation:    "its relations were described (Relation)",
			spec.RequiresTypes:       "its non-built-in column types were described (Type)",
			spec.RequiresNoChangeYet: "no change of the transaction yet",
			spec.RequiresNegotiation: "answers a newer minor or `_pq_.` options the StartupMessage asked for, once",
			spec.RequiresNegotiated:  "after NegotiateProtocolVersion when the StartupMessage needed one",
		},
		why:      "why",
		holds:    "holds in",
		source:   "source",
		sideHead: "side",
		nav:      "Flow changes",
		count:    "%s %d",
		comma:    ", ",
	},
	Chinese: {
		title: "各大版本之间的消息流变更（spec/flow.json）",
		intro: "会话从一个大版本到下一个大版本的变化：生成的会话跟踪器所遵循的消息流规则" +
			"（spec/flow.json，每条规则附理由，由 gen/model 解析），每层的每一方一张表。" +
			"一条规则允许某状态下的一条消息；它在其消息所在的大版本中成立，再按规则自身的大版本收窄，" +
			"若其状态遵循 protocol-flow.html 的某个列表，则只在列表列出该消息的大版本中成立。" +
			"每一步列出之后成立而之前不成立的规则（新增）及相反的规则（移除）；“未变”表示所有规则在两侧都成立。规则的理由为英文，取自 spec/flow.json。",
		protocol:       "各大版本支持的最新协议版本（依据手册对各次版本变化的说明）：%s。",
		protocolStep:   "最新协议版本",
		versionedTitle: "同一大版本内：取决于协议版本或 pgoutput 版本的规则",
		rulesTitle:     "消息流规则",
		section:        "%s：%s（`%s`）",
		side:           map[model.Direction]string{model.FromFrontend: "前端发送", model.FromBackend: "后端发送"},
		step:           map[Status]string{Wire: "消息流变更", Unchanged: "未变"},
		heads:          []string{"大版本", "变更", "状态", "消息", "之后", "条件", "理由"},
		event:          map[string]string{spec.EventDirectTLS: "直接 TLS（不先发送 SSLRequest 的 TLS 握手）"},
		peer:           "%s → `%s`",
		push:           "排入 %s `%s`",
		stays:          "状态不变",
		end:            "结束最早的请求",
		discard:        "丢弃直到 Sync 的请求",
		logical:        "pgoutput proto_version ≥ %d",
		streamed:       map[string]string{spec.StreamOpen: "开启流式事务", spec.StreamClose: "结束流式事务", spec.StreamAbort: "中止流式事务"},
		requires: map[string]string{
			spec.RequiresRelation:    "其关系已先由 Relation 描述",
			spec.RequiresTypes:       "其非内置列类型已先由 Type 描述",
			spec.RequiresNoChangeYet: "事务中尚无变更",
			spec.RequiresNegotiation: "回应 StartupMessage 请求的更新次版本或 `_pq_.` 选项，仅一次",
			spec.RequiresNegotiated:  "StartupMessage 需要协商时，须在 NegotiateProtocolVersion 之后",
		},
		why:      "查看",
		holds:    "成立于",
		source:   "出处",
		sideHead: "一方",
		nav:      "消息流变更",
		count:    "%s %d",
		comma:    "，",
	},
}

// protocolLine lists the majors by the newest protocol minor they speak:
// "3.0 in 10–17, 3.2 in 18–19".
func (fc *FlowChanges) protocolLine(lang Lang) string {
	var parts []string
	for i := 0; i < len(fc.ProtocolMinors); {
		j := i
		var majors []int
		for ; j < len(fc.ProtocolMinors) && fc.ProtocolMinors[j].Minor == fc.ProtocolMinors[i].Minor; j++ {
			majors = append(majors, fc.ProtocolMinors[j].Major)
		}
		parts = append(parts, fmt.Sprintf("3.%d: %s", fc.ProtocolMinors[i].Minor, model.MajorList(majors)))
		i = j
	}
	return fmt.Sprintf(flowVocab[lang].protocol, strings.Join(parts, "; "))
}

// rule is the rule of that ID.
func (fc *FlowChanges) rule(id string) *FlowRule {
	for i := range fc.Rules {
		if fc.Rules[i].ID == id {
			return &fc.Rules[i]
		}
	}
	return nil
}

// flowChangesMarkdown is the flow changes' tables: a row per rule a step
// adds or removes, one row for a step that changes nothing.
func (h *History) flowChangesMarkdown(b *strings.Builder, lang Lang) {
	fc := h.flowChanges(lang)
	if fc == nil {
		return
	}
	fw := flowVocab[lang]
	fmt.Fprintf(b, "\n## %s\n\n%s\n\n%s\n\n", fc.Title, fc.Intro, fc.protocolLine(lang))
	heads := []string{fw.heads[0]}
	for _, sec := range fc.Sections {
		heads = append(heads, fmt.Sprintf("[%s](#%s)", sec.Machine, anchor(sec.Title)))
	}
	tableHead(b, heads)
	for _, row := range fc.summary(lang) {
		tableRow(b, append([]string{row.Step}, row.Cells...)...)
	}
	for _, sec := range fc.Sections {
		fmt.Fprintf(b, "\n### %s\n\n%s\n\n", sec.Title, sec.Doc)
		tableHead(b, fw.heads)
		for _, st := range sec.Steps {
			step := fmt.Sprintf("%d → %d", st.From, st.To)
			if st.Protocol != "" {
				tableRow(b, step, fw.protocolStep, "", st.Protocol, "", "", "")
			}
			if st.Status == Unchanged {
				tableRow(b, step, st.Label, "", "", "", "", "")
			}
			for _, c := range st.Changes {
				r := fc.rule(c.Rule)
				tableRow(b, append([]string{step, c.Label, "`" + r.State + "`"}, r.cells(lang)...)...)
			}
		}
	}
	fmt.Fprintf(b, "\n### %s\n\n", fw.versionedTitle)
	tableHead(b, fw.versionedHeads())
	for _, id := range fc.Versioned {
		r := fc.rule(id)
		tableRow(b, append([]string{model.MajorList(r.Majors), r.Machine, "`" + r.State + "`"}, r.cells(lang)...)...)
	}
}

// summaryRow is one step of every machine at a glance.
type summaryRow struct {
	To   int
	Step string
	// Cells count each machine's rules added and removed, or say unchanged;
	// Classes are their statuses' CSS classes.
	Cells, Classes []string
	Same           bool
}

// summary is the flow changes at a glance: a row per step, a cell per
// machine.
func (fc *FlowChanges) summary(lang Lang) []summaryRow {
	fw := flowVocab[lang]
	var rows []summaryRow
	for i, st := range fc.Sections[0].Steps {
		row := summaryRow{To: st.To, Step: fmt.Sprintf("%d → %d", st.From, st.To), Same: true}
		for _, sec := range fc.Sections {
			st := sec.Steps[i]
			n := map[Status]int{}
			for _, c := range st.Changes {
				n[c.Status]++
			}
			var parts []string
			if st.Protocol != "" {
				parts = append(parts, st.Protocol)
			}
			for _, s := range []Status{Added, Removed} {
				if n[s] > 0 {
					parts = append(parts, fmt.Sprintf(fw.count, vocab[lang].status[s], n[s]))
				}
			}
			if len(parts) == 0 {
				parts = []string{st.Label}
			}
			row.Same = row.Same && st.Status == Unchanged
			row.Cells = append(row.Cells, strings.Join(parts, fw.comma))
			row.Classes = append(row.Classes, statusClass[st.Status])
		}
		rows = append(rows, row)
	}
	return rows
}

// cells are the rule's message, effects, conditions and the link to its
// reason, as Markdown.
func (r *FlowRule) cells(lang Lang) []string {
	what := r.Name
	if r.Message != "" {
		what += " (`" + r.Message + "`)"
	}
	return []string{what, r.LeadsTo, strings.Join(r.Needs, "; "),
		fmt.Sprintf("[%s](#%s)", flowVocab[lang].why, r.ID)}
}

// flowRulesMarkdown is the reasons of the rules the tables name, in the
// details section.
func (h *History) flowRulesMarkdown(b *strings.Builder, lang Lang) {
	fc := h.flowChanges(lang)
	if fc == nil {
		return
	}
	fw := flowVocab[lang]
	fmt.Fprintf(b, "\n### %s\n", fw.rulesTitle)
	for _, r := range fc.Rules {
		fmt.Fprintf(b, "\n#### %s\n\n%s `%s`, %s: %s %s", r.heading, r.Machine, r.State, r.Name, fw.holds, model.MajorList(r.Majors))
		if r.URL != "" {
			fmt.Fprintf(b, "; %s: [%s](%s)", fw.source, r.Source, r.URL)
		}
		fmt.Fprintf(b, "\n\n> %s\n", mdEscape.Replace(r.Reason))
	}
}

// pageFlow is the flow changes on the page, both languages: a table per
// machine whose rows carry the step's major (so the range hides the steps
// outside it) and each rule's reason folded in its row.
type pageFlow struct {
	Nav, Title, Intro, Protocol bi
	Heads, VersionedHeads       []bi
	VersionedTitle              bi
	Sections                    []pageFlowSection
	Versioned                   []pageFlowRow
	// Summary is a row per step, a cell per section in its order.
	Summary []pageSummaryRow
}

type pageSummaryRow struct {
	To    int
	Step  string
	Same  bool
	Cells []pageSummaryCell
}

type pageSummaryCell struct {
	Class string
	Text  bi
}

type pageFlowSection struct {
	ID, Machine string
	Title       biHTML
	Doc         string
	Rows        []pageFlowRow
}

type pageFlowRow struct {
	// To is the major the row's step leads into, 0 for a versioned rule.
	To int
	// Step is the step ("16 → 17") or the majors a rule holds in.
	Step string
	// Same marks a step that changed nothing.
	Same           bool
	Class          string
	Change         bi
	State          string
	Name           bi
	Message        string
	LeadsTo, Needs biHTML
	Reason         string
	Source, URL    string
}

// biHTML is a bi of HTML: Markdown code spans made <code>.
type biHTML struct{ En, Zh template.HTML }

// Same reports whether both languages read alike.
func (t biHTML) Same() bool { return t.En == t.Zh }

// codeSpans renders s's `code` spans as <code>, the rest escaped.
func codeSpans(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(template.HTMLEscapeString(p))
	}
	return template.HTML(b.String())
}

func bothHTML(en, zh string) biHTML { return biHTML{codeSpans(en), codeSpans(zh)} }

// flowPage is the page's flow changes, nil without flow rules.
func (h *History) flowPage() *pageFlow {
	en, zh := h.flowChanges(English), h.flowChanges(Chinese)
	if en == nil {
		return nil
	}
	fe, fz := flowVocab[English], flowVocab[Chinese]
	p := &pageFlow{Nav: bi{fe.nav, fz.nav}, Title: bi{en.Title, zh.Title}, Intro: bi{en.Intro, zh.Intro},
		Protocol: bi{en.protocolLine(English), zh.protocolLine(Chinese)}, VersionedTitle: bi{fe.versionedTitle, fz.versionedTitle}}
	for i := range fe.heads {
		p.Heads = append(p.Heads, bi{fe.heads[i], fz.heads[i]})
	}
	ve, vz := fe.versionedHeads(), fz.versionedHeads()
	for i := range ve {
		p.VersionedHeads = append(p.VersionedHeads, bi{ve[i], vz[i]})
	}
	row := func(re, rz *FlowRule) pageFlowRow {
		return pageFlowRow{State: re.State, Name: bi{re.Name, rz.Name}, Message: re.Message,
			LeadsTo: bothHTML(re.LeadsTo, rz.LeadsTo), Needs: bothHTML(strings.Join(re.Needs, "; "), strings.Join(rz.Needs, "; ")),
			Reason: re.Reason, Source: re.Source, URL: re.URL}
	}
	for k, se := range en.Sections {
		sz := zh.Sections[k]
		ps := pageFlowSection{ID: "flow-changes-" + se.Machine, Machine: se.Machine, Title: bothHTML(se.Title, sz.Title), Doc: se.Doc}
		for j, st := range se.Steps {
			step := fmt.Sprintf("%d → %d", st.From, st.To)
			if st.Protocol != "" {
				ps.Rows = append(ps.Rows, pageFlowRow{To: st.To, Step: step, Class: statusClass[Wire],
					Change: bi{fe.protocolStep, fz.protocolStep}, Name: bi{st.Protocol, st.Protocol}})
			}
			if st.Status == Unchanged {
				ps.Rows = append(ps.Rows, pageFlowRow{To: st.To, Step: step, Same: true, Class: statusClass[Unchanged], Change: bi{st.Label, sz.Steps[j].Label}})
			}
			for i, c := range st.Changes {
				r := row(en.rule(c.Rule), zh.rule(c.Rule))
				r.To, r.Step, r.Class, r.Change = st.To, step, statusClass[c.Status], bi{c.Label, sz.Steps[j].Changes[i].Label}
				ps.Rows = append(ps.Rows, r)
			}
		}
		p.Sections = append(p.Sections, ps)
	}
	sz := zh.summary(Chinese)
	for i, se := range en.summary(English) {
		row := pageSummaryRow{To: se.To, Step: se.Step, Same: se.Same}
		for k := range se.Cells {
			row.Cells = append(row.Cells, pageSummaryCell{se.Classes[k], bi{se.Cells[k], sz[i].Cells[k]}})
		}
		p.Summary = append(p.Summary, row)
	}
	for _, id := range en.Versioned {
		re := en.rule(id)
		r := row(re, zh.rule(id))
		r.Step, r.Change = model.MajorList(re.Majors), bi{re.Machine, re.Machine}
		p.Versioned = append(p.Versioned, r)
	}
	return p
}
