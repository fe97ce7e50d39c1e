package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
	"github.com/pgspec/pgspec/internal/testcert"
)

var p30 = codec.Params{Major: 18}

// TestStartupProtocols: 3.0 gets a 4-byte cancel key, 3.2 a 32-byte one;
// 3.9999 (libpq 19's greasing) with a "_pq_." option gets
// NegotiateProtocolVersion offering 3.2 and naming the option; the
// session then runs a query in the version it negotiated.
func TestStartupProtocols(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	for _, c := range []struct {
		ask     session.ProtocolVersion
		options map[string]string
		want    session.ProtocolVersion
		keyLen  int
	}{
		{session.Protocol30, nil, session.Protocol30, 4},
		{session.Protocol32, nil, session.Protocol32, 32},
		{3<<16 | 9999, map[string]string{"_pq_.grease": "1"}, session.Protocol32, 32},
		{session.Protocol30, map[string]string{"_pq_.compression": "on"}, session.Protocol30, 4},
	} {
		conn := login(t, addr, session.Config{Protocol: c.ask, ProtocolOptions: c.options})
		var wantOpts []string
		for k := range c.options {
			wantOpts = append(wantOpts, k)
		}
		if conn.Protocol != c.want || len(conn.SecretKey) != c.keyLen || !slices.Equal(conn.UnrecognizedOptions, wantOpts) ||
			conn.Server["server_version"] != "18.0" || conn.Server["session_authorization"] != "app" || conn.AuthMethod != "trust" {
			t.Errorf("asked %s %v: protocol %s, key %d bytes, unrecognized %v, params %v, auth %q", c.ask, c.options, conn.Protocol, len(conn.SecretKey), conn.UnrecognizedOptions, conn.Server, conn.AuthMethod)
		}
		if err := conn.Send(&codec.Query{String: "rows 2"}); err != nil {
			t.Fatal(err)
		}
		wantSlugs(t, conn, "row-description data-row data-row command-complete:SELECT 2 ready-for-query:I")
	}
}

