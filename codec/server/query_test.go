package server_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
)

func sendAll(t *testing.T, c *session.Conn, msgs ...codec.Message) {
	t.Helper()
	if err := c.Send(msgs...); err != nil {
		t.Fatal(err)
	}
}

// TestExtendedPipeline: one write carries a prepared statement, a portal
// run two rows at a time (PortalSuspended, then the rest), a Describe of
// each, a named statement that already exists, and Syncs; each Sync gets
// its ReadyForQuery, and the error discards up to its Sync only.
func TestExtendedPipeline(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	c := login(t, addr, session.Config{})
	sendAll(t, c,
		&codec.Parse{Name: "s", Query: "rows 5"},
		&codec.Describe{ObjectType: 'S', Name: "s"},
		&codec.Bind{DestinationPortal: "p", PreparedStatement: "s", ResultFormatCodes: []int16{1}},
		&codec.Describe{ObjectType: 'P', Name: "p"},
		&codec.Execute{Portal: "p", MaxRows: 2},
		&codec.Execute{Portal: "p", MaxRows: 2},
		&codec.Execute{Portal: "p", MaxRows: 2},
		&codec.Execute{Portal: "p", MaxRows: 2},
		&codec.Close{ObjectType: 'P', Name: "p"},
		&codec.Sync{},
		&codec.Parse{Name: "s", Query: "rows 1"},
		&codec.Bind{PreparedStatement: "s"},
		&codec.Execute{},
		&codec.Sync{},
		&codec.Parse{Query: "echo"},
		&codec.Bind{Parameters: [][]byte{[]byte("21")}},
		&codec.Execute{},
		&codec.Sync{},
	)
	wantSlugs(t, c, "parse-complete parameter-description row-description bind-complete row-description "+
		"data-row data-row portal-suspended data-row data-row portal-suspended data-row command-complete:SELECT 1 "+
		"command-complete:SELECT 0 close-complete ready-for-query:I")
	wantSlugs(t, c, "error-response:42P05 ready-for-query:I")
	m, _ := c.Receive()
	m, _ = c.Receive()
	m, _ = c.Receive()
	if row, ok := m.(*codec.DataRow); !ok || string(row.Values[0]) != "42" {
		t.Errorf("echo 21: %v", m)
	}
	wantSlugs(t, c, "command-complete:SELECT 1 ready-for-query:I")
}

// TestBinaryResults: result format 1 gets pgtype's binary encoding.
func TestBinaryResults(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	c := login(t, addr, session.Config{})
	sendAll(t, c, &codec.Parse{Query: "rows 2"}, &codec.Bind{ResultFormatCodes: []int16{1, 0}}, &codec.Execute{}, &codec.Sync{})
	var rows []string
	for {
		m, err := c.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := m.(*codec.DataRow); ok {
			rows = append(rows, string(r.Values[0])+"|"+string(r.Values[1]))
		}
		if _, ok := m.(*codec.ReadyForQuery); ok {
			break
		}
	}
	if want := []string{"\x00\x00\x00\x00|row 0", "\x00\x00\x00\x01|row 1"}; strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Errorf("rows %q, want %q", rows, want)
	}
}

// TestErrorDiscardsUntilSync: after an error in the extended protocol
// every message up to Sync is dropped — a query that would succeed
// included — and the next batch runs; in a simple query the statements
// after the failed one do not run.
func TestErrorDiscardsUntilSync(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	c := login(t, addr, session.Config{})
	sendAll(t, c,
		&codec.Parse{Query: "fail"}, &codec.Bind{}, &codec.Execute{},
		&codec.Parse{Query: "rows 1"}, &codec.Bind{}, &codec.Execute{}, &codec.Flush{},
		&codec.Sync{},
		&codec.Bind{PreparedStatement: "nope"}, &codec.Execute{}, &codec.Sync{},
		&codec.Parse{Query: "rows 1"}, &codec.Bind{}, &codec.Execute{Portal: "other"}, &codec.Sync{},
		&codec.Parse{Query: "echo"}, &codec.Bind{}, &codec.Sync{},
		&codec.Parse{Query: "rows 1; rows 2"}, &codec.Sync{},
		&codec.Describe{ObjectType: 'X'}, &codec.Sync{},
		&codec.Parse{Query: "rows 1"}, &codec.Bind{}, &codec.Execute{}, &codec.Sync{},
		&codec.Query{String: "rows 1; fail; rows 2"},
		&codec.Query{String: ""},
	)
	wantSlugs(t, c, "parse-complete bind-complete error-response:22012 ready-for-query:I")
	wantSlugs(t, c, "error-response:26000 ready-for-query:I")
	wantSlugs(t, c, "parse-complete bind-complete error-response:34000 ready-for-query:I")
	wantSlugs(t, c, "parse-complete error-response:08P01 ready-for-query:I")
	wantSlugs(t, c, "error-response:42601 ready-for-query:I")
	wantSlugs(t, c, "error-response:08P01 ready-for-query:I")
	wantSlugs(t, c, "parse-complete bind-complete data-row command-complete:SELECT 1 ready-for-query:I")
	wantSlugs(t, c, "row-description data-row command-complete:SELECT 1 error-response:22012 ready-for-query:I")
	wantSlugs(t, c, "empty-query-response ready-for-query:I")
}

