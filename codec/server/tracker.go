package server

import (
	"maps"
	"slices"

	"github.com/pgspec/pgspec/codec"
)

// Tracker follows one client–server conversation as a proxy or pooler
// forwards it: fed every frame the client sends (Frontend) and every frame
// the server answers (Backend), in order, it knows what the server still
// owes, the transaction status, and which prepared statements the server
// holds — what a pooler must know before it hands the server connection
// to another client (Idle) and what it must replay on another server
// connection for this client (Prepared).
//
// Which answer completes which request, and which requests an
// extended-query error voids until the next Sync, is the codec's
// Conversation (the manual's flow, spec/flow.json); the Tracker keeps only
// what a pooler needs on top of it. It is not safe for concurrent use.
type Tracker struct {
	// TxStatus is the last ReadyForQuery's: 'I', 'T' or 'E'.
	TxStatus byte

	conv     *codec.Conversation
	stmts    []stmtRequest           // Parse and Close of a statement taken and not yet answered, in order
	prepared map[string]*codec.Parse // completed Parse by statement name
}

// stmtRequest is a Parse (parse set) or a Close of a statement, tagged
// with the conversation's request count once it was taken.
type stmtRequest struct {
	seq   uint64
	parse *codec.Parse
	name  string
}

// NewTracker follows a session from where its start-up ended (the server
// idle after its first ReadyForQuery), with the layout p.
func NewTracker(p codec.Params) *Tracker {
	conv := codec.NewConversation(p)
	conv.FixMajor = p.Major != 0
	conv.Resume()
	return &Tracker{TxStatus: 'I', conv: conv}
}

// Frontend takes a frame the client sent. A *codec.FlowError (a message
// the protocol has no place for here) comes with the decoded message; the
// Tracker takes it all the same.
func (t *Tracker) Frontend(frame []byte) (*codec.Step, error) {
	before, _ := t.conv.Requests()
	s, err := t.conv.Frontend.Next(frame)
	taken, _ := t.conv.Requests()
	if taken == before { // no request, or one an earlier error voids
		return s, err
	}
	switch m := s.Msg.(type) {
	case *codec.Parse:
		t.stmts = append(t.stmts, stmtRequest{seq: taken, parse: m.Clone(), name: m.Name})
	case *codec.Close:
		if m.ObjectType == 'S' {
			t.stmts = append(t.stmts, stmtRequest{seq: taken, name: m.Name})
		}
	}
	return s, err
}

// Backend takes a frame the server sent. An answer the conversation
// cannot have (a ParseComplete for no Parse) is a *codec.FlowError, after
// which the Tracker no longer knows the state.
func (t *Tracker) Backend(frame []byte) (*codec.Step, error) {
	s, err := t.conv.Backend.Next(frame)
	if err != nil {
		return s, err
	}
	_, done := t.conv.Requests()
	switch m := s.Msg.(type) {
	case *codec.ParseComplete, *codec.CloseComplete:
		if len(t.stmts) > 0 && t.stmts[0].seq == done {
			r := t.stmts[0]
			if r.parse == nil {
				delete(t.prepared, r.name)
			} else {
				if t.prepared == nil {
					t.prepared = map[string]*codec.Parse{}
				}
				t.prepared[r.name] = r.parse
			}
		}
	case *codec.ReadyForQuery:
		t.TxStatus = m.TxStatus
	case *codec.CommandComplete:
		if m.CommandTag == "DISCARD ALL" || m.CommandTag == "DEALLOCATE ALL" {
			clear(t.prepared)
		}
	}
	// Those answered now, and those an error voided.
	for len(t.stmts) > 0 && t.stmts[0].seq <= done {
		t.stmts = t.stmts[1:]
	}
	return s, nil
}

// Pending is how many of the client's requests the server has not
// answered yet.
func (t *Tracker) Pending() int {
	taken, done := t.conv.Requests()
	return int(taken - done)
}

// Idle is whether the server connection may serve another client: every
// request answered, none voided until a Sync still to come, no
// transaction open.
func (t *Tracker) Idle() bool {
	return t.conv.Idle() && t.TxStatus == 'I'
}

// Prepared is the Parse of every named statement the server holds, by
// name: what to send (with a Sync) to another server connection before it
// serves this client. The unnamed statement lasts only until the next
// Parse and is left out.
func (t *Tracker) Prepared() []*codec.Parse {
	var out []*codec.Parse
	for _, name := range slices.Sorted(maps.Keys(t.prepared)) {
		if name != "" {
			out = append(out, t.prepared[name])
		}
	}
	return out
}