// TestStartupRefusals: what PostgreSQL refuses before authentication, with
// its SQLSTATE and message: protocol 2.0, no user, a second SSLRequest
// after TLS, a StartupMessage without its terminator, and an encryption
// request asked again after its 'N' (ProcessStartupPacket's ssl_done and
// gss_done), also after both were refused.
func TestStartupRefusals(t *testing.T) {
	pair := testcert.New(t)
	addr, _ := serve(t, server.Config{TLS: &tls.Config{Certificates: []tls.Certificate{pair.Cert}}})
	plainAddr, _ := serve(t, server.Config{})
	refused := func(nc net.Conn, reqs ...codec.Message) net.Conn {
		for _, req := range reqs {
			if ok, err := session.RequestEncryption(nc, req); ok || err != nil {
				t.Fatalf("%s: accepted %v, %v", req.Slug(), ok, err)
			}
		}
		return nc
	}
	sent := func(nc net.Conn, msgs ...codec.Message) net.Conn {
		send(t, nc, p30, msgs...)
		return nc
	}
	acceptedSSL := func(nc net.Conn) net.Conn {
		if ok, err := session.RequestEncryption(nc, &codec.SSLRequest{}); !ok || err != nil {
			t.Fatalf("SSLRequest: %v, %v", ok, err)
		}
		return tls.Client(nc, pair.Client())
	}
	noTerminator, _ := (&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "app"}}}).Encode(nil, p30)
	noTerminator = noTerminator[:len(noTerminator)-1]
	binary.BigEndian.PutUint32(noTerminator, uint32(len(noTerminator)))
	for _, c := range []struct {
		name    string
		addr    string
		write   func(nc net.Conn) net.Conn
		state   string
		message string
	}{
		{"protocol 2.0", addr, func(nc net.Conn) net.Conn {
			send(t, nc, p30, &codec.StartupMessage{ProtocolVersion: 2 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "app"}}})
			return nc
		}, "0A000", "unsupported frontend protocol 2.0: server supports 3.0 to 3.2"},
		{"no user", addr, func(nc net.Conn) net.Conn {
			send(t, nc, p30, &codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "database", Value: "db"}}})
			return nc
		}, "28000", "no PostgreSQL user name specified in startup packet"},
		{"SSLRequest inside TLS", addr, func(nc net.Conn) net.Conn { return sent(acceptedSSL(nc), &codec.SSLRequest{}) }, "0A000", "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.2"},
		{"no terminator", addr, func(nc net.Conn) net.Conn {
			nc.Write(noTerminator)
			return nc
		}, "08P01", "invalid startup packet layout: expected terminator as last byte"},
		{"SSLRequest after its N", plainAddr, func(nc net.Conn) net.Conn {
			refused(nc, &codec.SSLRequest{})
			send(t, nc, p30, &codec.SSLRequest{})
			return nc
		}, "0A000", "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.2"},
		{"GSSENCRequest after its N", plainAddr, func(nc net.Conn) net.Conn {
			refused(nc, &codec.GSSEncRequest{})
			send(t, nc, p30, &codec.GSSEncRequest{})
			return nc
		}, "0A000", "unsupported frontend protocol 1234.5680: server supports 3.0 to 3.2"},
		{"GSSENCRequest after both N", plainAddr, func(nc net.Conn) net.Conn {
			refused(nc, &codec.SSLRequest{}, &codec.GSSEncRequest{})
			send(t, nc, p30, &codec.GSSEncRequest{})
			return nc
		}, "0A000", "unsupported frontend protocol 1234.5680: server supports 3.0 to 3.2"},
		{"GSSENCRequest inside TLS", addr, func(nc net.Conn) net.Conn { return sent(acceptedSSL(nc), &codec.GSSEncRequest{}) }, "0A000", "unsupported frontend protocol 1234.5680: server supports 3.0 to 3.2"},
		{"SSLRequest after its N through direct TLS", addr, func(nc net.Conn) net.Conn {
			return sent(refused(tls.Client(nc, directTLS(pair)), &codec.SSLRequest{}), &codec.SSLRequest{})
		}, "0A000", "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.2"},
		{"GSSENCRequest after both N through direct TLS", addr, func(nc net.Conn) net.Conn {
			return sent(refused(tls.Client(nc, directTLS(pair)), &codec.GSSEncRequest{}, &codec.SSLRequest{}), &codec.GSSEncRequest{})
		}, "0A000", "unsupported frontend protocol 1234.5680: server supports 3.0 to 3.2"},
		{"StartupMessage with the SSLRequest through direct TLS", addr, func(nc net.Conn) net.Conn {
			tc := tls.Client(nc, directTLS(pair))
			send(t, tc, p30, &codec.SSLRequest{}, (session.Config{User: "app"}).StartupMessage())
			wantAnswer(t, tc, 'N')
			return tc
		}, "08P01", "received unencrypted data after SSL request"},
	} {
		nc := c.write(dial(t, c.addr))
		if e := fatalFrom(t, nc, p30); e == nil || e.SQLState() != c.state || e.Severity() != "FATAL" || e.Message() != c.message {
			t.Errorf("%s: got %v, want FATAL %s %q", c.name, e, c.state, c.message)
		}
	}
}

// directTLS is pair's client configuration for direct TLS: ALPN
// "postgresql".
func directTLS(pair *testcert.Pair) *tls.Config {
	cfg := pair.Client()
	cfg.NextProtos = []string{"postgresql"}
	return cfg
}

// wantAnswer reads the one-byte answer to an encryption request.
func wantAnswer(t *testing.T, nc net.Conn, want byte) {
	t.Helper()
	var b [1]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil || b[0] != want {
		t.Fatalf("answered %q, %v; want %q", b[0], err, want)
	}
}

