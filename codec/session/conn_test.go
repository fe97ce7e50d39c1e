package session_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// script is a server that has already said everything: Conn reads the
// encoded messages and writes into sent.
type script struct {
	io.Reader
	sent bytes.Buffer
}

func (s *script) Write(p []byte) (int, error) { return s.sent.Write(p) }

func newScript(t *testing.T, msgs ...codec.Message) *script {
	t.Helper()
	var buf []byte
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf, codec.Params{Major: 15}); err != nil {
			t.Fatal(err)
		}
	}
	return &script{Reader: bytes.NewReader(buf)}
}

// TestStartupNegotiation: a server that speaks 3.0 answers a 3.2 request
// with NegotiateProtocolVersion, as PostgreSQL sends it (the whole version)
// or as the manual describes it (the minor alone); the session goes on in
// 3.0 with a 4-byte cancel key. A version above the one asked for, or a
// listed option that is not "_pq_.", ends the startup.
func TestStartupNegotiation(t *testing.T) {
	startup := func(npv *codec.NegotiateProtocolVersion) (*session.Conn, error) {
		s := newScript(t, npv, &codec.AuthenticationOk{},
			&codec.ParameterStatus{Name: "server_version", Value: "15.18 (Debian 15.18-1)"},
			&codec.BackendKeyData{ProcessID: 7, SecretKey: []byte{1, 2, 3, 4}}, &codec.ReadyForQuery{TxStatus: 'I'})
		c := session.NewConn(s)
		return c, c.Startup(session.Config{User: "u", ProtocolOptions: map[string]string{"_pq_.x": "1"}})
	}
	for _, v := range []int32{3 << 16, 0} {
		c, err := startup(&codec.NegotiateProtocolVersion{NewestProtocolVersion: v, UnrecognizedOptions: []string{"_pq_.x"}})
		if err != nil {
			t.Fatalf("version %#x: %v", v, err)
		}
		if c.Protocol != session.Protocol30 || c.P.ProtocolMinor != 0 || c.P.Major != 15 || !bytes.Equal(c.SecretKey, []byte{1, 2, 3, 4}) ||
			len(c.UnrecognizedOptions) != 1 || c.UnrecognizedOptions[0] != "_pq_.x" {
			t.Errorf("version %#x: protocol %s, params %+v, key %x, options %q", v, c.Protocol, c.P, c.SecretKey, c.UnrecognizedOptions)
		}
	}
	for _, bad := range []*codec.NegotiateProtocolVersion{
		{NewestProtocolVersion: 3<<16 | 3},
		{NewestProtocolVersion: 4 << 16},
		{NewestProtocolVersion: -1},
		{NewestProtocolVersion: 3 << 16, UnrecognizedOptions: []string{"user"}},
	} {
		if _, err := startup(bad); err == nil || !strings.Contains(err.Error(), "NegotiateProtocolVersion") {
			t.Errorf("%+v: %v, want a NegotiateProtocolVersion error", bad, err)
		}
	}
}

func TestRequestEncryption(t *testing.T) {
	for _, c := range []struct {
		req      codec.Message
		answer   string
		accepted bool
		err      string
	}{
		{&codec.SSLRequest{}, "N", false, ""},
		{&codec.SSLRequest{}, "SE", true, ""}, // the E is the TLS stream's, not ours
		{&codec.GSSEncRequest{}, "G", true, ""},
		{&codec.GSSEncRequest{}, "S", false, `answered 'S', want 'G' or 'N'`},
		{&codec.SSLRequest{}, "", false, "EOF"},
		{&codec.Query{String: "x"}, "N", false, "not an encryption request"},
	} {
		s := &script{Reader: strings.NewReader(c.answer)}
		accepted, err := session.RequestEncryption(s, c.req)
		if accepted != c.accepted || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s answered %q: %v, %v; want %v, %q", c.req.Slug(), c.answer, accepted, err, c.accepted, c.err)
		}
		if c.accepted {
			if rest, _ := io.ReadAll(s); string(rest) != c.answer[1:] {
				t.Errorf("%s: read past the answer; left %q", c.req.Slug(), rest)
			}
			if want, _ := c.req.Encode(nil, codec.Params{}); !bytes.Equal(s.sent.Bytes(), want) {
				t.Errorf("sent % x, want % x", s.sent.Bytes(), want)
			}
		}
	}
}

