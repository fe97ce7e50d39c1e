package trace

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// With Options.ClientTLS or Options.UpstreamTLS set, the proxy negotiates
// encryption with each side itself instead of relaying it: it is the TLS
// server its clients talk to and a TLS client of the upstream, so that
// every message between them is seen in the clear and decoded. Without
// them a session that turns to TLS is relayed undecoded.

// terminates reports whether the proxy negotiates encryption itself.
func (p *Proxy) terminates() bool { return p.opts.ClientTLS != nil || p.opts.UpstreamTLS != nil }

// negotiate answers the client's encryption requests in the proxy's own
// name, as PostgreSQL 17 on does: a direct TLS handshake or SSLRequest is
// taken up when ClientTLS is set ('S'); GSSENCRequest, an SSLRequest
// without ClientTLS and either through direct TLS are declined ('N'), and
// bytes that came with a request before its 'N' get PostgreSQL's FATAL
// 08P01 (after an 'S' they are the handshake's). The requests and answers
// are printed like any message; the packet that follows (StartupMessage or
// CancelRequest) is left for the startup relay, read through TLS where it
// was taken up.
func (s *proxySession) negotiate(fp, bp *pump) bool {
	var first [1]byte
	if _, err := io.ReadFull(s.client, first[:]); err != nil {
		return false
	}
	raw := &prefixConn{Conn: s.client, pre: first[:]}
	inTLS := codec.IsDirectTLS(first[0]) && s.p.opts.ClientTLS != nil
	if inTLS {
		if err := s.c.directTLS(); err != nil {
			s.p.logf("session #%d: %v", s.c.id, err)
		}
		if !s.acceptTLS(fp, bp, raw, true) {
			return false
		}
	} else {
		s.setClient(fp, bp, raw)
	}
	fr := startupReader(s.client)
	for range 3 { // GSSENCRequest and SSLRequest, each at most once, then the startup packet
		frame, err := fr.NextUntagged()
		var st codec.Startup
		m, derr := st.Decode(frame, codec.Params{})
		_, ssl := m.(*codec.SSLRequest)
		if _, gss := m.(*codec.GSSEncRequest); err != nil || derr != nil || !ssl && !gss {
			if errors.Is(err, io.EOF) {
				return false
			}
			// The startup packet, or bytes that are none: the relay's.
			s.setClient(fp, bp, &prefixConn{Conn: s.client, pre: fr.Drain(append([]byte(nil), frame...))})
			return true
		}
		fp.lines, _, _ = fp.examine(frame, time.Now(), fp.lines)
		answer := byte('N')
		if ssl && s.p.opts.ClientTLS != nil && !inTLS {
			answer = 'S'
		}
		if _, err := s.client.Write([]byte{answer}); err != nil {
			return false
		}
		bp.lines, _, _ = bp.examine([]byte{answer}, time.Now(), bp.lines)
		if answer == 'S' {
			return s.acceptTLS(fp, bp, &prefixConn{Conn: s.client, pre: fr.Drain(nil)}, false)
		}
		if e := early(s.client, fr, ssl); e != nil {
			s.p.logf("session #%d: the client sent bytes before the answer to its encryption request; refused as PostgreSQL does", s.c.id)
			bp.lines, _, _ = bp.examine(e, time.Now(), bp.lines)
			return false
		}
	}
	s.p.logf("session #%d: more than two encryption requests; closing the session", s.c.id)
	return false
}

// early refuses the bytes fr read with an encryption request (an SSLRequest
// when ssl), before its 'N', with PostgreSQL's FATAL 08P01 (CVE-2021-23214),
// and returns that ErrorResponse; nil when none came.
func early(c net.Conn, fr *codec.FrameReader, ssl bool) []byte {
	if fr.Buffered() == 0 {
		return nil
	}
	request := "GSSAPI encryption request"
	if ssl {
		request = "SSL request"
	}
	e := fatal("08P01", "received unencrypted data after "+request, "This could be either a client-software bug or evidence of an attempted man-in-the-middle attack.")
	c.Write(e)
	return e
}

// acceptTLS runs the server side of the client's TLS handshake; direct is
// a handshake without SSLRequest, which must negotiate ALPN "postgresql".
func (s *proxySession) acceptTLS(fp, bp *pump, raw net.Conn, direct bool) bool {
	cfg := s.p.opts.ClientTLS
	if direct {
		cfg = cfg.Clone()
		cfg.NextProtos = []string{codec.DirectTLSALPN}
	}
	tc := tls.Server(raw, cfg)
	if err := tc.Handshake(); err != nil {
		s.p.logf("session #%d: client TLS handshake: %v; closing the session", s.c.id, err)
		return false
	}
	if direct && tc.ConnectionState().NegotiatedProtocol != codec.DirectTLSALPN {
		s.p.logf("session #%d: direct TLS without ALPN %q; closing the session", s.c.id, codec.DirectTLSALPN)
		return false
	}
	s.c.decrypted() // the proxy is the TLS end: what comes through it can be read
	s.setClient(fp, bp, tc)
	return true
}

// setClient puts c in place of the client connection the pumps use.
func (s *proxySession) setClient(fp, bp *pump, c net.Conn) {
	s.mu.Lock()
	s.client = c
	s.mu.Unlock()
	fp.src, bp.dst = c, c
}

// dialUpstream connects to the server, over TLS when UpstreamTLS is set:
// SSLRequest first, then the handshake, verified as the config says. A
// server that declines TLS is refused, as libpq's sslmode=require does.
func (p *Proxy) dialUpstream() (net.Conn, error) {
	c, err := net.DialTimeout("tcp", p.opts.Upstream, p.opts.DialTimeout)
	if err != nil || p.opts.UpstreamTLS == nil {
		return c, err
	}
	c.SetDeadline(time.Now().Add(p.opts.DialTimeout))
	req, _ := (&codec.SSLRequest{}).Encode(nil, codec.Params{})
	var answer [1]byte
	if _, err = c.Write(req); err == nil {
		_, err = io.ReadFull(c, answer[:])
	}
	switch {
	case err != nil:
	case answer[0] != 'S':
		err = fmt.Errorf("server declined TLS (answered %q to SSLRequest)", answer[0])
	default:
		tc := tls.Client(c, p.opts.UpstreamTLS)
		if err = tc.Handshake(); err == nil {
			c.SetDeadline(time.Time{})
			return tc, nil
		}
		err = fmt.Errorf("TLS: %w", err)
	}
	c.Close()
	return nil, err
}

// prefixConn is a connection whose first bytes were already read: Read
// returns them before reading on.
type prefixConn struct {
	net.Conn
	pre []byte
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(b, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// CloseWrite half-closes the connection underneath.
func (c *prefixConn) CloseWrite() error {
	if w, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return w.CloseWrite()
	}
	return nil
}
