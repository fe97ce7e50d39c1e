package trace

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
	"github.com/pgspec/pgspec/internal/testcert"
)

// withStartup is req's bytes followed by a StartupMessage, in one write:
// a client that does not wait for the answer.
func withStartup(t *testing.T, req codec.Message) []byte {
	t.Helper()
	wire, err := req.Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	return append(wire, startupPacket(t)...)
}

// readAll is everything addr's server sends to wire until it closes.
func readAll(t *testing.T, c net.Conn, wire []byte) []byte {
	t.Helper()
	if _, err := c.Write(wire); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("still open after %q", got)
	}
	return got
}

// TestDataWithEncryptionRequest: a client that sends its StartupMessage
// with its SSLRequest or GSSENCRequest, before the answer, gets from the
// server through pgtrace exactly what it gets from the server directly
// (PostgreSQL and codec/server refuse such bytes after an 'N' with FATAL
// 08P01, CVE-2021-23214): the proxy passes them on as they came, with the
// request, and relays the rest undecoded.
func TestDataWithEncryptionRequest(t *testing.T) {
	ours := serveAt(t, "127.0.0.1:0", func(nc net.Conn) { server.Accept(nc, &server.Config{}) })
	for _, c := range []struct {
		name, upstream string
		req            codec.Message
	}{
		{"PostgreSQL 15", pgtest.Get(t).Addr(), &codec.SSLRequest{}},
		{"codec/server", ours, &codec.SSLRequest{}},
		{"codec/server", ours, &codec.GSSEncRequest{}},
	} {
		tr := startTrace(t, Options{Upstream: c.upstream, Out: &syncBuffer{}})
		wire := withStartup(t, c.req)
		direct, through := readAll(t, dial(t, c.upstream), wire), readAll(t, dial(t, tr.addr), wire)
		if !bytes.Contains(direct, []byte("C08P01\x00Mreceived unencrypted data after ")) || !bytes.Equal(through, direct) {
			t.Errorf("%s, %s with a StartupMessage: directly %q, through pgtrace %q", c.name, c.req.Slug(), direct, through)
		}
		waitSessions(t, tr, 0)
		if want := "the client sent bytes before the answer to its encryption request"; !strings.Contains(tr.logged(), want) {
			t.Errorf("%s: log %q, want %q", c.name, tr.logged(), want)
		}
	}
}

// TestNegotiateAsPostgreSQL: where pgtrace answers the encryption requests
// itself (--tls-cert), it answers as PostgreSQL 17 on: bytes that came with
// a request get FATAL 08P01 after its 'N' and fail the handshake after its
// 'S'; through direct TLS an SSLRequest or GSSENCRequest is answered 'N'
// and the session goes on.
func TestNegotiateAsPostgreSQL(t *testing.T) {
	s := pgtest.Get(t)
	certs := testcert.New(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Out: &syncBuffer{}, ClientTLS: certs.Server()})
	wantFatal := func(what string, got []byte, request string) {
		t.Helper()
		fr := codec.NewFrameReader(bytes.NewReader(got))
		frame, err := fr.Next()
		var be codec.Backend
		m, derr := be.Decode(frame, codec.Params{})
		e, ok := m.(*codec.ErrorResponse)
		if err != nil || derr != nil || !ok {
			t.Fatalf("%s: %q (%v, %v)", what, got, err, derr)
		}
		if pe := session.NewError(e.Fields); pe.Severity() != "FATAL" || pe.SQLState() != "08P01" || pe.Message() != "received unencrypted data after "+request ||
			pe.Detail() != "This could be either a client-software bug or evidence of an attempted man-in-the-middle attack." {
			t.Errorf("%s: %v (detail %q)", what, pe, pe.Detail())
		}
	}

	got := readAll(t, dial(t, tr.addr), withStartup(t, &codec.GSSEncRequest{}))
	if len(got) == 0 || got[0] != 'N' {
		t.Fatalf("GSSENCRequest with a StartupMessage: %q", got)
	}
	wantFatal("GSSENCRequest with a StartupMessage", got[1:], "GSSAPI encryption request")
	if got := readAll(t, dial(t, tr.addr), withStartup(t, &codec.SSLRequest{})); string(got) != "S" {
		t.Errorf("SSLRequest with a StartupMessage: %q, want 'S' and the connection closed", got)
	}

	direct := certs.Client()
	direct.NextProtos = []string{"postgresql"}
	for _, pipelined := range []bool{false, true} {
		c := tlsDial(t, tr.addr, direct)
		if pipelined {
			got := readAll(t, c, withStartup(t, &codec.SSLRequest{}))
			if len(got) == 0 || got[0] != 'N' {
				t.Fatalf("SSLRequest with a StartupMessage through direct TLS: %q", got)
			}
			wantFatal("SSLRequest with a StartupMessage through direct TLS", got[1:], "SSL request")
			continue
		}
		for _, req := range []codec.Message{&codec.SSLRequest{}, &codec.GSSEncRequest{}} {
			if ok, err := session.RequestEncryption(c, req); ok || err != nil {
				t.Fatalf("%s through direct TLS: accepted %v, %v", req.Slug(), ok, err)
			}
		}
		sc := session.NewConn(c)
		if err := sc.Startup(session.Config{User: pgtest.Superuser.Name, Database: pgtest.Database}); err != nil {
			t.Fatalf("through direct TLS after two 'N': %v", err)
		}
	}
}