// TestEncryption: without a TLS configuration SSLRequest and GSSENCRequest
// are answered 'N' and the session goes on in plaintext; with one,
// SSLRequest starts TLS, and so does a TLS handshake as the first bytes
// (direct TLS), which must negotiate ALPN "postgresql".
func TestEncryption(t *testing.T) {
	plainAddr, _ := serve(t, server.Config{})
	var c *session.Conn
	for _, order := range [][]codec.Message{{&codec.GSSEncRequest{}, &codec.SSLRequest{}}, {&codec.SSLRequest{}, &codec.GSSEncRequest{}}} {
		nc := dial(t, plainAddr)
		for _, req := range order {
			if ok, err := session.RequestEncryption(nc, req); ok || err != nil {
				t.Errorf("%s without TLS: accepted %v, %v", req.Slug(), ok, err)
			}
		}
		c = session.NewConn(nc)
		if err := c.Startup(session.Config{User: "app"}); err != nil {
			t.Fatalf("plaintext after two 'N' (%s first): %v", order[0].Slug(), err)
		}
	}

	pair := testcert.New(t)
	addr, _ := serve(t, server.Config{TLS: &tls.Config{Certificates: []tls.Certificate{pair.Cert}}})
	nc := dial(t, addr)
	if ok, err := session.RequestEncryption(nc, &codec.SSLRequest{}); !ok || err != nil {
		t.Fatalf("SSLRequest with TLS: %v, %v", ok, err)
	}
	tc := tls.Client(nc, pair.Client())
	if err := session.NewConn(tc).Startup(session.Config{User: "app"}); err != nil {
		t.Fatalf("after SSLRequest: %v", err)
	}

	direct := directTLS(pair)
	tc = tls.Client(dial(t, addr), direct)
	c = session.NewConn(tc)
	if err := c.Startup(session.Config{User: "app"}); err != nil || tc.ConnectionState().NegotiatedProtocol != "postgresql" {
		t.Fatalf("direct TLS: %v (ALPN %q)", err, tc.ConnectionState().NegotiatedProtocol)
	}
	if err := c.Send(&codec.Query{String: "rows 1"}); err != nil {
		t.Fatal(err)
	}
	wantSlugs(t, c, "row-description data-row command-complete:SELECT 1 ready-for-query:I")

	// Through direct TLS, SSLRequest and GSSENCRequest are answered 'N'
	// (PostgreSQL 17 on: TLS is in use), and the session goes on in it.
	for _, order := range [][]codec.Message{{&codec.GSSEncRequest{}, &codec.SSLRequest{}}, {&codec.SSLRequest{}}} {
		tc = tls.Client(dial(t, addr), direct)
		for _, req := range order {
			if ok, err := session.RequestEncryption(tc, req); ok || err != nil {
				t.Errorf("%s through direct TLS: accepted %v, %v", req.Slug(), ok, err)
			}
		}
		c = session.NewConn(tc)
		if err := c.Startup(session.Config{User: "app"}); err != nil {
			t.Fatalf("through direct TLS after %d 'N': %v", len(order), err)
		}
		if err := c.Send(&codec.Query{String: "rows 1"}); err != nil {
			t.Fatal(err)
		}
		wantSlugs(t, c, "row-description data-row command-complete:SELECT 1 ready-for-query:I")
	}

	tc = tls.Client(dial(t, addr), pair.Client()) // no ALPN
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	if e := fatalFrom(t, tc, p30); e == nil || e.SQLState() != "08P01" {
		t.Errorf("direct TLS without ALPN: %v, want FATAL 08P01", e)
	}
	if _, err := session.RequestEncryption(dial(t, plainAddr), &codec.SSLRequest{}); err != nil {
		t.Fatal(err)
	}
	tc = tls.Client(dial(t, plainAddr), direct)
	if err := tc.Handshake(); err == nil {
		t.Error("direct TLS to a server without TLS completed a handshake")
	}
}

