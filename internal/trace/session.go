package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/pgclient"
)

// maxStartupSize is the server's own limit for a startup-phase message
// (MAX_STARTUP_PACKET_LENGTH): garbage that claims more is cut off at once.
const maxStartupSize = 10000

// session is one client connection and its upstream connection. What one
// direction learns (authentication state, versions, replication stream) the
// other needs; a message that changes it is always processed before it is
// forwarded, and the peer can only answer after receiving it, so the state
// is current whenever the other direction needs it.
type session struct {
	p              *Proxy
	id             int64
	client, server net.Conn

	mu       sync.Mutex
	params   codec.Params // Major and ProtocolMinor
	auth     codec.AuthState
	pending  *stream // START_REPLICATION forwarded, no CopyBothResponse yet
	copyBoth *stream // the replication stream in progress, nil outside one
	// backupPending: BASE_BACKUP forwarded; backup: its CopyData carry the
	// base backup sub-messages (new archive, data, progress, manifest).
	backupPending, backup bool

	closeOnce sync.Once
}

func (s *session) close() {
	s.closeOnce.Do(func() {
		s.client.Close()
		s.server.Close()
	})
}

// errSessionClosed ends a pump after an error it has already logged.
var errSessionClosed = errors.New("session closed")

func (s *session) run() {
	defer s.close()
	fp := &pump{s: s, dir: Frontend, src: s.client, dst: s.server, fr: codec.NewFrameReader(s.client)}
	bp := &pump{s: s, dir: Backend, src: s.server, dst: s.client}
	if !s.startup(fp, bp) {
		return
	}
	bp.fr = codec.NewFrameReader(s.server)
	done := make(chan struct{})
	go func() {
		defer close(done)
		bp.loop()
		s.close()
	}()
	fp.loop()
	s.close()
	<-done
}

// startup relays the untagged startup phase: SSLRequest and GSSENCRequest
// with their one-byte answers, then StartupMessage (true: tagged messages
// follow) or CancelRequest (false: the server just closes).
func (s *session) startup(fp, bp *pump) bool {
	var dec codec.Startup
	fp.fr.MaxSize = maxStartupSize
	for {
		frame, err := fp.fr.NextUntagged()
		if err != nil {
			fp.frameError(err)
			return false
		}
		m, err := fp.relay(frame, func() ([]layer, error) {
			p := s.currentParams()
			m, err := dec.Decode(frame, p)
			return []layer{{name: "startup", msg: m, p: p}}, err
		})
		if err != nil {
			return false
		}
		switch m := m.(type) {
		case *codec.SSLRequest, *codec.GSSEncRequest:
			if !s.encryptionAnswer(bp) {
				return false
			}
		case *codec.StartupMessage:
			s.mu.Lock()
			s.params.ProtocolMinor = int(m.ProtocolVersion & 0xffff)
			s.mu.Unlock()
			fp.fr.MaxSize = 0
			return true
		case *codec.CancelRequest:
			io.Copy(s.client, s.server) // the server closes when done
			return false
		default:
			return false
		}
	}
}

// encryptionAnswer relays the server's single-byte answer to SSLRequest or
// GSSENCRequest. 'N' keeps the session in plaintext; 'S' or 'G' means TLS or
// GSSAPI follows, which cannot be decoded: the session is then relayed
// untouched (or closed under --strict).
func (s *session) encryptionAnswer(bp *pump) bool {
	var b [1]byte
	if _, err := io.ReadFull(s.server, b[:]); err != nil {
		return false
	}
	s.p.writeLine(bp.format(bp.offset, []layer{{name: "startup", msg: &EncryptionResponse{b[0]}}}))
	bp.offset++
	if _, err := s.client.Write(b[:]); err != nil {
		return false
	}
	if b[0] == 'N' {
		return true
	}
	if s.p.opts.Strict {
		s.p.logf("session #%d: server accepted encryption (%q) at backend offset %d; cannot decode, closing (--strict)", s.id, b[0], bp.offset-1)
		return false
	}
	s.p.logf("session #%d: server accepted encryption (%q); relaying the session undecoded", s.id, b[0])
	go io.Copy(s.client, s.server)
	io.Copy(s.server, s.client)
	return false
}

// EncryptionResponse is the one-byte answer to SSLRequest or GSSENCRequest.
// It is no codec message (it has no length), so it is only printed.
type EncryptionResponse struct{ Answer byte }

