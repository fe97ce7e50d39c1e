//go:build ignore

package codec

//pgspec:machines any

import (
	"errors"
	"strconv"
	"strings"
)

// ErrFlow is the cause of every FlowError: test for it with errors.Is.
var ErrFlow = errors.New("protocol flow violation")

// FlowError is a message the protocol's flow (spec/flow.json) does not allow
// where it came. The message was decoded all the same: the tracker's Step
// holds it, and the conversation goes on from the state it was in.
type FlowError struct {
	// State is where the conversation was: "backend query-rows".
	State string
	// Got is the slug of the message that came ("data-row").
	Got string
	// Expected lists the slugs the state allows, in kind order; empty when
	// the state allows nothing (the side must wait for the other).
	Expected []string
	// Offset is the message's byte offset in its direction's stream (for
	// a message inside CopyData, the CopyData's); Index counts the
	// messages before it in the tracker that found it.
	Offset int64
	Index  int64
	// Detail, when set, says what the message needed that had not come
	// ("relation 16390 has no Relation message before it").
	Detail string
}

func (e *FlowError) Error() string {
	s := "codec: " + e.State + " at byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Got
	switch {
	case e.Detail != "":
		return s + ": " + e.Detail
	case len(e.Expected) == 0:
		return s + " where the side sends nothing"
	}
	return s + " where the flow allows " + strings.Join(e.Expected, ", ")
}

// Unwrap makes errors.Is(err, ErrFlow) hold.
func (e *FlowError) Unwrap() error { return ErrFlow }

// flowState numbers a state of spec/flow.json; flowKind a message the flow
// tells apart (the constants are generated).
type (
	flowState uint8
	flowKind  uint8
)

// flowSide is who sent a message.
type flowSide uint8

const (
	sideFrontend flowSide = iota
	sideBackend
)

// flowRule is one rule of spec/flow.json: what taking its message does,
// and what else it says.
type flowRule struct {
	act      flowAct
	streamed uint8
	requires uint8
	// answer narrows the rule to a one-byte answer's value ('S'); alt is
	// the rule (+1) for another value of the same answer.
	answer, alt uint8
	majors      MajorSet
}

// flowAct is what taking a rule's message does, in one word, so that a
// tracker follows most messages on one table load: bits 0-7 are the state
// its side is in after it (the one it was in, unless actMoves), 8-15 the
// other side's (+1; 0: as it was), 16-23 the backend state the request it
// queues starts in (+1; 0: none), and the flags above.
type flowAct uint32

// The shifts of flowAct's other side and queued request.
const (
	actPeer = 8
	actPush = 16
)

// The flags of a flowAct.
const (
	// actAllowed: the state allows the message (in some major).
	actAllowed flowAct = 1 << (24 + iota)
	// actMoves: the rule names the side's next state.
	actMoves
	// actEnd: the backend answered the request in full and waits for the
	// next; actDiscard: it failed, and the requests until Sync are dropped.
	actEnd
	actDiscard
	// actStays: the rule changes nothing and requires nothing but, for a
	// change, its relation, in every major the message decodes in: the
	// trackers' fast paths take such a message on this bit.
	actStays
	// actRule: taking the message needs its rule (flowLookup): it holds in
	// fewer majors than the message has, tells an answer's values apart,
	// requires something or opens or closes a stream.
	actRule
	// actFast: the act alone takes the message (actAllowed, not
	// actRule): the generated Next's cases test this bit.
	actFast
	// actNegotiated: the message ends a start-up, whose negotiation must
	// have answered what the StartupMessage asked (unnegotiated checks).
	actNegotiated
)

// The values of flowRule.streamed and flowRule.requires.
const (
	streamOpen = 1 + iota
	streamClose
	streamAbort
)

const (
	requiresRelation = 1 + iota
	requiresTypes
	requiresNoChangeYet
	requiresNegotiation
	requiresNegotiated
)

// actIn is the act of kind k's rule in st (flowActs, which is indexed by
// kind first; a state and a kind are distinct types here, not there).
func actIn(st flowState, k flowKind) flowAct { return flowActs[k][st] }