// TestAuthentication: each method logs in with the password and refuses
// another one with 28P01.
func TestAuthentication(t *testing.T) {
	for _, c := range []struct {
		method server.Method
		name   string
	}{{server.Cleartext, "password"}, {server.MD5, "md5"}, {server.SCRAM, session.SCRAMSHA256}} {
		addr, _ := serve(t, server.Config{Authenticate: func(st *server.Startup) (server.Credential, error) {
			if st.User != "app" || st.Database != "shop" {
				return server.Credential{}, errors.New("no such user")
			}
			return server.Credential{Method: c.method, Password: "s3cret"}, nil
		}})
		conn := login(t, addr, session.Config{Password: "s3cret", Database: "shop"})
		if conn.AuthMethod != c.name {
			t.Errorf("%s: logged in with %q", c.name, conn.AuthMethod)
		}
		var e *session.Error
		err := session.NewConn(dial(t, addr)).Startup(session.Config{User: "app", Password: "wrong", Database: "shop"})
		if !errors.As(err, &e) || e.SQLState() != "28P01" || e.Message() != `password authentication failed for user "app"` {
			t.Errorf("%s with a wrong password: %v", c.name, err)
		}
		err = session.NewConn(dial(t, addr)).Startup(session.Config{User: "app", Password: "s3cret", Database: "other"})
		if !errors.As(err, &e) || e.SQLState() != "28000" {
			t.Errorf("%s refused by Authenticate: %v", c.name, err)
		}
	}
}

