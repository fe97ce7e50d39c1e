package spec

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// FlowFile is the flow rules' file name in the spec directory.
const FlowFile = "flow.json"

// Flow is spec/flow.json: the protocol's conversation as state machines,
// one per direction of each layer. The manual describes the flow in prose
// (protocol-flow.html, protocol-replication.html,
// protocol-logical-replication.html, sasl-authentication.html); every rule
// names the page section it comes from and quotes or explains it in its
// reason, reviewed by hand like the overlay.
type Flow struct {
	Schema   string         `json:"$schema,omitempty"`
	Machines []*FlowMachine `json:"machines"`
	// Rulesets are rules several states share (the asynchronous messages,
	// an extended-query error), included by name.
	Rulesets []*FlowRuleset `json:"rulesets"`
}

// FlowMachine is what one side sends in one layer.
type FlowMachine struct {
	Name string `json:"name"`
	// Layer is the spec layer of the messages the machine follows.
	Layer string `json:"layer"`
	// Direction is who sends: "F" or "B".
	Direction string `json:"direction"`
	Doc       string `json:"doc"`
	// States; the first is where a conversation starts.
	States []*FlowState `json:"states"`
}

// FlowState is one point of a conversation and the messages allowed there.
type FlowState struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
	// Source is the page and anchor the state's rules come from, unless a
	// rule names its own.
	Source string `json:"source,omitempty"`
	// Streamed: pgoutput messages in this state carry the xid.
	Streamed bool `json:"streamed,omitempty"`
	// List is the key of the message list of protocol-flow.html the
	// state's phase follows ("protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1"):
	// a rule of the state holds in the majors whose list names its
	// message, unless it is Unlisted.
	List  string      `json:"list,omitempty"`
	Rules []*FlowRule `json:"rules"`
}

// FlowRuleset is a named list of rules.
type FlowRuleset struct {
	Name  string      `json:"name"`
	Rules []*FlowRule `json:"rules"`
}

// FlowRule allows one message in a state and says what it changes.
type FlowRule struct {
	// Include stands for the rules of the named ruleset; nothing else may
	// be set beside it.
	Include string `json:"include,omitempty"`
	// Message is the slug of the message allowed.
	Message string `json:"message,omitempty"`
	// Event, instead of a message, is something the side does that is no
	// message: "direct-tls" (EventDirectTLS).
	Event string `json:"event,omitempty"`
	// Answer narrows the rule to one value of a one-byte answer
	// (SSLResponse's 'S' or 'N', GSSEncResponse's 'G' or 'N'): the state
	// it leads to depends on the byte.
	Answer string `json:"answer,omitempty"`
	// Next is the machine's state after the message; "" stays.
	Next string `json:"next,omitempty"`
	// Peer is the state the other side of the same layer goes to.
	Peer string `json:"peer,omitempty"`
	// Push (a frontend request) queues the backend state its answer
	// starts in; End (a backend answer) completes the oldest request;
	// Discard (an extended-query error) drops the requests queued before
	// the next Sync, as the server does.
	Push    string `json:"push,omitempty"`
	End     bool   `json:"end,omitempty"`
	Discard bool   `json:"discard,omitempty"`
	// Streamed opens, closes or aborts a streamed pgoutput transaction by
	// its xid: "open", "close", "abort".
	Streamed string `json:"streamed,omitempty"`
	// Requires names a check on what came before: "relation" (the
	// relations a change names were described), "types" (the non-built-in
	// column types of a Relation were), "no-change-yet" (no change of the
	// transaction came before), "negotiation" and "negotiated" (see
	// RequiresNegotiation).
	Requires string `json:"requires,omitempty"`
	// Unlisted: the state's page list does not name the message, and the
	// rule holds all the same, for what its reason says the prose leaves
	// open (the asynchronous messages, copy-both, a server's habit).
	Unlisted bool `json:"unlisted,omitempty"`
	// Majors narrows the rule to some majors: "17-", "10-16".
	Majors string `json:"majors,omitempty"`
	Reason string `json:"reason,omitempty"`
	Source string `json:"source,omitempty"`
}

