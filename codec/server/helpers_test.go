package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
)

// testHandler answers a few made-up statements, separated by ';':
// "rows N" (N rows of i int4, s text), "echo" (one int4 parameter, doubled),
// "fail" (22012), "sleep" (until cancelled), "copyin", "copyout", "begin"
// and "commit".
type testHandler struct{}

// sleeping has a value once a "sleep" statement runs: a CancelRequest
// sent before that cancels nothing, in PostgreSQL as here.
var sleeping = make(chan struct{}, 1)

// startSleep sends "sleep" on c and returns once it runs.
func startSleep(t *testing.T, c *session.Conn) {
	t.Helper()
	select {
	case <-sleeping:
	default:
	}
	if err := c.Send(&codec.Query{String: "sleep"}); err != nil {
		t.Fatal(err)
	}
	<-sleeping
}

func (testHandler) Parse(ctx context.Context, c *server.Conn, sql string, types []uint32) ([]server.Statement, error) {
	var out []server.Statement
	for part := range strings.SplitSeq(sql, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		var st server.Statement
		switch f[0] {
		case "rows":
			n, _ := strconv.Atoi(f[1])
			st = server.Statement{Columns: []server.Column{{Name: "i", OID: pgtype.Int4OID}, {Name: "s", OID: pgtype.TextOID}},
				Run: func(ctx context.Context, q *server.Query) error {
					for i := range n {
						if err := q.Row(int32(i), fmt.Sprint("row ", i)); err != nil {
							return err
						}
					}
					return nil
				}}
		case "echo":
			st = server.Statement{Params: []uint32{pgtype.Int4OID}, Columns: []server.Column{{Name: "n", OID: pgtype.Int4OID}},
				Run: func(ctx context.Context, q *server.Query) error {
					var v int32
					if err := q.Scan(0, &v); err != nil {
						return err
					}
					return q.Row(2 * v)
				}}
		case "begin", "commit":
			st = server.Statement{Run: func(ctx context.Context, q *server.Query) error {
				q.Conn().TxStatus = map[string]byte{"begin": 'T', "commit": 'I'}[f[0]]
				q.SetTag(strings.ToUpper(f[0]))
				return nil
			}}
		case "fail":
			st = server.Statement{Run: func(context.Context, *server.Query) error {
				return session.ServerError("ERROR", "22012", "division by zero", "")
			}}
		case "sleep":
			st = server.Statement{Run: func(ctx context.Context, q *server.Query) error {
				select {
				case sleeping <- struct{}{}:
				default:
				}
				<-ctx.Done()
				return ctx.Err()
			}}
		case "copyin":
			st = server.Statement{Run: func(ctx context.Context, q *server.Query) error {
				if err := q.CopyIn(0, []int16{0}); err != nil {
					return err
				}
				n := 0
				for {
					data, err := q.ReadCopy()
					if err == io.EOF {
						q.SetTag(fmt.Sprint("COPY ", n))
						return nil
					}
					if err != nil {
						return err
					}
					n += strings.Count(string(data), "\n")
				}
			}}
		case "copyout":
			st = server.Statement{Run: func(ctx context.Context, q *server.Query) error {
				if err := q.CopyOut(0, []int16{0}); err != nil {
					return err
				}
				for _, line := range []string{"a\n", "b\n"} {
					if err := q.WriteCopy([]byte(line)); err != nil {
						return err
					}
				}
				q.SetTag("COPY 2")
				return nil
			}}
		default:
			return nil, session.ServerError("ERROR", "42601", fmt.Sprintf("syntax error at or near %q", f[0]), "")
		}
		out = append(out, st)
	}
	return out, nil
}

// CallFunction doubles an int4 given to function 42.
func (testHandler) CallFunction(ctx context.Context, c *server.Conn, oid uint32, args [][]byte, formats []int16, result int16) ([]byte, error) {
	if oid != 42 || len(args) != 1 {
		return nil, session.ServerError("ERROR", "42883", fmt.Sprintf("function with OID %d does not exist", oid), "")
	}
	n, err := strconv.Atoi(string(args[0]))
	if err != nil {
		return nil, session.ServerError("ERROR", "22P02", "invalid input syntax for type integer", "")
	}
	return []byte(strconv.Itoa(2 * n)), nil
}

// serve starts a Server with testHandler on 127.0.0.1 and returns its
// address; sessionErrs receives the error each session ended with.
func serve(t *testing.T, cfg server.Config) (addr string, sessionErrs chan error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sessionErrs = make(chan error, 100)
	s := &server.Server{Config: cfg, Handler: testHandler{}, OnError: func(err error) {
		select {
		case sessionErrs <- err:
		default: // a test that ends many sessions reads none of them
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(ctx, l)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return l.Addr().String(), sessionErrs
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return nc
}

// login opens a session as user app with cfg.
func login(t *testing.T, addr string, cfg session.Config) *session.Conn {
	t.Helper()
	c := session.NewConn(dial(t, addr))
	if cfg.User == "" {
		cfg.User = "app"
	}
	if err := c.Startup(cfg); err != nil {
		t.Fatal(err)
	}
	return c
}

// slugs reads up to and including ReadyForQuery and returns each message's
// slug; an ErrorResponse reads "error-response:SQLSTATE", a CommandComplete
// "command-complete:TAG".
func slugs(t *testing.T, c *session.Conn) []string {
	t.Helper()
	var got []string
	for {
		m, err := c.Receive()
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		s := m.Slug()
		switch m := m.(type) {
		case *codec.ErrorResponse:
			s += ":" + session.NewError(m.Fields).SQLState()
		case *codec.CommandComplete:
			s += ":" + m.CommandTag
		case *codec.ReadyForQuery:
			return append(got, s+":"+string(m.TxStatus))
		}
		got = append(got, s)
	}
}

// wantSlugs compares slugs with want, joined by spaces.
func wantSlugs(t *testing.T, c *session.Conn, want string) {
	t.Helper()
	if got := strings.Join(slugs(t, c), " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// fatalFrom reads what the server sends until it closes and returns the
// FATAL error it sent, nil if none.
func fatalFrom(t *testing.T, nc net.Conn, p codec.Params) *session.Error {
	t.Helper()
	fr := codec.NewFrameReader(nc)
	var be codec.Backend
	for {
		frame, err := fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			t.Fatalf("reading the server's answer: %v", err)
		}
		m, err := be.Decode(frame, p)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := m.(*codec.ErrorResponse); ok {
			return session.NewError(e.Fields)
		}
	}
}

// send encodes msgs into one write on nc.
func send(t *testing.T, nc net.Conn, p codec.Params, msgs ...codec.Message) {
	t.Helper()
	var buf []byte
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := nc.Write(buf); err != nil {
		t.Fatal(err)
	}
}
