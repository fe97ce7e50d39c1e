package cdc

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// fakeServer is the server end of a net.Pipe: it answers the consumer's
// slot lookup and START_REPLICATION, then sends what the test says and
// passes on every standby status update the consumer sends.
type fakeServer struct {
	t       *testing.T
	conn    net.Conn
	p       codec.Params
	queries chan string
	updates chan codec.StandbyStatusUpdate
}

func newFake(t *testing.T) (*fakeServer, *session.Conn) {
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	f := &fakeServer{t: t, conn: server, p: codec.Params{Major: 15, LogicalVersion: 3},
		queries: make(chan string, 4), updates: make(chan codec.StandbyStatusUpdate, 100)}
	go f.read()
	c := session.NewConn(client)
	if err := c.Startup(session.Config{User: "u", Protocol: session.Protocol30, Params: map[string]string{"replication": "database"}}); err != nil {
		t.Fatal(err)
	}
	return f, c
}

// read takes the consumer's messages: the startup is answered as by
// PostgreSQL 15 without a password, queries are answered, updates passed
// on.
func (f *fakeServer) read() {
	fr := codec.NewFrameReader(f.conn)
	if _, err := fr.NextUntagged(); err != nil {
		return
	}
	f.send(&codec.AuthenticationOk{}, &codec.ParameterStatus{Name: "server_version", Value: "15.4"}, &codec.ReadyForQuery{TxStatus: 'I'})
	var fe codec.Frontend
	var rf codec.ReplicationFrontend
	for {
		frame, err := fr.Next()
		if err != nil {
			return
		}
		m, err := fe.Decode(frame, f.p)
		if err != nil {
			f.t.Errorf("consumer sent %q: %v", frame, err)
			return
		}
		switch m := m.(type) {
		case *codec.Query:
			f.queries <- m.String
			if strings.HasPrefix(m.String, "SELECT") {
				f.send(&codec.DataRow{Values: [][]byte{[]byte("0/100"), []byte("pgoutput"), []byte("t")}},
					&codec.CommandComplete{CommandTag: "SELECT 1"}, &codec.ReadyForQuery{TxStatus: 'I'})
			} else {
				f.send(&codec.CopyBothResponse{})
			}
		case *codec.CopyData:
			sub, err := rf.Decode(m.Data, f.p)
			if u, ok := sub.(*codec.StandbyStatusUpdate); ok && err == nil {
				f.updates <- *u
			} else {
				f.t.Errorf("consumer sent %v in CopyData: %v", sub, err)
			}
		}
	}
}

func (f *fakeServer) send(ms ...codec.Message) {
	var b []byte
	for _, m := range ms {
		var err error
		if b, err = m.Encode(b, f.p); err != nil {
			f.t.Error(err)
		}
	}
	f.conn.Write(b)
}

// wal sends pgoutput messages in XLogData at successive positions from at.
func (f *fakeServer) wal(at uint64, ms ...codec.Message) {
	for _, m := range ms {
		data, err := m.Encode(nil, f.p)
		if err != nil {
			f.t.Fatal(err)
		}
		b, _ := session.AppendCopyData(nil, &codec.XLogData{WALStart: at, WALData: data}, f.p)
		f.conn.Write(b)
		at += 8
	}
}

func (f *fakeServer) keepalive(walEnd uint64, reply bool) {
	k := &codec.PrimaryKeepalive{ServerWALEnd: walEnd}
	if reply {
		k.ReplyRequested = 1
	}
	b, _ := session.AppendCopyData(nil, k, f.p)
	f.conn.Write(b)
}

// flushedAt waits for an update that reports want as flushed; any update
// before it must not report more.
func (f *fakeServer) flushedAt(want LSN) {
	f.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case u := <-f.updates:
			if got := LSN(u.WALFlushPosition); got == want && LSN(u.WALApplyPosition) == want {
				return
			} else if got > want {
				f.t.Fatalf("update reports %s flushed, want %s", got, want)
			}
		case <-deadline:
			f.t.Fatalf("no update reporting %s flushed", want)
		}
	}
}

// TestAcks: the consumer starts after the slot's confirmed position,
// reports only what the application confirmed (on a timer and at once
// when a keepalive asks), the idle keepalive's WAL end once everything is
// confirmed, and the confirmed position once more as Run returns.
func TestAcks(t *testing.T) {
	f, conn := newFake(t)
	c, err := New(conn, Config{Slot: "s", Publications: []string{`we"ird`}, StatusInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	<-f.queries
	if q := <-f.queries; q != `START_REPLICATION SLOT "s" LOGICAL 0/100 ("proto_version" '3', "publication_names" '"we""ird"', "messages" 'true', "streaming" 'on', "two_phase" 'true')` {
		t.Errorf("start: %s", q)
	}
	commits := make(chan LSN)
	done := make(chan error)
	go func() {
		done <- c.Run(func(e Event) error {
			switch e := e.(type) {
			case *Commit:
				commits <- e.EndLSN
			case *Begin:
				if e.Xid == 3 {
					return ErrStop
				}
			}
			return nil
		})
	}()
	rel := relation(0, 1, "t", 'd', "*id")
	f.wal(0x200, &codec.LogicalBegin{FinalLSN: 0x200, Xid: 1}, rel, &codec.LogicalInsert{RelationOID: 1, New: text("1")},
		&codec.LogicalCommit{CommitLSN: 0x200, TransactionEndLSN: 0x210})
	first := <-commits
	f.wal(0x300, &codec.LogicalBegin{FinalLSN: 0x300, Xid: 2}, &codec.LogicalInsert{RelationOID: 1, New: text("2")},
		&codec.LogicalCommit{CommitLSN: 0x300, TransactionEndLSN: 0x310})
	second := <-commits
	f.flushedAt(0x100) // the timer reports the start; nothing is confirmed yet
	if got := c.Confirmed(); got != 0x100 {
		t.Errorf("confirmed %s before any Confirm, want the start 0/100", got)
	}
	if err := c.Confirm(first); err != nil {
		t.Fatal(err)
	}
	if err := c.Confirm(0x305); err == nil {
		t.Error("confirmed a position that is no boundary")
	}
	if got := c.Confirmed(); got != first {
		t.Errorf("confirmed %s, want %s", got, first)
	}
	f.keepalive(0x400, true)
	f.flushedAt(first) // not the second (delivered, not confirmed), not the keepalive's end
	if err := c.Confirm(second); err != nil {
		t.Fatal(err)
	}
	if err := c.Confirm(first); err != nil || c.Confirmed() != second {
		t.Errorf("confirming %s again: %v, confirmed %s, want %s", first, err, c.Confirmed(), second)
	}
	// The stream was idle at the keepalive: with everything before it
	// confirmed, its end is.
	f.flushedAt(0x400)
	f.keepalive(0x500, false)
	f.flushedAt(0x500)
	f.wal(0x600, &codec.LogicalBegin{FinalLSN: 0x600, Xid: 3})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.flushedAt(0x500)
}