// Flow values of FlowRule.Streamed and FlowRule.Requires.
const (
	StreamOpen  = "open"
	StreamClose = "close"
	StreamAbort = "abort"

	RequiresRelation    = "relation"
	RequiresTypes       = "types"
	RequiresNoChangeYet = "no-change-yet"
	// RequiresNegotiation: a NegotiateProtocolVersion answers what the
	// StartupMessage asked for (a newer minor, _pq_. options), once;
	// RequiresNegotiated: start-up ends only after it did, when it had to.
	RequiresNegotiation = "negotiation"
	RequiresNegotiated  = "negotiated"

	// EventDirectTLS: the frontend's first bytes are a TLS handshake, no
	// SSLRequest before it; it holds in the majors whose protocol-flow.html
	// says the server recognises that (Spec.DirectTLS).
	EventDirectTLS = "direct-tls"
)

// LoadFlow reads and checks the flow rules in fsys. What needs the model
// (a slug that names no message) is checked when the model is built.
func LoadFlow(fsys fs.FS) (*Flow, error) {
	data, err := fs.ReadFile(fsys, FlowFile)
	if err != nil {
		return nil, err
	}
	return ParseFlow(data)
}

// ParseFlow decodes flow JSON, rejecting unknown keys, and checks that the
// states, rulesets and peers it names exist and that every rule has its
// reason and one effect of each kind at most, reporting all problems at once.
func ParseFlow(data []byte) (*Flow, error) {
	var f Flow
	if err := decodeStrict(data, FlowFile, &f); err != nil {
		return nil, err
	}
	var p []string
	addf := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	sets := map[string]*FlowRuleset{}
	for _, rs := range f.Rulesets {
		if sets[rs.Name] != nil {
			addf("ruleset %q: defined twice", rs.Name)
		}
		sets[rs.Name] = rs
	}
	machines := map[string]*FlowMachine{}
	for _, m := range f.Machines {
		if machines[m.Name] != nil {
			addf("machine %q: defined twice", m.Name)
		}
		machines[m.Name] = m
		if !contains(Layers, m.Layer) {
			addf("machine %q: unknown layer %q", m.Name, m.Layer)
		}
		if m.Direction != "F" && m.Direction != "B" {
			addf("machine %q: direction %q, want F or B", m.Name, m.Direction)
		}
		if len(m.States) == 0 {
			addf("machine %q: no states", m.Name)
		}
	}
	for _, m := range f.Machines {
		peer := f.Peer(m)
		seen := map[string]bool{}
		for _, st := range m.States {
			where := m.Name + " " + st.Name
			if seen[st.Name] {
				addf("%s: state defined twice", where)
			}
			seen[st.Name] = true
			if st.Doc == "" {
				addf("%s: no doc", where)
			}
			if st.List != "" && !flowListRE.MatchString(st.List) {
				addf("%s: list %q, want page.html#SECTION/n", where, st.List)
			}
			msgs := map[string]bool{}
			for _, r := range f.Rules(st) {
				key := r.What()
				if msgs[key] {
					addf("%s: %s allowed twice", where, key)
				}
				msgs[key] = true
			}
			for _, r := range f.Rules(st) {
				if r.Answer != "" && msgs[r.Message] {
					addf("%s: %s has a rule for any answer beside one for answer %q", where, r.Message, r.Answer)
				}
			}
			for _, r := range st.Rules {
				if r.Include != "" {
					if sets[r.Include] == nil {
						addf("%s: includes unknown ruleset %q", where, r.Include)
					}
					if *r != (FlowRule{Include: r.Include}) {
						addf("%s: include %q has other keys beside it", where, r.Include)
					}
				}
			}
			for _, r := range f.Rules(st) {
				r.check(addf, where+" "+r.What(), m, peer, f.State)
			}
		}
	}
	if len(p) > 0 {
		return nil, fmt.Errorf("%s: %d problem(s):\n  %s", FlowFile, len(p), strings.Join(p, "\n  "))
	}
	return &f, nil
}

// flowListRE is a FlowState.List: a FlowList.Key.
var flowListRE = regexp.MustCompile(`^[a-z-]+\.html#[A-Z0-9-]+/[1-9][0-9]*$`)