func TestErrorFields(t *testing.T) {
	e := session.NewError([]codec.ErrorField{{Code: 'S', Value: "FEHLER"}, {Code: 'V', Value: "ERROR"}, {Code: 'C', Value: "42P01"},
		{Code: 'M', Value: `relation "nowhere" does not exist`}, {Code: 'H', Value: "h"}, {Code: 'P', Value: "15"}, {Code: 'Z', Value: "future"}})
	if e.Severity() != "ERROR" || e.Detail() != "" || e.Hint() != "h" || e.Position() != 15 || e.Get('Z') != "future" {
		t.Errorf("fields: %q %q %q %d %q", e.Severity(), e.Detail(), e.Hint(), e.Position(), e.Get('Z'))
	}
	var target *session.Error
	if !errors.As(errors.Join(errors.New("query"), e), &target) || target.SQLState() != "42P01" ||
		target.Error() != `ERROR: relation "nowhere" does not exist (SQLSTATE 42P01)` {
		t.Errorf("errors.As: %v", target)
	}
}

// TestStartupProtocol32: a PostgreSQL 18 server takes the 3.2 the client
// asks for by default and sends a 32-byte cancel key, which the session
// decodes under 3.2 and keeps; ParameterStatus values and the
// transaction status of ReadyForQuery are what the server said.
func TestStartupProtocol32(t *testing.T) {
	key := bytes.Repeat([]byte{0xA5}, 32)
	var buf []byte
	p := codec.Params{Major: 18, ProtocolMinor: 2}
	for _, m := range []codec.Message{&codec.AuthenticationOk{},
		&codec.ParameterStatus{Name: "server_version", Value: "18.1"}, &codec.ParameterStatus{Name: "TimeZone", Value: "UTC"},
		&codec.BackendKeyData{ProcessID: 99, SecretKey: key}, &codec.ReadyForQuery{TxStatus: 'I'}} {
		var err error
		if buf, err = m.Encode(buf, p); err != nil {
			t.Fatal(err)
		}
	}
	s := &script{Reader: bytes.NewReader(buf)}
	c := session.NewConn(s)
	if err := c.Startup(session.Config{User: "u", Database: "d"}); err != nil {
		t.Fatal(err)
	}
	if c.Protocol != session.Protocol32 || c.P != p || c.ProcessID != 99 || !bytes.Equal(c.SecretKey, key) ||
		c.Server["TimeZone"] != "UTC" || c.AuthMethod != "trust" {
		t.Errorf("protocol %s, params %+v, pid %d, key %x, server %v, auth %q", c.Protocol, c.P, c.ProcessID, c.SecretKey, c.Server, c.AuthMethod)
	}
	var st codec.Startup
	m, err := st.Decode(s.sent.Bytes(), codec.Params{})
	if sm, ok := m.(*codec.StartupMessage); err != nil || !ok || sm.ProtocolVersion != uint32(session.Protocol32) ||
		len(sm.Parameters) != 2 || sm.Parameters[0] != (codec.StartupParameter{Name: "database", Value: "d"}) {
		t.Errorf("sent %+v, %v; want a 3.2 StartupMessage with database and user", m, err)
	}
}

// TestStrict: a server that sends a DataRow no RowDescription announced is
// a *codec.FlowError under Strict, and taken as it came otherwise.
func TestStrict(t *testing.T) {
	msgs := []codec.Message{&codec.AuthenticationOk{}, &codec.ReadyForQuery{TxStatus: 'I'},
		&codec.DataRow{Values: [][]byte{[]byte("1")}}, &codec.CommandComplete{CommandTag: "SELECT 1"}, &codec.ReadyForQuery{TxStatus: 'I'}}
	for _, strict := range []bool{false, true} {
		c := session.NewConn(newScript(t, msgs...))
		c.Strict = strict
		if err := c.Startup(session.Config{User: "u"}); err != nil {
			t.Fatal(err)
		}
		err := c.Exec("SELECT 1", nil)
		var fe *codec.FlowError
		switch {
		case strict && (!errors.As(err, &fe) || fe.State != "backend query" || fe.Got != "data-row"):
			t.Errorf("strict: %v, want the DataRow in backend query", err)
		case !strict && err != nil:
			t.Errorf("not strict: %v", err)
		}
	}
}
