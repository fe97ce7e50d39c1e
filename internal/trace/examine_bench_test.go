package trace

import (
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// pgbenchSession is what a session in front of PostgreSQL 15 sees of
// pgbench -S (simple: Query and its four answers; prepared: Bind, Execute,
// Sync and theirs), encoded beforehand: the start-up (and, prepared, the
// Parse) of each side, then transactions, each with another aid (as
// pgbench's random aid out of 100,000 makes them: more distinct frames than
// the formatter's cache keeps).
type pgbenchSession struct {
	start [2][][]byte // by Direction; the frontend's first is the StartupMessage
	txs   []pgbenchTx
}

// pgbenchTx is one transaction's frames, by Direction, each side's sent at once.
type pgbenchTx [2][][]byte

func newPgbenchSession(b *testing.B, mode string) *pgbenchSession {
	enc := func(msgs ...codec.Message) [][]byte {
		var frames [][]byte
		for _, m := range msgs {
			frame, err := m.Encode(nil, codec.Params{Major: 15})
			if err != nil {
				b.Fatal(err)
			}
			frames = append(frames, frame)
		}
		return frames
	}
	s := &pgbenchSession{}
	s.start[Frontend] = enc(&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "postgres"}, {Name: "database", Value: "pgspec"}}})
	s.start[Backend] = enc(&codec.AuthenticationOk{}, &codec.ParameterStatus{Name: "server_version", Value: "15.18 (Debian 15.18-0+deb12u1)"},
		&codec.BackendKeyData{ProcessID: 4242, SecretKey: []byte{1, 2, 3, 4}}, &codec.ReadyForQuery{TxStatus: 'I'})
	if mode == "prepared" {
		s.start[Frontend] = append(s.start[Frontend], enc(&codec.Parse{Name: "P_0", Query: "SELECT abalance FROM pgbench_accounts WHERE aid = $1;"}, &codec.Sync{})...)
		s.start[Backend] = append(s.start[Backend], enc(&codec.ParseComplete{}, &codec.ReadyForQuery{TxStatus: 'I'})...)
	}
	column := codec.FieldDescription{Name: "abalance", TableOID: 16397, TableAttributeNumber: 3, DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}
	s.txs = make([]pgbenchTx, 2*maxCachedBodies)
	for i := range s.txs {
		aid := strconv.Itoa(1 + i*7919%100000)
		t := &s.txs[i]
		if mode == "simple" {
			t[Frontend] = enc(&codec.Query{String: "SELECT abalance FROM pgbench_accounts WHERE aid = " + aid + ";"})
			t[Backend] = enc(&codec.RowDescription{Fields: []codec.FieldDescription{column}})
		} else {
			t[Frontend] = enc(&codec.Bind{PreparedStatement: "P_0", Parameters: [][]byte{[]byte(aid)}, ResultFormatCodes: []int16{0}}, &codec.Execute{}, &codec.Sync{})
			t[Backend] = enc(&codec.BindComplete{})
		}
		t[Backend] = append(t[Backend], enc(&codec.DataRow{Values: [][]byte{[]byte("0")}}, &codec.CommandComplete{CommandTag: "SELECT 1"}, &codec.ReadyForQuery{TxStatus: 'I'})...)
	}
	return s
}

// run hands side each side's frames in turn: the start-up, then b.N
// transactions, timed.
func (s *pgbenchSession) run(b *testing.B, side func(Direction, [][]byte)) {
	side(Frontend, s.start[Frontend][:1])
	side(Backend, s.start[Backend][:4])
	side(Frontend, s.start[Frontend][1:])
	side(Backend, s.start[Backend][4:])
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		t := &s.txs[i%len(s.txs)]
		side(Frontend, t[Frontend])
		side(Backend, t[Backend])
	}
}

// BenchmarkExamine is pgtrace's own work per pgbench -S transaction, off the
// sockets: both directions' messages decoded through the conversation,
// printed as text lines and re-encoded.
func BenchmarkExamine(b *testing.B) {
	for _, mode := range []string{"simple", "prepared"} {
		b.Run("mode="+mode, func(b *testing.B) {
			s := newPgbenchSession(b, mode)
			var a analyzer
			a.init(Format{}, io.Discard)
			c := newConn(1)
			xs := [2]examiner{newExaminer(&a, &c.dirs[Frontend]), newExaminer(&a, &c.dirs[Backend])}
			var lines []byte
			feed := func(d Direction, frames [][]byte) {
				lines = lines[:0]
				at := time.Now() // a side's frames come in one read, which they bear the time of
				for _, frame := range frames {
					var problem string
					if lines, _, problem = xs[d].examine(frame, at, lines); problem != "" {
						b.Fatal(problem)
					}
				}
			}
			s.run(b, feed)
		})
	}
}

// BenchmarkRelay is a proxy session's whole work per pgbench -S transaction
// but the sockets' own: each side's messages read in one burst through the
// pump's FrameReader, examined, forwarded (one write per burst) and their
// text lines handed to the output, whose writer writes them to io.Discard.
func BenchmarkRelay(b *testing.B) {
	for _, mode := range []string{"simple", "prepared"} {
		b.Run("mode="+mode, func(b *testing.B) {
			s := newPgbenchSession(b, mode)
			p := New(Options{Out: io.Discard, Upstream: "127.0.0.1:0"})
			b.Cleanup(func() { p.out.close(); p.log.close() })
			client, server := &burstConn{}, &burstConn{}
			sess := newSession(p, 1, client)
			sess.server = server
			pumps := [2]*pump{sess.newPump(Frontend, client, server), sess.newPump(Backend, server, client)}
			relay := func(d Direction, frames [][]byte) {
				pumps[d].src.(*burstConn).next = frames
				for range frames {
					frame, err := pumps[d].next()
					if err != nil {
						b.Fatal(err)
					}
					if _, err := pumps[d].relay(frame); err != nil {
						b.Fatal(err)
					}
				}
				pumps[d].flush()
			}
			s.run(b, relay)
			b.StopTimer()
			p.out.flush()
			if st := p.Stats(Backend); st.Identical != st.Decoded || p.Dropped() != 0 {
				b.Fatalf("backend %+v, %d lines dropped", st, p.Dropped())
			}
		})
	}
}

// burstConn is one side of a proxied session without a socket: each Read
// returns the next burst's frames at once, writes are discarded.
type burstConn struct {
	net.Conn
	next [][]byte
}

func (c *burstConn) Read(b []byte) (int, error) {
	n := 0
	for len(c.next) > 0 && n+len(c.next[0]) <= len(b) {
		n += copy(b[n:], c.next[0])
		c.next = c.next[1:]
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (c *burstConn) Write(b []byte) (int, error)     { return len(b), nil }
func (c *burstConn) SetReadDeadline(time.Time) error { return nil }
func (c *burstConn) Close() error                    { return nil }
