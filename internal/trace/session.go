package trace

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// proxySession is one client connection and its upstream connection.
type proxySession struct {
	p              *Proxy
	c              *conn
	client, server net.Conn
	active         [2]atomic.Int64 // when each side last sent bytes, Unix nanoseconds

	mu     sync.Mutex // guards server and closed against close from another goroutine
	closed bool
}

func newSession(p *Proxy, id int64, client net.Conn) *proxySession {
	s := &proxySession{p: p, c: newConn(id), client: client}
	now := time.Now().UnixNano()
	s.active[Frontend].Store(now)
	s.active[Backend].Store(now)
	return s
}

func (s *proxySession) lastActive() time.Time {
	return time.Unix(0, max(s.active[Frontend].Load(), s.active[Backend].Load()))
}

func (s *proxySession) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.client.Close()
		if s.server != nil {
			s.server.Close()
		}
	}
}

// setServer records the upstream connection; false when the session was
// closed meanwhile.
func (s *proxySession) setServer(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return false
	}
	s.server = c
	return true
}

// errSessionClosed ends a pump after an error it has already logged.
var errSessionClosed = errors.New("session closed")

func (s *proxySession) run() {
	defer s.close()
	// The client has until StartupTimeout to authenticate, however slowly it sends.
	s.client.SetReadDeadline(time.Now().Add(s.p.opts.StartupTimeout))
	fp, bp := s.newPump(Frontend, s.client, nil), s.newPump(Backend, nil, s.client)
	defer fp.finish()
	defer bp.finish()
	if s.p.terminates() && !s.negotiate(fp, bp) {
		return
	}
	server, err := s.p.dialUpstream()
	if err != nil {
		s.p.logf("session #%d: upstream %s unreachable: %v", s.c.id, s.p.opts.Upstream, err)
		return
	}
	if !s.setServer(server) {
		return
	}
	fp.dst, bp.src = server, server
	if !s.startup(fp, bp) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		bp.loop()
		bp.flush()
		s.close()
	}()
	if fp.loop() {
		fp.flush()
		// The client half-closed: the server still answers what it sent.
		halfClose(s.server)
	} else {
		fp.flush()
		s.close()
	}
	<-done
}

// halfClose ends the writing side of c, telling its peer no more follows.
func halfClose(c net.Conn) {
	if w, ok := c.(interface{ CloseWrite() error }); ok { // TCP, TLS
		w.CloseWrite()
	}
}

// startup relays the untagged startup phase: SSLRequest and GSSENCRequest
// with their one-byte answers, then StartupMessage (true: tagged messages
// follow) or CancelRequest (false: the server just closes). Whenever a
// message was forwarded, the server's answer reaches the client, decoded or
// not.
func (s *proxySession) startup(fp, bp *pump) bool {
	for {
		frame, err := fp.next()
		if err != nil {
			fp.frameError(err)
			return false
		}
		decoded, err := fp.relay(frame)
		if err != nil {
			return false
		}
		// Bytes the client sent with an encryption request, before its
		// answer, go to the server with the request, as they came: the
		// server judges them (PostgreSQL refuses them, CVE-2021-23214).
		early := s.c.answerPending() && fp.fr.Buffered() > 0
		if early {
			fp.out = fp.fr.Drain(fp.out)
		}
		if err := fp.flush(); err != nil {
			return false
		}
		switch {
		case early:
			s.p.logf("session #%d: the client sent bytes before the answer to its encryption request; relaying the rest of the session undecoded", s.c.id)
			s.relayRaw(fp, bp)
			return false
		case !decoded: // forwarded as received: nothing more can be followed
			s.p.logf("session #%d: relaying the rest of the session undecoded", s.c.id)
			s.relayRaw(fp, bp)
			return false
		case s.c.started():
			return true
		case s.c.answerPending():
			if !s.encryptionAnswer(fp, bp) {
				return false
			}
		default: // CancelRequest: nothing follows it; the server closes when done
			halfClose(s.server)
			io.Copy(s.client, bp)
			return false
		}
	}
}

// encryptionAnswer relays the server's single-byte answer to SSLRequest or
// GSSENCRequest. 'N' keeps the session in plaintext; 'S' or 'G' means TLS or
// GSSAPI follows, which cannot be decoded: the session is then relayed
// untouched (or closed under --strict).
func (s *proxySession) encryptionAnswer(fp, bp *pump) bool {
	var b [1]byte
	if _, err := io.ReadFull(bp, b[:]); err != nil {
		return false
	}
	if _, err := bp.relay(b[:]); err != nil {
		return false
	}
	if err := bp.flush(); err != nil || !s.c.encrypted() {
		return err == nil
	}
	if s.p.opts.Strict {
		s.p.logf("session #%d: server accepted encryption (%q) at backend offset %d; cannot decode, closing (--strict)", s.c.id, b[0], bp.d.offset-1)
		return false
	}
	s.p.logf("session #%d: server accepted encryption (%q); relaying the session undecoded", s.c.id, b[0])
	s.client.SetReadDeadline(time.Time{}) // authentication can no longer be seen
	s.relayRaw(fp, bp)
	return false
}

