package codec

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// conversationIn is a conversation whose side is in state st, the other
// side in the state a session has between requests, under p, the Steps
// holding messages inside their last; with waiting
// 1, a Sync waits behind the request the backend answers now (nil when st
// is the idle backend, which has none waiting), with 2 the requests until
// one are voided.
func conversationIn(st flowState, p Params, backend bool, waiting int) *Conversation {
	c := NewConversation(p)
	c.fe, c.be = stFrontendSession, stBackendIdle
	// What the last messages held inside, which the next must not show.
	c.Frontend.step.Sub = &StandbyStatusUpdate{}
	c.Backend.step.Sub, c.Backend.step.Logical = &XLogData{}, &LogicalInsert{}
	switch waiting {
	case 1:
		c.be, c.queue, c.taken = stBackendParse, append(c.queue, stBackendSync), 2
	case 2:
		c.discarding, c.taken, c.done = true, 1, 1
	}
	if !backend {
		c.fe = st
	} else if c.be = st; st == stBackendIdle && waiting == 1 {
		return nil
	}
	return c
}

// taken is all a tracker's taking a frame shows: the Step, the error and
// the conversation's state after it.
func taken(c *Conversation, t *tracker, s *Step, err error) string {
	msg, sub := "nil", "nil"
	if s.Msg != nil {
		msg = s.Msg.Slug()
	}
	if s.Sub != nil {
		sub = s.Sub.Slug()
	}
	e := "nil"
	if fe, ok := err.(*FlowError); ok {
		e = fmt.Sprintf("%+v", *fe)
	} else if err != nil {
		e = err.Error()
	}
	return fmt.Sprintf("msg %s sub %s params %+v err %s; fe %s be %s queue %v head %d discarding %v taken %d done %d pending %d feCopy %v P %+v offset %d index %d",
		msg, sub, s.Params(), e, flowStateNames[c.fe], flowStateNames[c.be], c.queue, c.head, c.discarding, c.taken, c.done, c.pending, c.feCopy, c.P, t.Offset, t.Index)
}

// TestNextFastPathIsGeneralPath: each side's Next takes every message in
// every state of its machine as the general path alone (next) does: the
// same Step, the same error (a FlowError with the same state, Expected
// list, offset and index), the same states, queue and Params after it.
// The fast path decodes only what the state allows on its act; this holds
// it to the rules for everything else too, and checks that the messages of
// a session were among those taken.
func TestNextFastPathIsGeneralPath(t *testing.T) {
	took := map[string]bool{} // the messages taken without a violation somewhere
	for _, major := range []int{13, 16, 18} {
		for _, minor := range []int{0, 2} {
			p := Params{Major: major, ProtocolMinor: minor}
			var frames [][]byte
			key := make([]byte, 4) // a 3.0 key
			extra := []Message{&BackendKeyData{ProcessID: 1, SecretKey: key}, &CancelRequest{ProcessID: 1, SecretKey: key}}
			for _, m := range append(NewMessages(), extra...) {
				if !m.Majors().Has(major) {
					continue
				}
				if b, err := m.Encode(nil, p); err == nil {
					frames = append(frames, b)
				}
			}
			// A 3.2 key on a session of either protocol (3.0: a violation, or
			// a CancelRequest, which says its protocol by its length).
			long := make([]byte, 32)
			for _, m := range []Message{&BackendKeyData{ProcessID: 1, SecretKey: long}, &CancelRequest{ProcessID: 1, SecretKey: long}} {
				if b, err := m.Encode(nil, Params{Major: major, ProtocolMinor: 2}); err == nil {
					frames = append(frames, b)
				}
			}
			for st := range flowState(len(flowStateNames)) {
				name := flowStateNames[st]
				backend := strings.HasPrefix(name, "backend ")
				if !backend && !strings.HasPrefix(name, "frontend ") {
					continue
				}
				for i := range 3 * len(frames) {
					frame := frames[i/3]
					c1, c2 := conversationIn(st, p, backend, i%3), conversationIn(st, p, backend, i%3)
					if c1 == nil {
						continue
					}
					var got, want string
					if backend {
						s1, err1 := c1.Backend.Next(frame)
						s2, err2 := c2.Backend.next(frame)
						got, want = taken(c1, &c1.Backend.tracker, s1, err1), taken(c2, &c2.Backend.tracker, s2, err2)
						if err1 == nil && s1.Msg != nil {
							took[s1.Msg.Slug()] = true
						}
					} else {
						s1, err1 := c1.Frontend.Next(frame)
						s2, err2 := c2.Frontend.next(frame)
						got, want = taken(c1, &c1.Frontend.tracker, s1, err1), taken(c2, &c2.Frontend.tracker, s2, err2)
						if err1 == nil && s1.Msg != nil {
							took[s1.Msg.Slug()] = true
						}
					}
					if got != want {
						t.Errorf("%+v, %s (%d), % x:\n Next %s\n next %s", p, name, i%3, frame[:min(len(frame), 9)], got, want)
					}
				}
			}
		}
	}
	for _, slug := range []string{"row-description", "data-row", "command-complete", "ready-for-query", "parse-complete",
		"bind-complete", "parameter-status", "authentication-ok", "backend-key-data", "query", "parse", "bind",
		"describe", "execute", "sync", "startup-message", "cancel-request", "password-message", "copy-data"} {
		if !took[slug] {
			t.Errorf("%s was taken in no state", slug)
		}
	}
}

