package emit

import (
	"cmp"
	"fmt"
	"go/ast"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// flowFile renders the tables the trackers (runtime/flow.go and the
// runtime files of each machine) follow: one number per state and per
// message kind, the rules of every state as a table indexed by both, how a
// frame's first bytes name its kind, and the stand-ins for trackers of
// layers the codec was not generated with. Nil when the model has no flow.
func flowFile(mod *model.Model, o Options, tags map[string]bool) *jen.File {
	fl := mod.Flow
	if fl == nil || len(fl.Machines) == 0 {
		return nil
	}
	f := o.newFile()
	states := fl.States()
	kinds := flowKinds(mod)
	kindOf := map[*model.Message]int{}
	for i, m := range kinds {
		kindOf[m] = i + 1
	}

	f.Comment("The states of the conversation (spec/flow.json), all machines numbered together.")
	var sc []jen.Code
	for _, st := range states {
		sc = append(sc, jen.Comment(fmt.Sprintf("%s: %s", st.ID(), st.Doc)))
		sc = append(sc, jen.Id(stateConst(st)).Id("flowState").Op("=").Lit(st.Index))
	}
	f.Const().Defs(sc...)
	f.Line()
	f.Comment("The kinds of message the flow tells apart, then its events: 0 is none the codec knows.")
	kc := []jen.Code{jen.Id("kindNone").Id("flowKind").Op("=").Lit(0)}
	for i, m := range kinds {
		kc = append(kc, jen.Id("kind"+m.GoName).Id("flowKind").Op("=").Lit(i+1))
	}
	eventKind := map[string]int{}
	for i, ev := range flowEvents {
		eventKind[ev.slug] = len(kinds) + 1 + i
		kc = append(kc, jen.Id(ev.kind).Id("flowKind").Op("=").Lit(eventKind[ev.slug]))
	}
	kc = append(kc, jen.Id("flowKinds").Op("=").Lit(len(kinds)+len(flowEvents)+1))
	f.Const().Defs(kc...)
	f.Line()

	// The rules, and the table naming the rule of each state and kind; the
	// rules of one answer's values chain by alt.
	var all []*model.FlowRule
	var of []*model.FlowState
	alt := map[int]int{}
	table := make([][]int, len(states))
	for _, st := range states {
		table[st.Index] = make([]int, len(kinds)+len(flowEvents)+1)
		last := map[int]int{}
		for _, r := range st.Rules {
			all, of = append(all, r), append(of, st)
			k := kindOf[r.Msg]
			if r.Event != "" {
				k = eventKind[r.Event]
			}
			if prev := last[k]; prev != 0 {
				alt[prev] = len(all)
			} else {
				table[st.Index][k] = len(all)
			}
			last[k] = len(all)
		}
	}
	var rules []jen.Code
	for i, r := range all {
		rules = append(rules, flowRuleLit(of[i], r, alt[i+1], mod.Majors))
	}
	f.Comment("flowRules are the rules of spec/flow.json, state by state.")
	f.Var().Id("flowRules").Op("=").Index(jen.Op("...")).Id("flowRule").Values(rules...)
	f.Line()
	f.Comment("flowTable names the rule (1-based; 0: not allowed) of each state and kind.")
	var rows []jen.Code
	for _, st := range states {
		var cells []jen.Code
		for k, r := range table[st.Index] {
			if r != 0 {
				cells = append(cells, jen.Lit(k).Op(":").Lit(r))
			}
		}
		rows = append(rows, jen.Id(stateConst(st)).Op(":").Values(cells...))
	}
	// A cell is one byte while the rules fit in it: the table is read for
	// nearly every message, and smaller is kinder to the cache.
	cell := jen.Uint8()
	if len(all) > math.MaxUint8 {
		cell = jen.Uint16()
	}
	f.Var().Id("flowTable").Op("=").Index(jen.Lit(len(states))).Index(jen.Id("flowKinds")).Add(cell).Values(rows...)
	f.Line()
	// The act of each cell's rule again, for the one load a tracker takes
	// nearly every message on: by kind, then state, 256 states to a kind,
	// so that a generated case (its kind a constant) loads its state's act
	// at a constant offset with no bounds check.
	var byKind [][]jen.Code
	for _, st := range states {
		for k, r := range table[st.Index] {
			if r == 0 {
				continue
			}
			for len(byKind) <= k {
				byKind = append(byKind, nil)
			}
			byKind[k] = append(byKind[k], jen.Id(stateConst(st)).Op(":").Op(fmt.Sprintf("%#x", actOf(of[r-1], all[r-1], mod.Majors).bits())))
		}
	}
	rows = nil
	for k, cells := range byKind {
		if len(cells) > 0 {
			rows = append(rows, jen.Lit(k).Op(":").Values(cells...))
		}
	}
	f.Comment("flowActs is the act of each state's rule for each kind (flowTable's, in flowRules), 0 where none is:")
	f.Comment("flowActs[kind][state], read with actIn.")
	f.Var().Id("flowActs").Op("=").Index(jen.Id("flowKinds")).Index(jen.Lit(256)).Id("flowAct").Values(rows...)
	f.Line()
	var names, slugs, streamed []jen.Code
	for _, st := range states {
		names = append(names, jen.Lit(st.ID()))
		if st.Streamed {
			streamed = append(streamed, jen.Id(stateConst(st)).Op(":").True())
		}
	}
	slugs = append(slugs, jen.Lit(""))
	for _, m := range kinds {
		slugs = append(slugs, jen.Lit(m.Slug))
	}
	for _, ev := range flowEvents {
		slugs = append(slugs, jen.Lit(ev.slug))
	}
	f.Comment("flowStateNames name each state as \"machine state\".")
	f.Var().Id("flowStateNames").Op("=").Index(jen.Op("...")).String().Values(names...)
	f.Comment("flowKindNames are each kind's slug.")
	f.Var().Id("flowKindNames").Op("=").Index(jen.Op("...")).String().Values(slugs...)
	f.Comment("flowStreamed marks the states whose pgoutput messages carry the xid.")
	f.Var().Id("flowStreamed").Op("=").Index(jen.Lit(len(states))).Bool().Values(streamed...)

	tagOf := map[string]byte{}
	for _, d := range dispatchers(mod) {
		if len(d.members) > 0 {
			kindLookup(f, d, kindOf, tagOf)
		}
	}
	tagConsts(f, tagOf, tags)
	if fm := machine(fl, "frontend"); fm != nil {
		authByState(f, fl, fm, kindOf)
		untaggedByState(f, fl, fm)
	}
	if bm := machine(fl, "backend"); bm != nil {
		answerByState(f, fl, bm, kindOf, mod.Majors)
		if machine(fl, "frontend") != nil {
			protocolMinorTable(f, mod)
			directTLS(f, mod)
		}
	}
	stubs(f, fl)
	return f
}

// stays reports whether r allows its message without changing anything or
// requiring more than a change's relation, in each of the codec's majors
// that the message has (actStays): the trackers' fast paths take such a
// message on one bit after decoding it, its decoder having refused any
// other major, and check a change's relation themselves.
func stays(r *model.FlowRule, majors []int) bool {
	return r.Msg != nil && r.Next == nil && r.Peer == nil && r.Push == nil && !r.End && !r.Discard &&
		r.Streamed == "" && r.Answer == 0 && (r.Requires == "" || r.Requires == spec.RequiresRelation) &&
		allMajors(r, majors)
}

// needsLook reports whether taking r needs more than its act (actRule):
// majors its message decodes in where r does not hold, an answer's value,
// what it requires (but the negotiation a start-up ended, which its act
// says: actNegotiated) or streams.
func needsLook(r *model.FlowRule, majors []int) bool {
	return r.Answer != 0 || needsRule(r, majors)
}

// needsRule is needsLook but for an answer's value, which answerActs holds.
func needsRule(r *model.FlowRule, majors []int) bool {
	return r.Requires != "" && r.Requires != spec.RequiresNegotiated || r.Streamed != "" || !allMajors(r, majors)
}

// allMajors reports whether r holds in each of the codec's majors its
// message has (an event: each of the codec's).
func allMajors(r *model.FlowRule, majors []int) bool {
	for _, mj := range majors {
		if (r.Msg == nil || slices.Contains(r.Msg.Majors, mj)) && !slices.Contains(r.Majors, mj) {
			return false
		}
	}
	return true
}

// flowEvents are what a flow rule allows that is no message, each with a
// kind after the messages'.
var flowEvents = []struct{ slug, kind string }{{spec.EventDirectTLS, "kindDirectTLS"}}

// directTLS renders the ALPN protocol name a client beginning TLS at once
// offers, as the newest major's protocol-flow.html gives it; nothing when
// no major of the codec documents direct TLS.
func directTLS(f *jen.File, mod *model.Model) {
	var d *spec.DirectTLS
	for _, mj := range mod.Majors {
		if mod.DirectTLS[mj] != nil {
			d = mod.DirectTLS[mj]
		}
	}
	if d == nil {
		return
	}
	f.Comment("DirectTLSALPN is the ALPN protocol a client that begins TLS without SSLRequest must offer:")
	f.Comment(fmt.Sprintf("%q (%s#%s).", d.ALPN, d.Page, d.Section))
	f.Const().Id("DirectTLSALPN").Op("=").Lit(d.ALPN)
}

// flowKinds are the messages the machines follow, by slug.
func flowKinds(mod *model.Model) []*model.Message {
	layers := map[string]bool{}
	for _, m := range mod.Flow.Machines {
		layers[m.Layer] = true
	}
	var out []*model.Message
	for _, m := range mod.Messages {
		if layers[m.Layer] && !m.Part {
			out = append(out, m)
		}
	}
	return out
}

func machine(fl *model.Flow, name string) *model.FlowMachine {
	for _, m := range fl.Machines {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// stateConst is a state's constant: stBackendQueryRows.
func stateConst(st *model.FlowState) string {
	return "st" + camel(st.Machine.Name) + camel(st.Name)
}

func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// flowRuleLit is one rule as a flowRule value, its reason in a comment;
// alt is the rule (1-based) for another value of the same answer.
func flowRuleLit(st *model.FlowState, r *model.FlowRule, alt int, majors []int) jen.Code {
	fields := []jen.Code{jen.Id("act").Op(":").Add(actOf(st, r, majors).lit())}
	if r.Streamed != "" {
		fields = append(fields, jen.Id("streamed").Op(":").Id("stream"+camel(r.Streamed)))
	}
	if r.Requires != "" {
		fields = append(fields, jen.Id("requires").Op(":").Id("requires"+camel(r.Requires)))
	}
	if r.Answer != 0 {
		fields = append(fields, jen.Id("answer").Op(":").LitByte(r.Answer))
	}
	if alt != 0 {
		fields = append(fields, jen.Id("alt").Op(":").Lit(alt))
	}
	fields = append(fields, jen.Id("majors").Op(":").Op(fmt.Sprintf("%#x", majorSet(r.Majors))))
	what := r.Event
	if r.Msg != nil {
		what = r.Msg.GoName
	}
	if r.Answer != 0 {
		what += fmt.Sprintf(" %q", r.Answer)
	}
	doc := fmt.Sprintf("%s, %s: %s", st.ID(), what, r.Reason)
	if src := cmp.Or(r.Source, st.Source); src != "" { // a rule without one is of its state's section
		doc += " (" + src + ")"
	}
	// The comment goes on a line of its own before the rule: one after the
	// rule's comma would be gofmt's to attach to the next line.
	return jen.Line().Comment(doc).Line().Values(fields...)
}

// flowAct is a rule's act (runtime/flow.go): the state its side is in
// after it, the other side's and the request it queues (nil: none), and
// its flags, in the order of the runtime's constants from actAllowed.
type flowAct struct {
	own, peer, push *model.FlowState
	flags           [8]bool
}

// actFlags name flowAct's flags, bit 24 up.
var actFlags = [8]string{"actAllowed", "actMoves", "actEnd", "actDiscard", "actStays", "actRule", "actFast", "actNegotiated"}

func actOf(st *model.FlowState, r *model.FlowRule, majors []int) flowAct {
	return flowAct{own: cmp.Or(r.Next, st), peer: r.Peer, push: r.Push,
		flags: [8]bool{true, r.Next != nil, r.End, r.Discard, stays(r, majors), needsLook(r, majors), !needsLook(r, majors),
			r.Requires == spec.RequiresNegotiated}}
}

// bits is a's value, for flowActs.
func (a flowAct) bits() uint32 {
	v := uint32(a.own.Index)
	if a.peer != nil {
		v |= uint32(a.peer.Index+1) << 8
	}
	if a.push != nil {
		v |= uint32(a.push.Index+1) << 16
	}
	for i, on := range a.flags {
		if on {
			v |= 1 << (24 + i)
		}
	}
	return v
}

// lit is a's value in the runtime's names, for a rule.
func (a flowAct) lit() jen.Code {
	act := jen.Id("flowAct").Parens(jen.Id(stateConst(a.own)))
	for _, s := range []struct {
		st    *model.FlowState
		shift string
	}{{a.peer, "actPeer"}, {a.push, "actPush"}} {
		if s.st != nil {
			act.Op("|").Id("flowAct").Parens(jen.Id(stateConst(s.st)).Op("+").Lit(1)).Op("<<").Id(s.shift)
		}
	}
	for i, on := range a.flags {
		if on {
			act.Op("|").Id(actFlags[i])
		}
	}
	return act
}

// kindLookup renders the table naming the kind of a dispatcher's message by
// its tag (or, untagged, a function by its request code); 'R' is resolved
// by subtype in authKinds. It adds to tagOf each message its tag alone
// names.
func kindLookup(f *jen.File, d *dispatcher, kindOf map[*model.Message]int, tagOf map[string]byte) {
	name := "kinds" + d.Name
	if !d.Tagged {
		var cases []jen.Code
		var dflt jen.Code = jen.Return(jen.Id("kindNone"))
		for _, m := range d.members {
			code, ok, _ := fixedAfterLength(m)
			if !ok {
				dflt = jen.Return(jen.Lit(kindOf[m]))
				continue
			}
			cases = append(cases, jen.Case(jen.Lit(int(code))).Return(jen.Lit(kindOf[m])))
		}
		cases = append(cases, jen.Default().Add(dflt))
		f.Comment(name + " is the kind of a " + d.What + " by its request code.")
		f.Func().Id(name).Params(jen.Id("code").Uint32()).Id("flowKind").Block(jen.Switch(jen.Id("code")).Block(cases...))
		return
	}
	var cells, sub []jen.Code
	byTag, tags := d.byTag()
	for _, t := range tags {
		ms := byTag[t]
		if len(ms) == 1 && ms[0].State == "" {
			cells = append(cells, jen.LitRune(rune(t)).Op(":").Lit(kindOf[ms[0]]))
			tagOf[ms[0].GoName] = t
			continue
		}
		if allStates(ms) {
			continue // 'p': told apart by the state (authByState)
		}
		for _, m := range ms {
			if code, ok, _ := fixedAfterLength(m); ok {
				sub = append(sub, jen.Lit(int(code)).Op(":").Lit(kindOf[m]))
			}
		}
	}
	f.Comment(name + " names the kind of a " + d.What + " by its tag.")
	f.Var().Id(name).Op("=").Index(jen.Lit(256)).Id("flowKind").Values(cells...)
	if len(sub) > 0 {
		f.Comment("authKinds names the kind of an authentication message ('R') by its subtype.")
		f.Var().Id("authKinds").Op("=").Index(jen.Lit(16)).Id("flowKind").Values(sub...)
	}
}

// tagConsts renders tag<Message>, the tag of each message its tag alone
// names, for the messages whose constant the runtime uses (used): a
// stream's fast path tests the byte itself, without the table (about 2
// instructions a message).
func tagConsts(f *jen.File, tagOf map[string]byte, used map[string]bool) {
	var defs []jen.Code
	for _, name := range slices.Sorted(maps.Keys(tagOf)) {
		if used[name] {
			defs = append(defs, jen.Id("tag"+name).Byte().Op("=").LitRune(rune(tagOf[name])))
		}
	}
	if len(defs) > 0 {
		f.Comment("The tags the runtime's fast paths test, each naming one message.")
		f.Const().Defs(defs...)
	}
}

// runtimeTags are the messages, by Go name, whose tag<Message> constant
// the runtime rt uses.
func runtimeTags(rt []runtimeFile) (map[string]bool, error) {
	used := map[string]bool{}
	err := runtimeDecls(rt, func(d ast.Decl) {
		ast.Inspect(d, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if name, ok := strings.CutPrefix(id.Name, "tag"); ok && name != "" && name[0] >= 'A' && name[0] <= 'Z' {
					used[name] = true
				}
			}
			return true
		})
	})
	return used, err
}

// authByState renders, for each frontend state, the 'p' message it allows
// (its kind and the AuthState that decodes it).
func authByState(f *jen.File, fl *model.Flow, fm *model.FlowMachine, kindOf map[*model.Message]int) {
	var kinds, auths []jen.Code
	for _, st := range fm.States {
		for _, r := range st.Rules {
			if r.Msg != nil && r.Msg.State != "" {
				kinds = append(kinds, jen.Id(stateConst(st)).Op(":").Lit(kindOf[r.Msg]))
				auths = append(auths, jen.Id(stateConst(st)).Op(":").Id("Auth"+r.Msg.State))
			}
		}
	}
	n := len(fl.States())
	f.Comment("passwordKinds is the kind of a frontend 'p' in each state: the one message of the four the state allows.")
	f.Var().Id("passwordKinds").Op("=").Index(jen.Lit(n)).Id("flowKind").Values(kinds...)
	f.Comment("authStates is the Frontend.Auth that decodes that 'p'.")
	f.Var().Id("authStates").Op("=").Index(jen.Lit(n)).Id("AuthState").Values(auths...)
}

// untaggedByState renders the frontend states whose next message is a
// startup packet (no tag): those with a rule for one.
func untaggedByState(f *jen.File, fl *model.Flow, fm *model.FlowMachine) {
	var cells []jen.Code
	for _, st := range fm.States {
		if slices.ContainsFunc(st.Rules, func(r *model.FlowRule) bool { return r.Msg != nil && r.Msg.Tag == 0 }) {
			cells = append(cells, jen.Id(stateConst(st)).Op(":").True())
		}
	}
	f.Comment("untaggedStates marks the frontend states whose next message is a startup packet, untagged")
	f.Comment("(256 entries, one per flowState value: indexed without a bounds check, once a frame).")
	f.Var().Id("untaggedStates").Op("=").Index(jen.Lit(256)).Bool().Values(cells...)
}

// answerByState renders, for each backend state, the one-byte answer it
// waits for (SSLResponse after an SSLRequest): such a frame has neither tag
// nor length, so the state alone names its message.
//
// It renders too the acts of the answers whose rule holds in every major
// the answer has (answerActs): the tracker takes those without looking the
// rule up, as a generated case takes an actFast message.
func answerByState(f *jen.File, fl *model.Flow, bm *model.FlowMachine, kindOf map[*model.Message]int, majors []int) {
	var kinds, acts []jen.Code
	most := 1
	for _, st := range bm.States {
		var kind int
		var answers []jen.Code
		for _, r := range st.Rules {
			if r.Msg == nil || r.Msg.AnswerTo == "" {
				continue
			}
			kind = cmp.Or(kind, kindOf[r.Msg])
			if r.Answer != 0 && !needsRule(r, majors) {
				answers = append(answers, jen.Values(jen.LitRune(rune(r.Answer)), jen.Op(fmt.Sprintf("%#x", actOf(st, r, majors).bits()))))
			}
		}
		if kind != 0 {
			kinds = append(kinds, jen.Id(stateConst(st)).Op(":").Lit(kind))
		}
		if len(answers) > 0 {
			acts = append(acts, jen.Id(stateConst(st)).Op(":").Values(answers...))
			most = max(most, len(answers))
		}
	}
	f.Comment("answerKinds is the kind of the one-byte answer each backend state waits for, kindNone if none")
	f.Comment("(256 entries, one per flowState value: indexed without a bounds check, once a frame).")
	f.Var().Id("answerKinds").Op("=").Index(jen.Lit(256)).Id("flowKind").Values(kinds...)
	f.Comment("answerAct is an answer's byte and the act of its rule.")
	f.Type().Id("answerAct").Struct(jen.Id("b").Byte(), jen.Id("act").Id("flowAct"))
	f.Comment("answerActs are the answers each backend state takes on their act alone (the rule holds in every")
	f.Comment("major the answer has); an answer not there has its rule looked up.")
	f.Var().Id("answerActs").Op("=").Index(jen.Lit(256)).Index(jen.Lit(most)).Id("answerAct").Values(acts...)
}

// protocolMinorTable renders the newest protocol minor of each major the
// codec has (model.ProtocolMinors) and the newest of any major, what a
// server of a major the codec lacks may speak.
func protocolMinorTable(f *jen.File, mod *model.Model) {
	var cells []jen.Code
	newest := 0
	for _, mj := range slices.Sorted(maps.Keys(mod.ProtocolMinors)) {
		minor := mod.ProtocolMinors[mj]
		newest = max(newest, minor)
		if slices.Contains(mod.Majors, mj) {
			cells = append(cells, jen.Lit(mj).Op(":").Lit(minor))
		}
	}
	f.Comment("protocolMinors is the newest minor of protocol 3 each major speaks, as its manual says (\"Before protocol version 3.2, …\").")
	f.Var().Id("protocolMinors").Op("=").Index(jen.Lit(slices.Max(mod.Majors) + 1)).Uint8().Values(cells...)
	f.Comment("newestProtocolMinor is the newest minor of protocol 3 any documented major speaks.")
	f.Const().Id("newestProtocolMinor").Op("=").Lit(newest)
}

// stubs stand in for the trackers of layers the codec lacks, so that the
// runtime of the others compiles: logicalPart and replicationPart are the
// real trackers when their machines were generated, else types that
// decode nothing.
func stubs(f *jen.File, fl *model.Flow) {
	has := func(names ...string) bool {
		for _, n := range names {
			if machine(fl, n) == nil {
				return false
			}
		}
		return true
	}
	if has("replication-backend", "replication-frontend") {
		f.Comment("replicationPart follows the replication messages inside CopyData.")
		f.Type().Id("replicationPart").Op("=").Id("ReplicationTracker")
	} else if has("frontend", "backend") {
		f.Comment("replicationPart stands in for the replication tracker the codec was generated without: CopyData stay opaque.")
		f.Type().Id("replicationPart").Struct(jen.Id("P").Id("Params"))
		f.Func().Params(jen.Op("*").Id("replicationPart")).Id("start").Params(jen.String()).Id("copyKind").Block(jen.Return(jen.Id("copyNone")))
		f.Func().Params(jen.Op("*").Id("replicationPart")).Id("open").Params(jen.Id("copyKind")).Block()
		f.Func().Params(jen.Op("*").Id("replicationPart")).Id("next").Params(jen.Id("s").Op("*").Id("Step"), jen.Id("dir").Id("flowSide"), jen.Id("payload").Index().Byte()).Error().Block(jen.Return(jen.Nil()))
		f.Func().Params(jen.Op("*").Id("replicationPart")).Id("backend").Params(jen.Id("s").Op("*").Id("Step"), jen.Id("payload").Op("*").Index().Byte()).Error().Block(jen.Return(jen.Nil()))
		f.Func().Params(jen.Op("*").Id("replicationPart")).Id("release").Params(jen.Id("flowSide")).Block()
		f.Func().Params(jen.Id("r").Op("*").Id("replicationPart")).Id("reset").Params(jen.Id("p").Id("Params")).Block(jen.Id("r").Dot("P").Op("=").Id("p"))
		f.Func().Params(jen.Op("*").Id("replicationPart")).Id("logical").Params().Op("*").Id("logicalPart").Block(jen.Return(jen.Nil()))
	}
	if has("logical") {
		f.Comment("logicalPart follows pgoutput inside XLogData.")
		f.Type().Id("logicalPart").Op("=").Id("LogicalTracker")
	} else {
		// Every codec has a Step, whose LogicalParams asks it.
		f.Comment("logicalPart stands in for the pgoutput tracker the codec was generated without: WAL data stay opaque.")
		f.Type().Id("logicalPart").Struct(jen.Id("P").Id("Params"))
		if has("replication-backend", "replication-frontend") {
			f.Func().Params(jen.Op("*").Id("logicalPart")).Id("next").Params(jen.Id("src").Index().Byte()).Params(jen.Id("Message"), jen.Error()).Block(jen.Return(jen.Nil(), jen.Nil()))
			f.Func().Params(jen.Op("*").Id("logicalPart")).Id("release").Params().Block()
			f.Func().Params(jen.Id("l").Op("*").Id("logicalPart")).Id("reset").Params(jen.Id("p").Id("Params")).Block(jen.Id("l").Dot("P").Op("=").Id("p"))
		}
		f.Func().Params(jen.Id("l").Op("*").Id("logicalPart")).Id("decoded").Params().Id("Params").Block(jen.Return(jen.Id("l").Dot("P")))
	}
}