// flowLookup is the rule allowing kind in st under major, nil if none.
func flowLookup(st flowState, k flowKind, major int) *flowRule {
	i := flowTable[st][k]
	if i == 0 {
		return nil
	}
	r := &flowRules[i-1]
	if !r.majors.Has(major) {
		return nil
	}
	return r
}

// lookAct is the act of the rule of kind k in st that holds in major and
// takes the answer b (a one-byte answer's value), and the rule; 0 and nil
// when none does.
func lookAct(st flowState, k flowKind, major int, b byte) (flowAct, *flowRule) {
	r := flowLookup(st, k, major).forAnswer(b)
	if r == nil {
		return 0, nil
	}
	return r.act, r
}

// forAnswer is the rule of r's chain that takes the answer b, nil if none.
func (r *flowRule) forAnswer(b byte) *flowRule {
	for r != nil && r.answer != 0 && r.answer != b {
		if r.alt == 0 {
			return nil
		}
		r = &flowRules[r.alt-1]
	}
	return r
}

// flowViolation is the FlowError for kind arriving in st.
func flowViolation(st flowState, k flowKind, major int, off, index int64) *FlowError {
	e := &FlowError{State: flowStateNames[st], Got: flowKindNames[k], Offset: off, Index: index}
	if k == kindNone {
		e.Got = "a message the codec does not know"
	}
	for k2 := flowKind(1); k2 < flowKinds; k2++ {
		if flowLookup(st, k2, major) != nil {
			e.Expected = append(e.Expected, flowKindNames[k2])
		}
	}
	return e
}

// Step is one message a tracker took: the message, the layout it was
// decoded with, and the messages inside it. It is valid until the
// tracker's next message.
type Step struct {
	// Msg is the message fed (nil when even its type is unknown).
	Msg Message
	// Sub is the streaming replication message inside a CopyData of a
	// replication stream (XLogData, PrimaryKeepalive, BackupData …), else nil.
	Sub Message
	// Logical is the pgoutput message inside an XLogData of a logical
	// stream, decoded with LogicalParams, else nil.
	Logical Message

	// Params gives cur, the conversation's P, unless kept: then p, the
	// ones Msg was decoded with, which the conversation's no longer are
	// (a message changed them since, or Msg needed others). Kept only on
	// a change, not copied for every message.
	cur  *Params
	p    Params
	kept bool
	// lt is the conversation's pgoutput tracker, which knows what its
	// last message was decoded with: LogicalParams asks it rather than
	// the Step copying its Params for every message.
	lt *logicalPart
}

// Params is what Msg and Sub were decoded with: the conversation's P as
// it was when the tracker took them. (A caller that sets the
// conversation's P itself between messages sets what the next message
// decodes with; the Step of the last one then reads the new P.)
func (s *Step) Params() Params {
	if s.kept || s.cur == nil {
		return s.p
	}
	return *s.cur
}

// LogicalParams is what Logical was decoded with (or, when it failed to
// decode, was to be): the logical tracker's P as it was when it took that
// message, Streamed in step with the stream. Like Params, it reads the
// tracker's P of now if the caller set it since.
func (s *Step) LogicalParams() Params {
	if s.lt == nil {
		return Params{}
	}
	return s.lt.decoded()
}

// keep holds p as the Step's Params, if it holds none of its own yet.
func (s *Step) keep(p Params) {
	if !s.kept {
		s.p, s.kept = p, true
	}
}

// clearInner empties Sub and Logical (the test costs less than the
// pointer writes). Logical is set only with Sub: one test does.
func (s *Step) clearInner() {
	if s.Sub != nil {
		s.Sub, s.Logical = nil, nil
	}
}

// clearLogical empties Logical for a Sub that holds no pgoutput, only when
// set: a steady stream writes nothing.
func (s *Step) clearLogical() {
	if s.Logical != nil {
		s.Logical = nil
	}
}

// copyKind is what the CopyData of a copy stream carry.
type copyKind uint8

const (
	copyNone     copyKind = iota // COPY data: bytes only the query knows
	copyPhysical                 // START_REPLICATION … PHYSICAL: WAL data
	copyLogical                  // START_REPLICATION SLOT … LOGICAL: pgoutput in each XLogData
	copyBackup                   // BASE_BACKUP (15 on): archives, manifest and progress
)