// TestStepParamsKeptOnChange: a message that changes the conversation's
// Params was decoded with the old, and so were the other side's last: their
// Steps keep the old; the next message of each side reads the new.
func TestStepParamsKeptOnChange(t *testing.T) {
	c := NewConversation(Params{})
	enc := func(m Message) []byte {
		b, err := m.Encode(nil, Params{Major: 17})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	step := func(s *Step, err error) *Step {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	fs := step(c.Frontend.Next(enc(&StartupMessage{ProtocolVersion: 3<<16 | 2, Parameters: []StartupParameter{{Name: "user", Value: "u"}}})))
	if got := fs.Params(); got != (Params{}) || c.P.ProtocolMinor != 2 {
		t.Errorf("StartupMessage decoded with %+v, the conversation now %+v", got, c.P)
	}
	bs := step(c.Backend.Next(enc(&AuthenticationOk{})))
	if got := bs.Params(); got.ProtocolMinor != 2 || got.Major != 0 {
		t.Errorf("AuthenticationOk decoded with %+v", got)
	}
	bs = step(c.Backend.Next(enc(&ParameterStatus{Name: "server_version", Value: "17.2"})))
	if got := bs.Params(); got.Major != 0 || c.P.Major != 17 {
		t.Errorf("server_version decoded with %+v, the conversation now %+v", got, c.P)
	}
	if got := fs.Params(); got != (Params{}) {
		t.Errorf("the StartupMessage's Step reads %+v after server_version", got)
	}
	bs = step(c.Backend.Next(enc(&BackendKeyData{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}})))
	if got := bs.Params(); got != (Params{Major: 17, ProtocolMinor: 2}) {
		t.Errorf("BackendKeyData decoded with %+v", got)
	}
	if got := fs.Params(); got != (Params{}) {
		t.Errorf("the StartupMessage's Step reads %+v after BackendKeyData", got)
	}
	// A message decoded with other Params than the conversation's: a 3.2
	// key on a 3.0 session.
	c = NewConversation(Params{Major: 18})
	c.Resume()
	key, err := (&BackendKeyData{ProcessID: 1, SecretKey: slices.Repeat([]byte{7}, 32)}).Encode(nil, Params{Major: 18, ProtocolMinor: 2})
	if err != nil {
		t.Fatal(err)
	}
	bs, err = c.Backend.Next(key)
	if err == nil || bs.Params().ProtocolMinor != 2 || c.P.ProtocolMinor != 0 {
		t.Errorf("a 3.2 key on a 3.0 session: %v, decoded with %+v, the conversation %+v", err, bs.Params(), c.P)
	}
	bs = step(c.Backend.Next(enc(&ParameterStatus{Name: "a", Value: "b"})))
	if got := bs.Params(); got != (Params{Major: 18}) {
		t.Errorf("the next message decoded with %+v", got)
	}
}

// TestFailedFrameIsCounted: a frame that does not decode still holds its
// bytes of the side's stream: the offsets of what follows count them.
func TestFailedFrameIsCounted(t *testing.T) {
	c := NewConversation(Params{Major: 17})
	c.Resume()
	bad := []byte{'Z', 0, 0, 0, 4} // a ReadyForQuery without its status
	if _, err := c.Backend.Next(bad); err == nil {
		t.Fatal("a ReadyForQuery without its status decoded")
	}
	if _, err := c.Frontend.Next([]byte{'Q', 0, 0, 0, 4}); err == nil {
		t.Fatal("a Query without its string decoded")
	}
	if c.Backend.Offset != 5 || c.Backend.Index != 1 || c.Frontend.Offset != 5 || c.Frontend.Index != 1 {
		t.Errorf("after a frame that failed: backend at %d (%d), frontend at %d (%d)", c.Backend.Offset, c.Backend.Index, c.Frontend.Offset, c.Frontend.Index)
	}
}
