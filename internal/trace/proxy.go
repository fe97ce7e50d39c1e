// Package trace is a PostgreSQL protocol analyzer: a transparent proxy
// (Proxy) and a capture file decoder (DecodeCapture) that decode every
// message in both directions with the generated codec, print it, re-encode
// it and count every message whose re-encoding differs from what was
// received. The proxy forwards the re-encoded bytes: any byte the codec
// cannot reproduce shows up.
//
// It learns what it needs from the traffic itself: the protocol version from
// StartupMessage and NegotiateProtocolVersion, the server's major from the
// server_version ParameterStatus, the authentication state that tells the
// 'p' messages apart, the one-byte answers to SSLRequest and GSSENCRequest,
// and the kind of replication stream (physical, or logical with pgoutput's
// version and options) from the START_REPLICATION command it forwards.
//
// The proxy holds a client to PostgreSQL's own limits before it trusts it
// (startup packet, authentication messages, authentication time), caps the
// number of connections and can drop idle ones; it never prints a secret
// unless asked.
package trace

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// Defaults of the Options limits.
const (
	DefaultMaxConns       = 100
	DefaultStartupTimeout = 60 * time.Second
	DefaultDialTimeout    = 10 * time.Second
)

// Options configure a Proxy.
type Options struct {
	Format
	// Upstream is the server's host:port.
	Upstream string
	// Strict closes a session at the first message that cannot be decoded or
	// whose re-encoding differs, instead of forwarding it as received.
	Strict bool
	// Out receives one line per decoded message; nil discards them.
	Out io.Writer
	// Log receives warnings and errors, one per line.
	Log io.Writer
	// DialTimeout bounds connecting to Upstream; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// MaxMessage bounds a client message after authentication; 0 means
	// PostgreSQL's own limit (codec.DefaultMaxSize). Before, the limits are
	// PostgreSQL's: MaxStartupSize, then MaxAuthSize.
	MaxMessage int
	// MaxConns bounds the sessions open at once; 0 means DefaultMaxConns.
	// A client past it gets PostgreSQL's "too many connections" error.
	MaxConns int
	// StartupTimeout bounds the time from accepting a client to its
	// authentication (PostgreSQL's authentication_timeout); 0 means
	// DefaultStartupTimeout.
	StartupTimeout time.Duration
	// IdleTimeout closes a session when neither side has sent a byte for
	// that long; 0 means never.
	IdleTimeout time.Duration
	// ClientTLS makes the proxy its clients' TLS server: it answers
	// SSLRequest with 'S' and accepts direct TLS (ALPN "postgresql"), and
	// decodes every message inside. UpstreamTLS makes it connect to the
	// server over TLS (SSLRequest, then the handshake, verified as the
	// config says). With either set the proxy negotiates encryption with
	// each side itself (declining what it cannot do with 'N'); with neither
	// a session that turns to TLS or GSSAPI is relayed undecoded.
	ClientTLS, UpstreamTLS *tls.Config
}

// Proxy forwards sessions from a listener to the upstream server.
type Proxy struct {
	analyzer
	opts   Options
	out    *output // message lines
	log    *output // warnings
	nextID atomic.Int64
	wg     sync.WaitGroup

	sessMu   sync.Mutex // taken per session, never per message
	sessions map[*proxySession]bool
	closed   bool
}