// TestSCRAMPlus: over TLS the server offers SCRAM-SHA-256-PLUS first; a
// client bound to the server's certificate logs in, one that answers "y"
// (a downgrade: it thinks the server cannot bind) is refused with 28000.
func TestSCRAMPlus(t *testing.T) {
	pair := testcert.New(t)
	addr, _ := serve(t, server.Config{TLS: &tls.Config{Certificates: []tls.Certificate{pair.Cert}},
		Authenticate: func(*server.Startup) (server.Credential, error) {
			return server.Credential{Method: server.SCRAM, Password: "s3cret"}, nil
		}})
	start := func() (*session.Conn, net.Conn, *codec.AuthenticationSASL) {
		nc := dial(t, addr)
		if ok, err := session.RequestEncryption(nc, &codec.SSLRequest{}); !ok || err != nil {
			t.Fatal(ok, err)
		}
		tc := tls.Client(nc, pair.Client())
		c := session.NewConn(tc)
		if err := c.Send((session.Config{User: "app"}).StartupMessage()); err != nil {
			t.Fatal(err)
		}
		c.P.ProtocolMinor = 2 // what the StartupMessage asked for
		m, err := c.Receive()
		if err != nil {
			t.Fatal(err)
		}
		return c, tc, m.(*codec.AuthenticationSASL)
	}
	c, tc, offer := start()
	if !slices.Equal(offer.AuthMechanisms, []string{session.SCRAMSHA256Plus, session.SCRAMSHA256}) {
		t.Fatalf("offered %q", offer.AuthMechanisms)
	}
	binding, err := session.TLSServerEndPoint(tc.(*tls.Conn).ConnectionState().PeerCertificates[0])
	if err != nil {
		t.Fatal(err)
	}
	scram, _ := session.NewSCRAM("s3cret")
	scram.ChannelBinding = binding
	if err := c.Send(&codec.SASLInitialResponse{AuthMechanism: session.SCRAMSHA256Plus, Data: scram.ClientFirst()}); err != nil {
		t.Fatal(err)
	}
	m, err := c.Receive()
	if err != nil {
		t.Fatal(err)
	}
	final, err := scram.ClientFinal(m.(*codec.AuthenticationSASLContinue).Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(&codec.SASLResponse{Data: final}); err != nil {
		t.Fatal(err)
	}
	m, err = c.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if err := scram.VerifyServerFinal(m.(*codec.AuthenticationSASLFinal).Data); err != nil {
		t.Fatal(err)
	}
	if got := slugs(t, c); got[0] != "authentication-ok" || got[len(got)-1] != "ready-for-query:I" {
		t.Errorf("after PLUS: %v", got)
	}

	c, tc, _ = start()
	if err := c.Send(&codec.SASLInitialResponse{AuthMechanism: session.SCRAMSHA256, Data: []byte("y,,n=,r=clientnonce")}); err != nil {
		t.Fatal(err)
	}
	if e := fatalFrom(t, tc, p30); e == nil || e.SQLState() != "28000" || e.Message() != "SCRAM channel binding negotiation error" {
		t.Errorf("y over TLS: %v", e)
	}
}

// TestPreAuthLimits: a startup packet over 10,000 bytes and an
// authentication message over 65,535 close the connection unanswered, as
// does a client that says nothing for AuthTimeout.
func TestPreAuthLimits(t *testing.T) {
	addr, _ := serve(t, server.Config{AuthTimeout: 300 * time.Millisecond, Authenticate: func(*server.Startup) (server.Credential, error) {
		return server.Credential{Method: server.Cleartext, Password: "pw"}, nil
	}})
	nc := dial(t, addr)
	var big [8]byte
	binary.BigEndian.PutUint32(big[:], server.MaxStartupPacket+1)
	binary.BigEndian.PutUint32(big[4:], 3<<16)
	nc.Write(big[:])
	// The rest of the packet is never read: the close may come as a reset.
	if n, err := io.ReadAll(nc); len(n) != 0 || err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("a 10,001-byte startup packet: answered %q, %v", n, err)
	}

	nc = dial(t, addr)
	send(t, nc, p30, (session.Config{User: "app"}).StartupMessage())
	fr := codec.NewFrameReader(nc)
	if frame, err := fr.Next(); err != nil || frame[0] != 'R' {
		t.Fatalf("no password request: %q, %v", frame, err)
	}
	hdr := []byte{'p', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(hdr[1:], server.MaxAuthMessage+1)
	nc.Write(hdr)
	if frame, err := fr.Next(); err != io.EOF {
		t.Errorf("a 65,536-byte password message: answered %q, %v", frame, err)
	}

	nc = dial(t, addr)
	began := time.Now()
	if n, err := io.ReadAll(nc); len(n) != 0 || err != nil || time.Since(began) > 5*time.Second {
		t.Errorf("a silent client: answered %q, %v after %v", n, err, time.Since(began))
	}
}

// TestCancel: a CancelRequest with the session's process ID and key
// cancels its running statement (57014) and the session goes on; a wrong
// key cancels nothing.
func TestCancel(t *testing.T) {
	addr, _ := serve(t, server.Config{})
	c := login(t, addr, session.Config{})
	startSleep(t, c)
	cancel := func(key []byte) {
		send(t, dial(t, addr), codec.Params{Major: 18, ProtocolMinor: 2}, &codec.CancelRequest{ProcessID: c.ProcessID, SecretKey: key})
	}
	wrong := append([]byte(nil), c.SecretKey...)
	wrong[0] ^= 1
	cancel(wrong)
	cancel(c.SecretKey[:4])
	got := make(chan []string, 1)
	go func() { got <- slugs(t, c) }()
	select {
	case s := <-got:
		t.Fatalf("a wrong key cancelled: %v", s)
	case <-time.After(300 * time.Millisecond):
	}
	cancel(c.SecretKey)
	if s := <-got; !slices.Equal(s, []string{"error-response:57014", "ready-for-query:I"}) {
		t.Errorf("cancelled: %v", s)
	}
	if err := c.Send(&codec.Query{String: "rows 1"}); err != nil {
		t.Fatal(err)
	}
	wantSlugs(t, c, "row-description data-row command-complete:SELECT 1 ready-for-query:I")
}

// TestDataAfterSSLRequest: a StartupMessage sent in plaintext right after
// SSLRequest, before the TLS handshake, is never taken for the client's
// (CVE-2021-23222's server side): the server answers 'S' and reads those
// bytes as the handshake, which fails, as PostgreSQL 17 on does (to 16 it
// ran the handshake past them and then sent FATAL 08P01 through it).
func TestDataAfterSSLRequest(t *testing.T) {
	pair := testcert.New(t)
	addr, errs := serve(t, server.Config{TLS: pair.Server()})
	nc := dial(t, addr)
	send(t, nc, p30, &codec.SSLRequest{}, (session.Config{User: "app"}).StartupMessage())
	answer, err := io.ReadAll(nc)
	if len(answer) == 0 || answer[0] != 'S' || bytes.Contains(answer, []byte("R\x00\x00\x00\x08")) || err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("answered %q, %v", answer, err)
	}
	if err := <-errs; err == nil || !strings.Contains(err.Error(), "TLS handshake") {
		t.Errorf("the session ended with %v", err)
	}
}

