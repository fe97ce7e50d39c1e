package trace

import (
	"crypto/tls"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/pgtest"
	"github.com/pgspec/pgspec/internal/testcert"
)

// TestClientTLS: with ClientTLS the proxy is psql's TLS server
// (sslmode=require): it answers the SSLRequest with 'S' itself, and every
// message of the session inside TLS is decoded and re-encoded identically.
func TestClientTLS(t *testing.T) {
	s := pgtest.Get(t)
	certs := testcert.New(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true, Out: &syncBuffer{}, ClientTLS: certs.Server()})
	cmd := exec.Command(pgtest.Bin("psql"), "-X", "-A", "-t", "-c", "select 'inside ' || 'tls'")
	cmd.Env = append(pgtest.Env(tr.addr, pgtest.SCRAMUser), "PGSSLMODE=verify-full", "PGSSLROOTCERT="+certs.CAFile, "PGHOST=localhost")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "inside tls" {
		t.Fatalf("psql through the TLS proxy: %v\n%s\nproxy log:\n%s", err, out, tr.log)
	}
	lines := tr.lines(t)
	for _, want := range []string{"F @0 SSLRequest", "B @0 SSLResponse Answer='S'", "StartupMessage", "SASLInitialResponse", `Query String="select 'inside ' || 'tls'"`, "DataRow"} {
		if !strings.Contains(lines, want) {
			t.Errorf("no %q in\n%s", want, lines)
		}
	}
	tr.requireClean(t)
}

// TestDirectTLS: a client that starts with a TLS handshake (PostgreSQL 17's
// direct TLS) offering ALPN "postgresql" is served and decoded; one that
// offers no ALPN is refused after the handshake, as PostgreSQL refuses it.
func TestDirectTLS(t *testing.T) {
	s := pgtest.Get(t)
	certs := testcert.New(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true, Out: &syncBuffer{}, ClientTLS: certs.Server()})

	cfg := certs.Client()
	cfg.NextProtos = []string{"postgresql"}
	c := tlsDial(t, tr.addr, cfg)
	if got := c.ConnectionState().NegotiatedProtocol; got != "postgresql" {
		t.Fatalf("ALPN %q", got)
	}
	start, _ := (&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{
		{Name: "user", Value: pgtest.Superuser.Name}, {Name: "database", Value: pgtest.Database}}}).Encode(nil, codec.Params{})
	query, _ := (&codec.Query{String: "select 17"}).Encode(nil, codec.Params{})
	c.Write(start)
	fr := codec.NewFrameReader(c)
	readUntil(t, fr, 'Z')
	c.Write(query)
	if row := readUntil(t, fr, 'D'); !strings.HasSuffix(string(row), "17") {
		t.Errorf("DataRow %q", row)
	}
	readUntil(t, fr, 'Z')
	c.Close()
	if lines := tr.lines(t); !strings.Contains(lines, `Query String="select 17"`) || strings.Contains(lines, "SSLRequest") {
		t.Errorf("lines of a direct TLS session:\n%s", lines)
	}
	tr.requireClean(t)

	noALPN := tlsDial(t, tr.addr, certs.Client())
	noALPN.SetDeadline(time.Now().Add(5 * time.Second))
	if n, err := noALPN.Read(make([]byte, 1)); err == nil {
		t.Errorf("direct TLS without ALPN: read %d bytes, want the connection closed", n)
	}
	waitSessions(t, tr, 0)
	if want := `direct TLS without ALPN "postgresql"; closing the session`; !strings.Contains(tr.logged(), want) {
		t.Errorf("log:\n%s\nwant %q", tr.log, want)
	}
}

func tlsDial(t *testing.T, addr string, cfg *tls.Config) *tls.Conn {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// readUntil reads messages until one with the tag, and returns it.
func readUntil(t *testing.T, fr *codec.FrameReader, tag byte) []byte {
	t.Helper()
	for {
		f, err := fr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f[0] == 'E' {
			t.Fatalf("server error %q", f)
		}
		if f[0] == tag {
			return f
		}
	}
}

// tlsUpstream is a server that takes TLS after SSLRequest with the
// certificate, then lets every client in and answers each query.
func tlsUpstream(t *testing.T, certs *testcert.Pair) string {
	t.Helper()
	var hello, answer []byte
	for _, m := range []codec.Message{&codec.AuthenticationOk{}, &codec.ReadyForQuery{TxStatus: 'I'}} {
		hello, _ = m.Encode(hello, codec.Params{})
	}
	for _, m := range []codec.Message{&codec.CommandComplete{CommandTag: "SELECT 0"}, &codec.ReadyForQuery{TxStatus: 'I'}} {
		answer, _ = m.Encode(answer, codec.Params{})
	}
	return serveAt(t, "127.0.0.1:0", func(c net.Conn) {
		var req [8]byte
		if _, err := io.ReadFull(c, req[:]); err != nil {
			return
		}
		c.Write([]byte{'S'})
		tc := tls.Server(c, certs.Server())
		fr := codec.NewFrameReader(tc)
		if _, err := fr.NextUntagged(); err != nil {
			return
		}
		tc.Write(hello)
		for {
			if _, err := fr.Next(); err != nil {
				return
			}
			tc.Write(answer)
		}
	})
}

// TestUpstreamTLS: with UpstreamTLS the proxy asks the server for TLS and
// verifies it (verify-full: the CA and the name); a plaintext client's
// session is decoded on its way through. A certificate for another name
// is refused when the proxy starts (CheckUpstream) and for every session.
func TestUpstreamTLS(t *testing.T) {
	certs := testcert.New(t, "db.example")
	upstream := tlsUpstream(t, certs)
	tr := startTrace(t, Options{Upstream: upstream, Strict: true, Out: &syncBuffer{}, UpstreamTLS: certs.Client()})
	if err := tr.CheckUpstream(); err != nil {
		t.Fatal(err)
	}
	c := dial(t, tr.addr)
	c.Write(startupPacket(t))
	fr := codec.NewFrameReader(c)
	readUntil(t, fr, 'Z')
	q, _ := (&codec.Query{String: "select over tls"}).Encode(nil, codec.Params{})
	c.Write(q)
	readUntil(t, fr, 'Z')
	c.Close()
	if lines := tr.lines(t); !strings.Contains(lines, `Query String="select over tls"`) || !strings.Contains(lines, "CommandComplete") {
		t.Errorf("lines:\n%s", lines)
	}
	tr.requireClean(t)

	other := certs.Client()
	other.ServerName = "other.example"
	wrong := startTrace(t, Options{Upstream: upstream, UpstreamTLS: other})
	if err := wrong.CheckUpstream(); err == nil || !strings.Contains(err.Error(), "certificate is valid for db.example, not other.example") {
		t.Errorf("CheckUpstream with the wrong name: %v", err)
	}
	c = dial(t, wrong.addr)
	c.Write(startupPacket(t))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("a session went on with an upstream of the wrong name")
	}
	waitSessions(t, wrong, 0)
	if !strings.Contains(wrong.logged(), "unreachable: TLS: tls: failed to verify certificate") {
		t.Errorf("log:\n%s", wrong.log)
	}
}