// New returns a proxy; call Serve once to run it.
func New(opts Options) *Proxy {
	if opts.Out == nil {
		opts.Out = io.Discard
		opts.Quiet = true
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = codec.DefaultMaxSize
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.StartupTimeout <= 0 {
		opts.StartupTimeout = DefaultStartupTimeout
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	p := &Proxy{opts: opts, log: newOutput(opts.Log, maxLogged, nil)}
	p.init(opts.Format, p.log.sink())
	p.out = newOutput(opts.Out, maxPending, func(total int64) {
		p.logf("output is not being read (stalled or closed): lines dropped so far: %d; traffic is not held back", total)
	})
	return p
}

// CheckUpstream dials the upstream once, so that a wrong address is reported
// at start instead of at the first client.
func (p *Proxy) CheckUpstream() error {
	c, err := p.dialUpstream()
	if err != nil {
		return fmt.Errorf("upstream %s unreachable: %w", p.opts.Upstream, err)
	}
	return c.Close()
}

// Serve accepts clients until l is closed, then waits for their sessions to
// end and for their lines and warnings to be written.
func (p *Proxy) Serve(l net.Listener) error {
	defer p.log.close()
	defer p.out.close()
	defer p.wg.Wait()
	if p.opts.IdleTimeout > 0 {
		stop := make(chan struct{})
		defer close(stop)
		go p.closeIdle(stop)
	}
	for {
		c, err := l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		id := p.nextID.Add(1)
		s := newSession(p, id, c)
		if full := !p.track(s); full {
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.refuse(id, c)
			}()
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(s)
			s.run()
		}()
	}
}

// track adds a session for Close to end; it refuses one past MaxConns or
// after Close.
func (p *Proxy) track(s *proxySession) bool {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	if p.closed || len(p.sessions) >= p.opts.MaxConns {
		return false
	}
	if p.sessions == nil {
		p.sessions = map[*proxySession]bool{}
	}
	p.sessions[s] = true
	return true
}

// untrack removes a session that has ended.
func (p *Proxy) untrack(s *proxySession) {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	delete(p.sessions, s)
}

// refuse answers a client past MaxConns as PostgreSQL answers one past
// max_connections: it reads the start-up packets first, answering SSL as a
// session would (TLS with ClientTLS, else 'N') and declining GSSAPI with
// 'N' (a libpq client that asked for either would otherwise report "error
// response during SSL exchange"), then sends
// "too many clients" in answer to the StartupMessage. A CancelRequest is
// not a session: it is passed on to the server, which closes it.
func (p *Proxy) refuse(id int64, c net.Conn) {
	defer func() { c.Close() }()
	c.SetDeadline(time.Now().Add(time.Second))
	fr := startupReader(c)
	var st codec.Startup
	for range 3 { // SSLRequest and GSSENCRequest, each at most once, then the real packet
		frame, err := fr.NextUntagged()
		if err != nil {
			return
		}
		m, err := st.Decode(frame, codec.Params{})
		switch m.(type) {
		case *codec.CancelRequest:
			p.passCancel(id, frame)
			return
		case *codec.GSSEncRequest:
			if _, err := c.Write([]byte{'N'}); err != nil || early(c, fr, false) != nil {
				return
			}
			continue
		case *codec.SSLRequest:
			next := p.answerSSL(c, fr)
			if next == nil {
				return
			}
			c, fr = next, startupReader(next)
			continue
		}
		if err != nil {
			return
		}
		break
	}
	p.logf("session #%d: refused: %d sessions open (--max-conns)", id, p.opts.MaxConns)
	c.Write(fatal("53300", fmt.Sprintf("sorry, too many clients already (pgtrace --max-conns %d)", p.opts.MaxConns), ""))
}

// fatal is the ErrorResponse PostgreSQL sends when it refuses a client in
// the startup phase.
func fatal(code, message, detail string) []byte {
	e := &codec.ErrorResponse{Fields: []codec.ErrorField{{Code: codec.ErrorFieldSeverity, Value: "FATAL"},
		{Code: codec.ErrorFieldSeverityNonLocalized, Value: "FATAL"}, {Code: codec.ErrorFieldCode, Value: code},
		{Code: codec.ErrorFieldMessage, Value: message}}}
	if detail != "" {
		e.Fields = append(e.Fields, codec.ErrorField{Code: codec.ErrorFieldDetail, Value: detail})
	}
	b, _ := e.Encode(nil, codec.Params{}) // strings without NUL encode
	return b
}

// answerSSL answers an SSLRequest read by fr as a session would: TLS when
// ClientTLS is set (the error then goes inside it, as PostgreSQL's does),
// else 'N' (refusing what came with the request). It returns the
// connection to read on, nil when that failed.
func (p *Proxy) answerSSL(c net.Conn, fr *codec.FrameReader) net.Conn {
	if p.opts.ClientTLS == nil {
		if _, err := c.Write([]byte{'N'}); err != nil || early(c, fr, true) != nil {
			return nil
		}
		return c
	}
	if _, err := c.Write([]byte{'S'}); err != nil {
		return nil
	}
	tc := tls.Server(&prefixConn{Conn: c, pre: fr.Drain(nil)}, p.opts.ClientTLS)
	if tc.Handshake() != nil {
		return nil
	}
	return tc
}

// startupReader frames a client's start-up packets, no longer than
// PostgreSQL accepts.
func startupReader(c net.Conn) *codec.FrameReader {
	fr := codec.NewFrameReader(c)
	fr.MaxSize = MaxStartupSize
	return fr
}

// passCancel forwards a CancelRequest that arrived past MaxConns: it ends
// a query of a session already open, so the limit does not apply to it.
func (p *Proxy) passCancel(id int64, frame []byte) {
	server, err := net.DialTimeout("tcp", p.opts.Upstream, p.opts.DialTimeout)
	if err != nil {
		p.logf("session #%d: CancelRequest past --max-conns: upstream %s unreachable: %v", id, p.opts.Upstream, err)
		return
	}
	defer server.Close()
	server.SetDeadline(time.Now().Add(time.Second))
	server.Write(frame)
	io.Copy(io.Discard, server) // the server closes once it has read the request
}

// Dropped is how many message lines were never written because the output
// was not read fast enough or was closed.
func (p *Proxy) Dropped() int64 { return p.out.Dropped() }

// WarningsDropped is how many warnings were never written because the log
// was not read fast enough or was closed.
func (p *Proxy) WarningsDropped() int64 { return p.log.Dropped() }

// Summary writes the counts of both directions and the lines and warnings dropped.
func (p *Proxy) Summary(w io.Writer) {
	p.analyzer.Summary(w)
	if n := p.Dropped(); n > 0 {
		fmt.Fprintf(w, "lines dropped: %d (the output was not read fast enough, or was closed)\n", n)
	}
	if n := p.WarningsDropped(); n > 0 {
		fmt.Fprintf(w, "warnings dropped: %d (the log was not read fast enough, or was closed)\n", n)
	}
}

// Clean reports whether every message was decoded and re-encoded
// identically and every line and warning written.
func (p *Proxy) Clean() bool {
	return p.analyzer.Clean() && p.Dropped() == 0 && p.WarningsDropped() == 0
}

// closeIdle ends the sessions in which neither side has sent a byte for IdleTimeout.
func (p *Proxy) closeIdle(stop <-chan struct{}) {
	tick := time.NewTicker(max(p.opts.IdleTimeout/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			p.sessMu.Lock()
			for s := range p.sessions {
				if idle := now.Sub(s.lastActive()); idle >= p.opts.IdleTimeout {
					p.logf("session #%d: idle for %s (--idle-timeout %s); closing", s.c.id, idle.Round(time.Millisecond), p.opts.IdleTimeout)
					s.close()
				}
			}
			p.sessMu.Unlock()
		}
	}
}

// Close ends every session in progress and refuses new ones; close the
// listener too so that Serve returns.
func (p *Proxy) Close() {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	p.closed = true
	for s := range p.sessions {
		s.close()
	}
}