// TestClientHelloWithSSLRequest: a client that sends its ClientHello with
// the SSLRequest, not waiting for the 'S', gets its session: the bytes that
// came with the request are the handshake's, as in PostgreSQL 17 on.
func TestClientHelloWithSSLRequest(t *testing.T) {
	pair := testcert.New(t)
	addr, _ := serve(t, server.Config{TLS: pair.Server()})
	req, _ := (&codec.SSLRequest{}).Encode(nil, p30)
	nc := &sslFirst{Conn: dial(t, addr), req: req}
	if err := session.NewConn(tls.Client(nc, pair.Client())).Startup(session.Config{User: "app"}); err != nil || string(nc.answer) != "S" {
		t.Errorf("answered %q; the session: %v", nc.answer, err)
	}
}

// sslFirst sends req in one write with the TLS client's first (its
// ClientHello), and takes the one-byte answer off what it reads first.
type sslFirst struct {
	net.Conn
	req, answer []byte
}

func (c *sslFirst) Write(b []byte) (int, error) {
	if c.req == nil {
		return c.Conn.Write(b)
	}
	_, err := c.Conn.Write(append(c.req, b...))
	c.req = nil
	return len(b), err
}

func (c *sslFirst) Read(b []byte) (int, error) {
	if c.answer == nil {
		c.answer = make([]byte, 1)
		if _, err := io.ReadFull(c.Conn, c.answer); err != nil {
			return 0, err
		}
	}
	return c.Conn.Read(b)
}

// TestDataWithEncryptionRequest: bytes that came with an SSLRequest or a
// GSSENCRequest, before its 'N', get PostgreSQL's FATAL 08P01 (CVE-2021-23214):
// the same bytes get the same answer from codec/server and PostgreSQL 15.
func TestDataWithEncryptionRequest(t *testing.T) {
	ours, _ := serve(t, server.Config{})
	pg := pgtest.Get(t)
	startup := (session.Config{User: pgtest.Superuser.Name, Database: pgtest.Database}).StartupMessage()
	for _, c := range []struct {
		req     codec.Message
		message string
	}{
		{&codec.SSLRequest{}, "received unencrypted data after SSL request"},
		{&codec.GSSEncRequest{}, "received unencrypted data after GSSAPI encryption request"},
	} {
		for _, to := range []struct{ name, network, addr string }{
			{"codec/server", "tcp", ours},
			// Over its socket, where it answers both requests 'N' (on TCP
			// Debian's build accepts GSSAPI encryption: 'G').
			{"PostgreSQL 15", "unix", filepath.Join(pg.SocketDir, ".s.PGSQL."+strconv.Itoa(pg.Port))},
		} {
			nc, err := net.Dial(to.network, to.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			send(t, nc, p30, c.req, startup)
			wantAnswer(t, nc, 'N')
			e := fatalFrom(t, nc, p30)
			if e == nil || e.Severity() != "FATAL" || e.SQLState() != "08P01" || e.Message() != c.message ||
				e.Detail() != "This could be either a client-software bug or evidence of an attempted man-in-the-middle attack." {
				t.Errorf("%s, %s with a StartupMessage: %v (detail %q), want FATAL 08P01 %q", to.name, c.req.Slug(), e, e.Detail(), c.message)
			}
		}
	}
}

// TestShutdown: when the server's context ends, a session between queries
// gets PostgreSQL's FATAL 57P01 and one still starting up is closed.
func TestShutdown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&server.Server{Handler: testHandler{}}).Serve(ctx, l) }()
	c := login(t, l.Addr().String(), session.Config{})
	starting := dial(t, l.Addr().String())
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m, err := c.Receive(); err != nil || m.Slug() != "error-response" || session.NewError(m.(*codec.ErrorResponse).Fields).SQLState() != "57P01" {
		t.Errorf("an idle session: %v, %v", m, err)
	}
	// Closed, or reset when the listener closed before accepting it.
	if n, err := io.ReadAll(starting); len(n) != 0 || err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("a session in its startup: %q, %v", n, err)
	}
}

