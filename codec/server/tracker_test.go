package server_test

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// proxied is a session whose every message passes a Tracker, as through a
// pooler.
type proxied struct {
	t      *testing.T
	c      *session.Conn
	tr     *server.Tracker
	errors []string // the SQLSTATE of each ErrorResponse
}

func (p *proxied) send(msgs ...codec.Message) {
	p.t.Helper()
	for _, m := range msgs {
		if _, err := p.tr.Frontend(mustEncode(p.t, m, p.c.P)); err != nil {
			p.t.Fatalf("%s: %v", m.Slug(), err)
		}
	}
	sendAll(p.t, p.c, msgs...)
}

func mustEncode(t *testing.T, m codec.Message, p codec.Params) []byte {
	t.Helper()
	b, err := m.Encode(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// drain reads until the Tracker owes nothing.
func (p *proxied) drain() {
	p.t.Helper()
	for p.tr.Pending() > 0 {
		m, err := p.c.Receive()
		if err != nil {
			p.t.Fatal(err)
		}
		if _, err := p.tr.Backend(mustEncode(p.t, m, p.c.P)); err != nil {
			p.t.Fatal(err)
		}
		if e, ok := m.(*codec.ErrorResponse); ok {
			p.errors = append(p.errors, session.NewError(e.Fields).SQLState())
		}
	}
}

func (p *proxied) prepared() []string {
	var names []string
	for _, m := range p.tr.Prepared() {
		names = append(names, m.Name+"="+m.Query)
	}
	return names
}

// TestTracker follows the same conversation with PostgreSQL 15 and with
// the package's own server: statements prepared before an error are kept,
// those after it up to Sync are not, Close forgets one, the answers settle
// the count of pending requests and ReadyForQuery the transaction status,
// and the statements it lists prepare another connection for the client.
func TestTracker(t *testing.T) {
	ours, _ := serve(t, server.Config{})
	for _, c := range []struct {
		name, addr                string
		user                      pgtest.User
		ok, parseFails, execFails string
		begin, commit             string
	}{
		{"codec/server", ours, pgtest.User{Name: "app"}, "rows 1", "nosuch", "fail", "begin", "commit"},
		{"PostgreSQL 15", "", pgtest.Superuser, "SELECT 1", "SELEC 1", "SELECT 1/0", "BEGIN", "COMMIT"},
	} {
		if c.addr == "" {
			c.addr = pgtest.Get(t).Addr()
		}
		dialProxied := func() *proxied {
			p := &proxied{t: t, c: session.NewConn(dial(t, c.addr))}
			if err := p.c.Startup(session.Config{User: c.user.Name, Database: pgtest.Database, Protocol: session.Protocol30}); err != nil {
				t.Fatal(err)
			}
			p.tr = server.NewTracker(p.c.P)
			return p
		}
		p := dialProxied()
		p.send(&codec.Parse{Name: "s1", Query: c.ok}, &codec.Parse{Name: "s2", Query: c.parseFails}, &codec.Parse{Name: "s3", Query: c.ok}, &codec.Sync{})
		if p.tr.Pending() != 4 || p.tr.Idle() {
			t.Errorf("%s: pending %d, idle %v before the answers", c.name, p.tr.Pending(), p.tr.Idle())
		}
		p.drain()
		if got := p.prepared(); !slices.Equal(got, []string{"s1=" + c.ok}) || !p.tr.Idle() {
			t.Errorf("%s: after a failed Parse: %v, idle %v", c.name, got, p.tr.Idle())
		}
		p.send(&codec.Parse{Name: "s4", Query: c.ok}, &codec.Bind{PreparedStatement: "s4"}, &codec.Execute{}, &codec.Close{ObjectType: 'S', Name: "s1"}, &codec.Sync{},
			&codec.Query{String: c.begin})
		if p.tr.Pending() != 6 {
			t.Errorf("%s: pending %d, want 6", c.name, p.tr.Pending())
		}
		p.drain()
		if got := p.prepared(); !slices.Equal(got, []string{"s4=" + c.ok}) || p.tr.TxStatus != 'T' || p.tr.Idle() {
			t.Errorf("%s: after Close and BEGIN: %v, status %c", c.name, got, p.tr.TxStatus)
		}
		p.send(&codec.Query{String: c.commit}, &codec.Parse{Name: "s5", Query: c.ok}, &codec.Sync{},
			&codec.Parse{Name: "s6", Query: c.execFails}, &codec.Bind{PreparedStatement: "s6"}, &codec.Execute{}, &codec.Parse{Name: "s7", Query: c.ok}, &codec.Sync{})
		p.drain()
		want := []string{"s4=" + c.ok, "s5=" + c.ok, "s6=" + c.execFails}
		if got := p.prepared(); !slices.Equal(got, want) || !p.tr.Idle() {
			t.Errorf("%s: after the pipeline: %v, idle %v; want %v", c.name, got, p.tr.Idle(), want)
		}
		// An error before the Sync is sent: nothing is owed, but the server
		// is not idle until that Sync, and what comes before it is voided.
		p.send(&codec.Parse{Name: "s8", Query: c.parseFails}, &codec.Flush{})
		m, err := p.c.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.tr.Backend(mustEncode(t, m, p.c.P)); err != nil || m.Slug() != "error-response" || p.tr.Pending() != 0 || p.tr.Idle() {
			t.Errorf("%s: an error before Sync: %s, %v; pending %d, idle %v", c.name, m.Slug(), err, p.tr.Pending(), p.tr.Idle())
		}
		p.errors = append(p.errors, "after s8")
		p.send(&codec.Parse{Name: "s9", Query: c.ok}, &codec.Sync{})
		p.drain()
		if got := p.prepared(); !slices.Equal(got, want) || !p.tr.Idle() {
			t.Errorf("%s: after the voided s9: %v, idle %v; want %v", c.name, got, p.tr.Idle(), want)
		}

		// Another connection, prepared for this client from the Tracker.
		q := dialProxied()
		for _, m := range p.tr.Prepared() {
			q.send(m)
		}
		q.send(&codec.Sync{}, &codec.Bind{PreparedStatement: "s5"}, &codec.Execute{}, &codec.Sync{})
		q.drain()
		if got := q.prepared(); !slices.Equal(got, want) || len(q.errors) != 0 || len(p.errors) != 3 || p.errors[1] != "22012" {
			t.Errorf("%s: replayed %v, want %v; errors %v on the first connection, %v on the second", c.name, got, want, p.errors, q.errors)
		}
	}
	var fe *codec.FlowError
	if _, err := server.NewTracker(p30).Backend(mustEncode(t, &codec.ParseComplete{}, p30)); !errors.As(err, &fe) {
		t.Errorf("a ParseComplete for no Parse: %v, want a FlowError", err)
	}
}
