package trace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// recorded is one frame of a captured connection and what the conversation
// decoded it with, for decoding it again without one.
type recorded struct {
	dir      Direction
	frame    []byte
	p        codec.Params
	auth     codec.AuthState // of a 'p'
	startup  bool            // an untagged startup packet
	sub      bool            // a CopyData whose payload is a replication message
	logical  bool            // an XLogData whose WAL data is pgoutput
	logicalP codec.Params
}

// authOf is the Frontend.Auth that decodes a 'p' message of slug.
var authOf = map[string]codec.AuthState{"password-message": codec.AuthPassword, "sasl-initial-response": codec.AuthSASLInitial,
	"sasl-response": codec.AuthSASL, "gss-response": codec.AuthGSS}

// capturedConn is one connection of a capture.
type capturedConn struct {
	file   string
	major  int // the capture's server (pgNN-…)
	frames []recorded
}

// capturedConversations reads the connections of every committed capture
// whose name matches glob (pg*.gz: all), frame by frame in capture order,
// and what a Conversation decoded each with.
func capturedConversations(tb testing.TB, glob string) []capturedConn {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "captures", glob))
	if err != nil || len(files) == 0 {
		tb.Fatalf("captures: %v %v", files, err)
	}
	var convs []capturedConn
	for _, f := range files {
		var major int
		fmt.Sscanf(filepath.Base(f), "pg%d-", &major)
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		byConn := map[int64][]recorded{}
		var order []int64
		opts := CaptureOptions{onFrame: func(id int64, d Direction, frame []byte) {
			if byConn[id] == nil {
				order = append(order, id)
			}
			byConn[id] = append(byConn[id], recorded{dir: d, frame: bytes.Clone(frame)})
		}}
		if _, err := DecodeCapture(bytes.NewReader(data), opts); err != nil {
			tb.Fatal(err)
		}
		for _, id := range order {
			conv := byConn[id]
			c := codec.NewConversation(codec.Params{})
			for i := range conv {
				r := &conv[i]
				next := c.Backend.Next
				if r.dir == Frontend {
					r.startup = c.Frontend.Untagged()
					next = c.Frontend.Next
				}
				s, err := next(r.frame)
				if err != nil {
					tb.Fatalf("%s connection %d frame %d: %v", filepath.Base(f), id, i, err)
				}
				r.p, r.sub, r.logical, r.logicalP = s.P, s.Sub != nil, s.Logical != nil, s.LogicalP
				if s.Msg != nil {
					r.auth = authOf[s.Msg.Slug()]
				}
			}
			convs = append(convs, capturedConn{filepath.Base(f), major, conv})
		}
	}
	return convs
}

// TestCapturesThroughTheTrackers: every frame of every committed capture
// is taken by a Conversation without a violation (capturedConversations
// fails on any), and the Params it reached are the ones the capture's
// server speaks: its major, the protocol it negotiated, and for logical
// streams the proto_version of its START_REPLICATION.
func TestCapturesThroughTheTrackers(t *testing.T) {
	logical, sessions := 0, 0
	for i, c := range capturedConversations(t, "pg*.gz") {
		last := c.frames[len(c.frames)-1].p
		if last.Major != 0 { // a CancelRequest's connection hears no server_version
			sessions++
			if last.Major != c.major || last.ProtocolMinor == 2 && c.major < 18 {
				t.Errorf("%s connection %d: ended with %+v", c.file, i, last)
			}
		}
		for _, r := range c.frames {
			if r.logical {
				logical++
				if r.logicalP.LogicalVersion < 1 || r.logicalP.LogicalVersion > 4 || r.logicalP.Major != r.p.Major {
					t.Errorf("%s connection %d: pgoutput decoded with %+v under %+v", c.file, i, r.logicalP, r.p)
				}
			}
		}
	}
	if logical == 0 || sessions < 20 {
		t.Errorf("%d sessions, %d pgoutput messages in the captures", sessions, logical)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ns/op, the CPU time the process spent per iteration:
// on a machine shared with other work, wall time mostly measures waiting
// for a core, CPU time what the code costs.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkTracker decodes every committed capture's connections, both
// directions in capture order: impl=bare with dispatchers given the Params
// (what a caller that kept them by hand does), impl=tracker through a
// Conversation that finds them and checks the flow.
func BenchmarkTracker(b *testing.B) {
	convs := capturedConversations(b, "pg*.gz")
	n := 0
	for _, c := range convs {
		for _, r := range c.frames {
			n += len(r.frame)
		}
	}
	// Each connection has its decoders, as in a proxy, for both impls.
	type decoders struct {
		st codec.Startup
		fe codec.Frontend
		be codec.Backend
		rb codec.ReplicationBackend
		rf codec.ReplicationFrontend
		lg codec.Logical
	}
	b.Run("impl=bare", func(b *testing.B) {
		ds := make([]decoders, len(convs))
		b.SetBytes(int64(n))
		b.ReportAllocs()
		start := cpuTime()
		defer reportCPU(b, start)
		for b.Loop() {
			for j, c := range convs {
				st, fe, be, rb, rf, lg := &ds[j].st, &ds[j].fe, &ds[j].be, &ds[j].rb, &ds[j].rf, &ds[j].lg
				for i := range c.frames {
					r := &c.frames[i]
					var m codec.Message
					var err error
					switch {
					case len(r.frame) == 1: // a one-byte answer: nothing to decode
						continue
					case r.startup:
						m, err = st.Decode(r.frame, r.p)
					case r.dir == Frontend:
						fe.Auth = r.auth
						m, err = fe.Decode(r.frame, r.p)
					default:
						m, err = be.Decode(r.frame, r.p)
					}
					if err != nil {
						b.Fatal(err)
					}
					if !r.sub {
						continue
					}
					data := m.(*codec.CopyData).Data
					if r.dir == Frontend {
						_, err = rf.Decode(data, r.p)
					} else if m, err = rb.Decode(data, r.p); err == nil && r.logical {
						_, err = lg.Decode(m.(*codec.XLogData).WALData, r.logicalP)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	b.Run("impl=tracker", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		cs := make([]*codec.Conversation, len(convs))
		start := cpuTime()
		defer reportCPU(b, start)
		for b.Loop() {
			for j, cc := range convs {
				conv := cc.frames
				if cs[j] == nil {
					cs[j] = codec.NewConversation(codec.Params{})
				}
				c := cs[j]
				c.Reset(codec.Params{})
				for i := range conv {
					var err error
					if conv[i].dir == Frontend {
						_, err = c.Frontend.Next(conv[i].frame)
					} else {
						_, err = c.Backend.Next(conv[i].frame)
					}
					if err != nil && !errors.Is(err, codec.ErrFlow) {
						b.Fatal(err)
					}
				}
			}
		}
	})
}