// TestCopy: COPY FROM STDIN reads CopyData up to CopyDone (Flush and Sync
// in between are ignored), CopyFail fails it with 57014, COPY TO STDOUT
// sends CopyOutResponse, CopyData and CopyDone.
func TestCopy(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	c := login(t, addr, session.Config{})
	sendAll(t, c, &codec.Query{String: "copyin"})
	if m, _ := c.Receive(); m.Slug() != "copy-in-response" {
		t.Fatalf("got %s", m.Slug())
	}
	sendAll(t, c, &codec.CopyData{Data: []byte("1\n2\n")}, &codec.Flush{}, &codec.CopyData{Data: []byte("3\n")}, &codec.CopyDone{})
	wantSlugs(t, c, "command-complete:COPY 3 ready-for-query:I")
	sendAll(t, c, &codec.Query{String: "copyin"})
	c.Receive()
	sendAll(t, c, &codec.CopyData{Data: []byte("1\n")}, &codec.CopyFail{Message: "client gave up"})
	wantSlugs(t, c, "error-response:57014 ready-for-query:I")
	sendAll(t, c, &codec.Query{String: "copyin"})
	c.Receive()
	sendAll(t, c, &codec.Query{String: "rows 1"})
	wantSlugs(t, c, "error-response:08P01 ready-for-query:I")
	sendAll(t, c, &codec.Query{String: "copyout"})
	wantSlugs(t, c, "copy-out-response copy-data copy-data copy-done command-complete:COPY 2 ready-for-query:I")
}

// TestFunctionCall: FunctionCall gets FunctionCallResponse and
// ReadyForQuery, or the handler's error.
func TestFunctionCall(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	c := login(t, addr, session.Config{})
	sendAll(t, c, &codec.FunctionCall{Function: 42, Arguments: [][]byte{[]byte("21")}})
	m, _ := c.Receive()
	if r, ok := m.(*codec.FunctionCallResponse); !ok || string(r.Result) != "42" {
		t.Errorf("got %v", m)
	}
	wantSlugs(t, c, "ready-for-query:I")
	sendAll(t, c, &codec.FunctionCall{Function: 7})
	wantSlugs(t, c, "error-response:42883 ready-for-query:I")
}

// TestProtocolViolation: a malformed message is PostgreSQL's ERROR 08P01
// and the session goes on, in step with the conversation; a message the
// flow has no place for (a Query inside COPY FROM STDIN) is 08P01; a
// message type that does not exist is FATAL 08P01 and ends that session only.
func TestProtocolViolation(t *testing.T) {
	addr, errs := serve(t, server.Config{})
	other := login(t, addr, session.Config{})
	nc := dial(t, addr)
	c := session.NewConn(nc)
	if err := c.Startup(session.Config{User: "app"}); err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte{'B', 0, 0, 0, 6, 'x', 0}) // a Bind cut short
	sendAll(t, c, &codec.Sync{})
	wantSlugs(t, c, "error-response:08P01 ready-for-query:I")
	// The conversation never took the cut Bind; the Execute after it is
	// discarded up to Sync, and then the session is in step again: a COPY
	// takes its CopyData, and a Query in the middle of it is 08P01.
	nc.Write([]byte{'B', 0, 0, 0, 6, 'x', 0})
	sendAll(t, c, &codec.Execute{}, &codec.Sync{}, &codec.Query{String: "copyin"})
	wantSlugs(t, c, "error-response:08P01 ready-for-query:I")
	sendAll(t, c, &codec.CopyData{Data: []byte("1\n")}, &codec.CopyDone{})
	wantSlugs(t, c, "copy-in-response command-complete:COPY 1 ready-for-query:I")
	sendAll(t, c, &codec.Query{String: "copyin"}, &codec.Query{String: "rows 1"})
	wantSlugs(t, c, "copy-in-response error-response:08P01 ready-for-query:I")
	nc.Write([]byte{'z', 0, 0, 0, 4})
	if e := fatalFrom(t, nc, p30); e == nil || e.SQLState() != "08P01" || e.Message() != "invalid frontend message type 122" {
		t.Errorf("message type 'z': %v", e)
	}
	if err := <-errs; err == nil || !strings.Contains(err.Error(), "invalid frontend message type") {
		t.Errorf("the session ended with %v", err)
	}
	sendAll(t, other, &codec.Query{String: "rows 1"})
	wantSlugs(t, other, "row-description data-row command-complete:SELECT 1 ready-for-query:I")
}