// relayRaw copies both directions unchanged until either side closes,
// beginning with what the pumps read and did not frame yet.
func (s *proxySession) relayRaw(fp, bp *pump) {
	for _, p := range []*pump{fp, bp} {
		p.out = p.fr.Drain(p.out)
		if p.flush() != nil {
			s.close()
			return
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(s.client, bp)
		s.close()
	}()
	if _, err := io.Copy(s.server, fp); err == nil {
		halfClose(s.server) // the client half-closed: the server may still answer
	} else {
		s.close()
	}
	<-done
}

// pump relays one direction's messages. It collects what it forwards and
// the lines it prints, and writes them out before it waits for input (or
// when they grow large), so a burst of messages costs one write.
type pump struct {
	examiner
	s               *proxySession
	src, dst        net.Conn
	fr              *codec.FrameReader
	out             []byte    // forwarded bytes not yet written to dst
	lines           []byte    // lines not yet handed to the output
	sink            *sink     // where lines go; nil under Quiet
	readAt          time.Time // when the last read returned: the time on the lines of what it brought
	deadlineCleared bool      // the client authenticated: its startup deadline is gone
}

// forwardBatch is how many forwarded bytes a pump collects before writing;
// a message larger than that is written on its own, without a copy.
const forwardBatch = 64 << 10

func (s *proxySession) newPump(d Direction, src, dst net.Conn) *pump {
	p := &pump{examiner: newExaminer(&s.p.analyzer, &s.c.dirs[d]), s: s, src: src, dst: dst}
	if !s.p.opts.Quiet {
		p.sink = s.p.out.sink()
	}
	p.fr = codec.NewFrameReader(p)
	return p
}

// Read is the FrameReader's source: before waiting for input it writes out
// everything pending, so that nothing the peer waits for is held back.
func (p *pump) Read(b []byte) (int, error) {
	if err := p.flush(); err != nil {
		return 0, err
	}
	if p.grew {
		p.grew = false
		returnMemory()
	}
	n, err := p.src.Read(b)
	p.readAt = time.Now()
	p.s.active[p.d.dir].Store(p.readAt.UnixNano())
	return n, err
}

// finish writes out what is pending when the direction ends.
func (p *pump) finish() {
	p.flush()
	if p.sink != nil {
		p.sink.close()
	}
}

func (p *pump) flush() error {
	if len(p.lines) > 0 {
		p.sink.put(p.lines, p.readAt)
		p.lines = p.lines[:0]
	}
	if len(p.out) == 0 {
		return nil
	}
	_, err := p.dst.Write(p.out)
	p.out = p.out[:0]
	return err
}

// next reads the direction's next message, framed as the session's phase
// says and no longer than the phase allows.
func (p *pump) next() ([]byte, error) {
	for {
		kind, limit := p.d.framing(p.s.p.opts.MaxMessage)
		p.fr.MaxSize = limit
		var frame []byte
		var err error
		if kind == untagged {
			frame, err = p.fr.NextUntagged()
		} else {
			frame, err = p.fr.Next()
		}
		// The limit may have risen (the server accepted the client) while
		// this read waited: the FrameReader keeps the header, so try again.
		if errors.Is(err, codec.ErrTooLong) && p.d.maxSize(p.s.p.opts.MaxMessage) != limit {
			continue
		}
		return frame, err
	}
}

// loop relays messages until the direction ends; eof is true when the
// source closed cleanly between messages.
func (p *pump) loop() (eof bool) {
	for {
		frame, err := p.next()
		if err != nil {
			p.frameError(err)
			return errors.Is(err, io.EOF)
		}
		if _, err := p.relay(frame); err != nil {
			return false
		}
	}
}

// frameError reports bytes that could not be cut into a message; the stream
// cannot be followed past them, so the session ends either way.
func (p *pump) frameError(err error) {
	// A peer that hangs up between messages (even with unread data, which
	// makes the kernel reset the connection) ends the session normally.
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		p.a.logf("session #%d: not authenticated within %s (--startup-timeout); closing the session", p.d.c.id, p.s.p.opts.StartupTimeout)
		return
	}
	var fe *codec.FrameError
	if errors.As(err, &fe) {
		p.a.stats[p.d.dir].undecodable.Add(1)
	}
	p.a.logf("session #%d: %s byte offset %d: %v; closing the session", p.d.c.id, p.d.dir.name(), p.d.offset, err)
}

// relay examines one message and forwards it. A message that re-encodes
// identically is forwarded as such (the re-encoding is the same bytes);
// otherwise it warns and forwards the original, or under --strict logs an
// error and ends the session. decoded is false when the message could not
// be decoded.
func (p *pump) relay(frame []byte) (decoded bool, err error) {
	off := p.d.offset
	var problem string
	p.lines, decoded, problem = p.examine(frame, p.readAt, p.lines)
	if len(p.lines) >= batchSize {
		p.sink.put(p.lines, p.readAt)
		p.lines = p.lines[:0]
	}
	if !p.deadlineCleared && p.d.c.authenticated() {
		p.deadlineCleared = true
		p.s.client.SetReadDeadline(time.Time{})
	}
	if problem != "" {
		if p.s.p.opts.Strict {
			p.a.logf("session #%d: error: %s message at byte offset %d: %s; closing the session (--strict)", p.d.c.id, p.d.dir.name(), off, problem)
			return decoded, errSessionClosed
		}
		p.a.logf("session #%d: warning: %s message at byte offset %d: %s; forwarded as received", p.d.c.id, p.d.dir.name(), off, problem)
	}
	if len(frame) >= forwardBatch {
		if err := p.flush(); err != nil {
			return decoded, err
		}
		_, err := p.dst.Write(frame)
		return decoded, err
	}
	p.out = append(p.out, frame...)
	if len(p.out) >= forwardBatch {
		return decoded, p.flush()
	}
	return decoded, nil
}