// TestShutdownAsStartupEnds: a shutdown that comes after the client read
// ReadyForQuery but before the server's start-up ended still gives the
// session its 57P01 (the start-up's watch had put the write deadline in the
// past, so the FATAL was lost and the client read a bare EOF).
func TestShutdownAsStartupEnds(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer server.SetTestHookAccepted(func() { cancel(); time.Sleep(20 * time.Millisecond) })()
	done := make(chan error, 1)
	go func() { done <- (&server.Server{Handler: testHandler{}}).Serve(ctx, l) }()
	c := login(t, l.Addr().String(), session.Config{})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m, err := c.Receive(); err != nil || m.Slug() != "error-response" || session.NewError(m.(*codec.ErrorResponse).Fields).SQLState() != "57P01" {
		t.Errorf("a session whose start-up ended with the shutdown: %v, %v", m, err)
	}
}

// TestMaxConns: past MaxConns a client still gets 'N' to its SSLRequest,
// as from PostgreSQL, then FATAL 53300; a CancelRequest is still handled,
// and once a session ends another may start.
func TestMaxConns(t *testing.T) {
	addr, _ := serve(t, server.Config{MaxConns: 1})
	first := login(t, addr, session.Config{})
	startSleep(t, first)
	nc := dial(t, addr)
	if ok, err := session.RequestEncryption(nc, &codec.SSLRequest{}); ok || err != nil {
		t.Fatalf("SSLRequest past MaxConns: %v, %v", ok, err)
	}
	err := session.NewConn(nc).Startup(session.Config{User: "app"})
	var e *session.Error
	if !errors.As(err, &e) || e.SQLState() != "53300" || e.Message() != "sorry, too many clients already" {
		t.Errorf("past MaxConns: %v", err)
	}
	// What came with the SSLRequest is refused first, as PostgreSQL's
	// ProcessStartupPacket refuses it before the limit.
	nc = dial(t, addr)
	send(t, nc, p30, &codec.SSLRequest{}, (session.Config{User: "app"}).StartupMessage())
	wantAnswer(t, nc, 'N')
	if e := fatalFrom(t, nc, p30); e == nil || e.SQLState() != "08P01" {
		t.Errorf("past MaxConns, a StartupMessage with the SSLRequest: %v, want FATAL 08P01", e)
	}
	send(t, dial(t, addr), codec.Params{Major: 18, ProtocolMinor: 2}, &codec.CancelRequest{ProcessID: first.ProcessID, SecretKey: first.SecretKey})
	if got := slugs(t, first); !slices.Equal(got, []string{"error-response:57014", "ready-for-query:I"}) {
		t.Errorf("cancel past MaxConns: %v", got)
	}
	first.Terminate()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		err := session.NewConn(dial(t, addr)).Startup(session.Config{User: "app"})
		if err == nil {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("after the first session ended: %v", err)
		}
	}
}