// What names the rule's message, and its answer when it has one:
// "ssl-response 'N'".
func (r *FlowRule) What() string {
	if r.Event != "" {
		return r.Event
	}
	if r.Answer != "" {
		return r.Message + " '" + r.Answer + "'"
	}
	return r.Message
}

func (r *FlowRule) check(addf func(string, ...any), where string, m, peer *FlowMachine, state func(*FlowMachine, string) *FlowState) {
	switch {
	case r.Message == "" && r.Event == "":
		addf("%s: no message", where)
	case r.Message != "" && r.Event != "":
		addf("%s: a message and an event: one or the other", where)
	case r.Event != "" && r.Event != EventDirectTLS:
		addf("%s: event %q, want %s", where, r.Event, EventDirectTLS)
	case r.Event != "" && r.Answer != "":
		addf("%s: an event has no answer", where)
	}
	if r.Answer != "" && len(r.Answer) != 1 {
		addf("%s: answer %q is not one byte", where, r.Answer)
	}
	if r.Reason == "" {
		addf("%s: no reason", where)
	}
	if r.Next != "" && state(m, r.Next) == nil {
		addf("%s: next state %q is not a state of %s", where, r.Next, m.Name)
	}
	if r.Peer != "" && (peer == nil || state(peer, r.Peer) == nil) {
		addf("%s: peer state %q is not a state of the other side", where, r.Peer)
	}
	if r.Push != "" && (m.Direction != "F" || peer == nil || state(peer, r.Push) == nil) {
		addf("%s: push %q: only a frontend rule pushes, a state of the backend", where, r.Push)
	}
	if (r.End || r.Discard) && (m.Direction != "B" || peer == nil) {
		addf("%s: end and discard complete frontend requests: backend rules only", where)
	}
	if r.End && (r.Discard || r.Next != "") || r.Discard && r.Next != "" {
		addf("%s: end, discard and next each say where the backend goes: one at most", where)
	}
	switch r.Streamed {
	case "", StreamOpen, StreamClose, StreamAbort:
	default:
		addf("%s: streamed %q, want open, close or abort", where, r.Streamed)
	}
	switch r.Requires {
	case "", RequiresRelation, RequiresTypes, RequiresNoChangeYet, RequiresNegotiation, RequiresNegotiated:
	default:
		addf("%s: requires %q, want relation, types, no-change-yet, negotiation or negotiated", where, r.Requires)
	}
	if r.Majors != "" {
		if _, _, err := parseMajorRange(r.Majors); err != nil {
			addf("%s: majors: %v", where, err)
		}
	}
}

// Peer is the machine on the other side of m's layer, nil if none.
func (f *Flow) Peer(m *FlowMachine) *FlowMachine {
	for _, o := range f.Machines {
		if o.Layer == m.Layer && o.Direction != m.Direction {
			return o
		}
	}
	return nil
}

// State is m's state of that name, nil if none.
func (f *Flow) State(m *FlowMachine, name string) *FlowState {
	for _, st := range m.States {
		if st.Name == name {
			return st
		}
	}
	return nil
}

// Rules are st's rules with the rulesets it includes spelled out, each
// rule's source defaulting to the state's.
func (f *Flow) Rules(st *FlowState) []*FlowRule {
	var out []*FlowRule
	for _, r := range st.Rules {
		if r.Include == "" {
			out = append(out, r.withSource(st.Source))
			continue
		}
		for _, rs := range f.Rulesets {
			if rs.Name == r.Include {
				for _, ir := range rs.Rules {
					out = append(out, ir.withSource(st.Source))
				}
			}
		}
	}
	return out
}

func (r *FlowRule) withSource(src string) *FlowRule {
	if r.Source != "" {
		return r
	}
	c := *r
	c.Source = src
	return &c
}

// MajorRange is the rule's majors, every major when it names none (the
// range was checked when the flow was parsed).
func (r *FlowRule) MajorRange() (lo, hi int) {
	lo, hi, _ = parseMajorRange(r.Majors)
	return lo, hi
}