func (*EncryptionResponse) Encode(dst []byte, _ codec.Params) ([]byte, error) { return dst, nil }
func (*EncryptionResponse) Decode([]byte, codec.Params) error                 { return nil }
func (*EncryptionResponse) Slug() string                                      { return "encryption-answer" }
func (*EncryptionResponse) Majors() codec.MajorSet                            { return 0 }

func (s *session) currentParams() codec.Params {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.params
}

// pump relays one direction's tagged messages.
type pump struct {
	s        *session
	dir      Direction
	src, dst net.Conn
	fr       *codec.FrameReader
	offset   int64 // of the next message in this direction's byte stream

	fe codec.Frontend
	be codec.Backend
	rf codec.ReplicationFrontend
	rb codec.ReplicationBackend
	lg codec.Logical

	bufs [3][]byte // re-encoding, one per layer
	line []byte
}

func (p *pump) loop() {
	for {
		frame, err := p.fr.Next()
		if err != nil {
			p.frameError(err)
			return
		}
		if _, err := p.relay(frame, func() ([]layer, error) { return p.decode(frame) }); err != nil {
			return
		}
	}
}

// frameError reports bytes that could not be cut into a message; the stream
// cannot be followed past them, so the session ends either way.
func (p *pump) frameError(err error) {
	// A peer that hangs up between messages (even with unread data, which
	// makes the kernel reset the connection) ends the session normally.
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) {
		return
	}
	var fe *codec.FrameError
	if errors.As(err, &fe) {
		p.s.p.stats[p.dir].undecodable.Add(1)
	}
	p.s.p.logf("session #%d: %s byte offset %d: %v; closing the session", p.s.id, p.dir.name(), p.offset, err)
}

// relay decodes one message, prints it, re-encodes it and forwards the
// re-encoding when it is identical; otherwise it warns and forwards the
// original, or under --strict logs an error and ends the session. It
// returns the outermost decoded message.
func (p *pump) relay(frame []byte, decode func() ([]layer, error)) (codec.Message, error) {
	off := p.offset
	p.offset += int64(len(frame))
	st := &p.s.p.stats[p.dir]
	chain, err := decode()
	if err != nil {
		st.undecodable.Add(1)
		name := chainName(chain)
		switch {
		case chain[0].msg != nil:
		case chain[0].name == "startup":
			name = "startup message"
		default:
			name = fmt.Sprintf("message %q", frame[0]) // a tag the dispatcher does not know
		}
		return nil, p.problem(frame, off, fmt.Sprintf("%s undecodable: %v", name, err))
	}
	st.decoded.Add(1)
	for _, l := range chain {
		p.s.p.count(p.dir, l.name, l.msg.Slug())
	}
	p.s.p.writeLine(p.format(off, chain))
	out, err := p.reencode(chain)
	switch {
	case err != nil:
		st.mismatched.Add(1)
		return nil, p.problem(frame, off, fmt.Sprintf("%s does not re-encode: %v", typeName(chain[0].msg), err))
	case !bytes.Equal(out, frame):
		st.mismatched.Add(1)
		return nil, p.problem(frame, off, fmt.Sprintf("%s re-encodes differently from byte %d: got %x, received %x",
			chainName(chain), firstDiff(out, frame), clip(out), clip(frame)))
	}
	st.identical.Add(1)
	if _, err := p.dst.Write(out); err != nil {
		return nil, err
	}
	return chain[0].msg, nil
}

// problem forwards a message the codec could not handle as received with a
// warning, or under --strict logs an error and ends the session.
func (p *pump) problem(frame []byte, off int64, what string) error {
	if p.s.p.opts.Strict {
		p.s.p.logf("session #%d: error: %s message at byte offset %d: %s; closing the session (--strict)", p.s.id, p.dir.name(), off, what)
		return errSessionClosed
	}
	p.s.p.logf("session #%d: warning: %s message at byte offset %d: %s; forwarded as received", p.s.id, p.dir.name(), off, what)
	_, err := p.dst.Write(frame)
	return err
}

// format renders the message at byte offset off of this direction.
func (p *pump) format(off int64, chain []layer) []byte {
	p.line = style{json: p.s.p.opts.JSON}.appendLine(p.line[:0], p.s.id, p.dir, off, chain)
	return p.line
}

// reencode encodes the chain innermost first, putting each layer's bytes
// into its parent's payload field.
func (p *pump) reencode(chain []layer) ([]byte, error) {
	var inner []byte
	for i := len(chain) - 1; i >= 0; i-- {
		switch m := chain[i].msg.(type) {
		case *codec.CopyData:
			if inner != nil {
				m.Data = inner
			}
		case *codec.XLogData:
			if inner != nil {
				m.WALData = inner
			}
		}
		out, err := chain[i].msg.Encode(p.bufs[i][:0], chain[i].p)
		if err != nil {
			return nil, err
		}
		p.bufs[i], inner = out, out
	}
	return inner, nil
}

