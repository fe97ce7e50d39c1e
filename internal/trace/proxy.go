// Package trace is a transparent PostgreSQL proxy that decodes every message
// in both directions with the generated codec, prints it, re-encodes it and
// forwards the re-encoded bytes, counting every message whose re-encoding
// differs from what was received. It is the codec's test against real
// clients and servers: any byte the codec cannot reproduce shows up.
//
// It learns what it needs from the traffic itself: the protocol version from
// StartupMessage and NegotiateProtocolVersion, the server's major from the
// server_version ParameterStatus, the authentication state that tells the
// 'p' messages apart, the one-byte answers to SSLRequest and GSSENCRequest,
// and the kind of replication stream (physical, or logical with pgoutput's
// version and options) from the START_REPLICATION command it forwards.
package trace

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Proxy.
type Options struct {
	// Upstream is the server's host:port.
	Upstream string
	// JSON selects JSON lines instead of text for the decoded messages.
	JSON bool
	// Strict closes a session at the first message that cannot be decoded or
	// whose re-encoding differs, instead of forwarding it as received.
	Strict bool
	// Out receives one line per decoded message; nil discards them.
	Out io.Writer
	// Log receives warnings and errors, one per line.
	Log io.Writer
	// DialTimeout bounds connecting to Upstream; 0 means 10s.
	DialTimeout time.Duration
}

// Proxy forwards sessions from a listener to the upstream server.
type Proxy struct {
	opts   Options
	outMu  sync.Mutex // one line at a time on Out and Log
	nextID atomic.Int64
	stats  [2]counters // by direction
	wg     sync.WaitGroup

	sessMu   sync.Mutex
	sessions map[*session]bool
	closed   bool
}

// Direction says who sent a message.
type Direction int

const (
	// Frontend messages travel from the client to the server.
	Frontend Direction = iota
	// Backend messages travel from the server to the client.
	Backend
)

func (d Direction) String() string {
	if d == Frontend {
		return "F"
	}
	return "B"
}

// name is the direction in log lines and the summary.
func (d Direction) name() string {
	if d == Frontend {
		return "frontend"
	}
	return "backend"
}

// Counts is the summary of one direction.
type Counts struct {
	// Decoded wire messages, every layer inside them decoded too.
	Decoded int64
	// Identical: re-encoded to exactly the bytes received.
	Identical int64
	// Mismatched: decoded, but the re-encoding differs.
	Mismatched int64
	// Undecodable: a layer failed to decode (or the bytes could not be framed).
	Undecodable int64
	// Layers counts decoded messages per layer, including those inside CopyData.
	Layers map[string]int64
	// Messages counts decoded messages per slug.
	Messages map[string]int64
}

type counters struct {
	decoded, identical, mismatched, undecodable atomic.Int64
	mu                                          sync.Mutex
	layers, messages                            map[string]int64
}

// New returns a proxy; call Serve to run it.
func New(opts Options) *Proxy {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 10 * time.Second
	}
	return &Proxy{opts: opts}
}

// CheckUpstream dials the upstream once, so that a wrong address is reported
// at start instead of at the first client.
func (p *Proxy) CheckUpstream() error {
	c, err := net.DialTimeout("tcp", p.opts.Upstream, p.opts.DialTimeout)
	if err != nil {
		return fmt.Errorf("upstream %s unreachable: %w", p.opts.Upstream, err)
	}
	return c.Close()
}

// Serve accepts clients until l is closed, then waits for their sessions to end.
func (p *Proxy) Serve(l net.Listener) error {
	defer p.wg.Wait()
	for {
		c, err := l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.serve(c)
		}()
	}
}

func (p *Proxy) serve(client net.Conn) {
	id := p.nextID.Add(1)
	server, err := net.DialTimeout("tcp", p.opts.Upstream, p.opts.DialTimeout)
	if err != nil {
		p.logf("session #%d: upstream %s unreachable: %v", id, p.opts.Upstream, err)
		client.Close()
		return
	}
	s := &session{p: p, id: id, client: client, server: server}
	if !p.track(s) {
		s.close()
		return
	}
	defer p.untrack(s)
	s.run()
}

// track adds a live session for Close to end; it refuses it after Close.
func (p *Proxy) track(s *session) bool {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	if p.closed {
		return false
	}
	if p.sessions == nil {
		p.sessions = map[*session]bool{}
	}
	p.sessions[s] = true
	return true
}

// untrack removes a session that has ended.
func (p *Proxy) untrack(s *session) {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	delete(p.sessions, s)
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

// Stats returns a snapshot of the counts of one direction.
func (p *Proxy) Stats(d Direction) Counts {
	c := &p.stats[d]
	c.mu.Lock()
	defer c.mu.Unlock()
	return Counts{Decoded: c.decoded.Load(), Identical: c.identical.Load(), Mismatched: c.mismatched.Load(),
		Undecodable: c.undecodable.Load(), Layers: maps.Clone(c.layers), Messages: maps.Clone(c.messages)}
}

// Summary writes the counts of both directions.
func (p *Proxy) Summary(w io.Writer) {
	for _, d := range []Direction{Frontend, Backend} {
		c := p.Stats(d)
		fmt.Fprintf(w, "%s: %d decoded, %d re-encoded identically, %d mismatched, %d undecodable\n",
			d.name(), c.Decoded, c.Identical, c.Mismatched, c.Undecodable)
		for _, l := range slices.Sorted(maps.Keys(c.Layers)) {
			fmt.Fprintf(w, "  %-22s %d\n", l, c.Layers[l])
		}
	}
}

// Clean reports whether every message so far was decoded and re-encoded identically.
func (p *Proxy) Clean() bool {
	for d := range p.stats {
		if p.stats[d].mismatched.Load() != 0 || p.stats[d].undecodable.Load() != 0 {
			return false
		}
	}
	return true
}

func (p *Proxy) count(d Direction, layer, slug string) {
	c := &p.stats[d]
	c.mu.Lock()
	if c.layers == nil {
		c.layers, c.messages = map[string]int64{}, map[string]int64{}
	}
	c.layers[layer]++
	c.messages[slug]++
	c.mu.Unlock()
}

func (p *Proxy) logf(format string, args ...any) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	fmt.Fprintf(p.opts.Log, "pgtrace: "+format+"\n", args...)
}

func (p *Proxy) writeLine(line []byte) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.opts.Out.Write(line)
}
