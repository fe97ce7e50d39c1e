package server

import (
	"fmt"
	"maps"
	"slices"

	"github.com/pgspec/pgspec/codec"
)

// Tracker follows one client–server conversation as a proxy or pooler
// forwards it: fed every message the client sends (Frontend) and every
// message the server answers (Backend), in order, it knows how many
// ReadyForQuery are still owed, the transaction status, and which prepared
// statements the server holds — what a pooler must know before it hands
// the server connection to another client (Idle) and what it must replay
// on another server connection for this client (Prepared).
//
// Replies are matched to requests by order, as the protocol defines: an
// ErrorResponse in the extended protocol voids the requests up to the next
// Sync, which the server discards. A Tracker is not safe for concurrent
// use.
type Tracker struct {
	// TxStatus is the last ReadyForQuery's: 'I', 'T' or 'E'.
	TxStatus byte

	owed     []request               // sent and not yet answered, in order
	prepared map[string]*codec.Parse // completed Parse by statement name
}

// request is a client message whose answer the Tracker waits for.
type request struct {
	kind  byte // 'P' Parse, 'C' Close of a statement, 'c' Close of a portal, 'S' Sync, 'Q' Query or FunctionCall
	parse *codec.Parse
	name  string
}

// Frontend takes note of a message the client sent.
func (t *Tracker) Frontend(m codec.Message) {
	switch m := m.(type) {
	case *codec.Parse:
		t.owed = append(t.owed, request{kind: 'P', parse: m.Clone(), name: m.Name})
	case *codec.Close:
		kind := byte('c')
		if m.ObjectType == 'S' {
			kind = 'C'
		}
		t.owed = append(t.owed, request{kind: kind, name: m.Name})
	case *codec.Sync:
		t.owed = append(t.owed, request{kind: 'S'})
	case *codec.Query, *codec.FunctionCall:
		t.owed = append(t.owed, request{kind: 'Q'})
	}
}

// Backend takes note of a message the server sent; an answer the
// conversation cannot have (a ParseComplete for no Parse) is an error, and
// the Tracker no longer knows the state.
func (t *Tracker) Backend(m codec.Message) error {
	switch m := m.(type) {
	case *codec.ParseComplete:
		r, err := t.answer('P', m)
		if err != nil {
			return err
		}
		if t.prepared == nil {
			t.prepared = map[string]*codec.Parse{}
		}
		t.prepared[r.name] = r.parse
	case *codec.CloseComplete:
		r, err := t.answer('C', m)
		if err != nil {
			return err
		}
		if r.kind == 'C' {
			delete(t.prepared, r.name)
		}
	case *codec.ErrorResponse:
		// The failed request and every Parse and Close after it up to the
		// next Sync are discarded; a simple Query still ends in ReadyForQuery.
		for len(t.owed) > 0 && t.owed[0].kind != 'S' && t.owed[0].kind != 'Q' {
			t.owed = t.owed[1:]
		}
	case *codec.ReadyForQuery:
		if len(t.owed) == 0 || t.owed[0].kind != 'S' && t.owed[0].kind != 'Q' {
			return fmt.Errorf("server: a ReadyForQuery answers no Sync or Query (owed %s)", t.owedKinds())
		}
		t.owed = t.owed[1:]
		t.TxStatus = m.TxStatus
	case *codec.CommandComplete:
		if m.CommandTag == "DISCARD ALL" || m.CommandTag == "DEALLOCATE ALL" {
			clear(t.prepared)
		}
	}
	return nil
}

// answer pops the request that reply m answers: the first owed one, which
// must be of the kind (a Close of either kind for 'C').
func (t *Tracker) answer(kind byte, m codec.Message) (request, error) {
	if len(t.owed) == 0 || t.owed[0].kind != kind && !(kind == 'C' && t.owed[0].kind == 'c') {
		return request{}, fmt.Errorf("server: a %s answers nothing the client sent (owed %s)", m.Slug(), t.owedKinds())
	}
	r := t.owed[0]
	t.owed = t.owed[1:]
	return r, nil
}

func (t *Tracker) owedKinds() string {
	var b []byte
	for _, r := range t.owed {
		b = append(b, r.kind)
	}
	return fmt.Sprintf("%q", b)
}

// Pending is how many ReadyForQuery the server still owes: Syncs, Queries
// and FunctionCalls not yet answered.
func (t *Tracker) Pending() int {
	n := 0
	for _, r := range t.owed {
		if r.kind == 'S' || r.kind == 'Q' {
			n++
		}
	}
	return n
}

// Idle is whether the server connection may serve another client: every
// request answered, no transaction open, no message after the last Sync
// waiting for one.
func (t *Tracker) Idle() bool {
	return len(t.owed) == 0 && t.TxStatus == 'I'
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