// decode takes one tagged message apart, down to the replication and
// pgoutput messages inside CopyData, and updates the session state.
func (p *pump) decode(frame []byte) ([]layer, error) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	var m codec.Message
	var err error
	if p.dir == Frontend {
		p.fe.Auth = s.auth
		m, err = p.fe.Decode(frame, s.params)
	} else {
		m, err = p.be.Decode(frame, s.params)
	}
	chain := []layer{{name: "frontend-backend", msg: m, p: s.params}}
	if err != nil {
		return chain, err
	}
	if p.dir == Frontend {
		s.frontendSent(m)
	} else {
		s.backendSent(m)
	}
	cd, ok := m.(*codec.CopyData)
	if !ok || (s.copyBoth == nil && !s.backup) {
		return chain, nil
	}
	var sub codec.Message
	if p.dir == Frontend {
		sub, err = p.rf.Decode(cd.Data, s.params)
	} else {
		sub, err = p.rb.Decode(cd.Data, s.params)
	}
	chain = append(chain, layer{name: "replication", msg: sub, p: s.params})
	x, ok := sub.(*codec.XLogData)
	if err != nil || !ok || s.copyBoth == nil || s.copyBoth.protoVersion == 0 {
		return chain, err
	}
	lp := s.params
	lp.LogicalVersion, lp.Streaming = s.copyBoth.protoVersion, s.copyBoth.streaming
	lm, err := p.lg.Decode(x.WALData, lp)
	chain = append(chain, layer{name: "logical-replication", msg: lm, p: lp})
	switch lm.(type) {
	case *codec.LogicalStreamStart:
		s.copyBoth.streaming |= codec.Streamed
	case *codec.LogicalStreamStop:
		s.copyBoth.streaming &^= codec.Streamed
	}
	return chain, err
}

// frontendSent notes what a client message tells about the replies to come.
func (s *session) frontendSent(m codec.Message) {
	q, ok := m.(*codec.Query)
	if !ok {
		return
	}
	if st, ok := parseStartReplication(q.String); ok {
		s.pending = &st
	}
	if fields := strings.Fields(q.String); len(fields) > 0 && strings.EqualFold(fields[0], "BASE_BACKUP") {
		s.backupPending = true
	}
}

// backendSent follows the server: authentication requests decide what the
// client's next 'p' is, ParameterStatus gives the major, and the copy
// responses open replication and base backup streams.
func (s *session) backendSent(m codec.Message) {
	switch m := m.(type) {
	case *codec.AuthenticationCleartextPassword, *codec.AuthenticationMD5Password:
		s.auth = codec.AuthPassword
	case *codec.AuthenticationSASL:
		s.auth = codec.AuthSASLInitial
	case *codec.AuthenticationSASLContinue:
		s.auth = codec.AuthSASL
	case *codec.AuthenticationGSS, *codec.AuthenticationSSPI, *codec.AuthenticationGSSContinue:
		s.auth = codec.AuthGSS
	case *codec.NegotiateProtocolVersion:
		// The server sends its whole version number, 3<<16 | minor.
		s.params.ProtocolMinor = int(m.NewestProtocolVersion & 0xffff)
	case *codec.ParameterStatus:
		if m.Name == "server_version" {
			s.params.Major = pgclient.MajorOf(m.Value)
		}
	case *codec.CopyBothResponse:
		s.copyBoth, s.pending = s.pending, nil
		if s.copyBoth == nil { // a stream no START_REPLICATION announced: physical
			s.copyBoth = &stream{}
		}
	case *codec.CopyOutResponse:
		s.backup, s.backupPending = s.backupPending, false
	case *codec.CommandComplete, *codec.ErrorResponse:
		s.copyBoth, s.backup = nil, false
	case *codec.ReadyForQuery:
		s.copyBoth, s.backup, s.pending, s.backupPending = nil, false, nil, false
	}
}

// typeName is the Go type of a decoded message, "?" for one whose tag no
// dispatcher knows.
func typeName(m codec.Message) string {
	if m == nil {
		return "?"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*codec.")
}

func chainName(chain []layer) string {
	names := make([]string, len(chain))
	for i, l := range chain {
		names[i] = typeName(l.msg)
	}
	return strings.Join(names, " > ")
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// clip keeps error messages short.
func clip(b []byte) []byte { return b[:min(len(b), 32)] }