// TestResyncAfterMalformedFrame: a frame that does not decode puts the
// conversation out of step (its ErrorResponse answers nothing the
// conversation took, and the Execute queued behind it gets no answer); the
// ReadyForQuery answering the Sync must put it back in step, or the stale
// Execute and Sync it still waits for shift every later answer, and a
// COPY's CopyInResponse, taken where the conversation has no place for it,
// leaves the client's CopyData refused as "unexpected during COPY" (what
// this test sees without the Reset in inStep). Here the next query, a COPY
// and a pipelined extended query are answered, and another session
// carries on.
func TestResyncAfterMalformedFrame(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	other := login(t, addr, session.Config{})
	nc := dial(t, addr)
	c := session.NewConn(nc)
	if err := c.Startup(session.Config{User: "app"}); err != nil {
		t.Fatal(err)
	}
	sendAll(t, c, &codec.Parse{Query: "rows 1"})
	nc.Write([]byte{'B', 0, 0, 0, 6, 'x', 0}) // a Bind cut short
	sendAll(t, c, &codec.Execute{}, &codec.Sync{})
	wantSlugs(t, c, "parse-complete error-response:08P01 ready-for-query:I")
	sendAll(t, c, &codec.Query{String: "rows 1"}) // answered, the stale Sync waiting behind it
	wantSlugs(t, c, "row-description data-row command-complete:SELECT 1 ready-for-query:I")
	sendAll(t, c, &codec.Query{String: "copyin"}, &codec.CopyData{Data: []byte("1\n")}, &codec.CopyDone{})
	wantSlugs(t, c, "copy-in-response command-complete:COPY 1 ready-for-query:I")
	sendAll(t, c, &codec.Parse{Query: "rows 1"}, &codec.Bind{}, &codec.Execute{}, &codec.Sync{})
	wantSlugs(t, c, "parse-complete bind-complete data-row command-complete:SELECT 1 ready-for-query:I")
	sendAll(t, other, &codec.Query{String: "rows 1"})
	wantSlugs(t, other, "row-description data-row command-complete:SELECT 1 ready-for-query:I")
}

// TestHostileFrames: a session fed frames of random tags and bodies —
// malformed Binds, Executes of portals that never were, stray CopyData —
// never brings the server down: each frame gets an answer or ends that
// session with an error, and a session beside it still answers.
func TestHostileFrames(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	other := login(t, addr, session.Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	tags := []byte("BCDEFHPQSXcdfpz")
	for range 300 {
		nc := dial(t, addr)
		c := session.NewConn(nc)
		if err := c.Startup(session.Config{User: "app"}); err != nil {
			t.Fatal(err)
		}
		var buf []byte
		for range 20 {
			body := make([]byte, rng.IntN(24))
			for i := range body {
				body[i] = byte(rng.IntN(4)) // small values: plausible counts and lengths, zero bytes ending strings
			}
			buf = append(buf, tags[rng.IntN(len(tags))], 0, 0, 0, byte(4+len(body)))
			buf = append(buf, body...)
		}
		nc.Write(buf)
		sendAll(t, c, &codec.Sync{})
		nc.SetDeadline(time.Now().Add(2 * time.Second))
		for { // until the server has answered the Sync or closed
			m, err := c.Receive()
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("no answer to %q", buf)
				}
				break
			}
			if _, ok := m.(*codec.ReadyForQuery); ok {
				break
			}
		}
		nc.Close()
	}
	sendAll(t, other, &codec.Query{String: "rows 1"})
	wantSlugs(t, other, "row-description data-row command-complete:SELECT 1 ready-for-query:I")
}
