//go:build ignore

package codec

//pgspec:machines frontend,backend

import "encoding/binary"

// Conversation follows one connection in both directions, as the manual's
// message flow describes it (spec/flow.json): Frontend takes each message
// the client sends, Backend each one the server sends, in the order they
// were sent. Between them they decode every message with the right Params
// (resolving the frontend's 'p' by the authentication exchange, 'R' by its
// subtype, the one-byte answers to SSLRequest and GSSENCRequest, the
// replication and pgoutput messages inside CopyData), learn the session's
// layout as it goes, and report a message the flow does not allow where it
// came as a *FlowError, decoded all the same.
//
// A client feeds Backend what it reads and Frontend what it writes; a
// server the other way round; a proxy both. It is not safe for concurrent
// use: a proxy relaying the two directions in two goroutines holds a lock
// around each call (a message is taken before it is forwarded, so the
// order is the one the peers saw).
type Conversation struct {
	Frontend FrontendTracker
	Backend  BackendTracker
	// P is the layout the next message decodes with: ProtocolMinor from
	// the StartupMessage and NegotiateProtocolVersion, Major from
	// server_version (unless FixMajor).
	P Params
	// FixMajor keeps P.Major as set: server_version does not change it.
	FixMajor bool
	// Replication follows the replication stream a START_REPLICATION or
	// BASE_BACKUP began (its Logical the pgoutput inside).
	Replication replicationPart

	fe, be     flowState
	queue      []flowState // backend states of the requests waiting behind the one answered now
	head       int         // queue[head:] wait
	discarding bool        // an extended-query error: requests until the next Sync get no answer
	taken      uint64      // requests queued for an answer (see Requests)
	done       uint64      // of those, the ones answered or voided by an extended-query error
	pending    copyKind    // the stream the last replication command asked for
	feCopy     bool        // the frontend's CopyData carry replication messages
	nego       negotiation // what the StartupMessage asked for, and its answer
}

// maxPending bounds the requests waiting for an answer: a client that
// pipelines more without reading is refused rather than followed.
const maxPending = 1 << 16

// NewConversation starts a conversation at the connection's first byte;
// p's Major (0: the newest) is the layout until server_version says.
func NewConversation(p Params) *Conversation {
	c := &Conversation{}
	c.Reset(p)
	return c
}

// Reset starts the conversation over at a new connection's first byte,
// keeping the decoders and queue it grew (a pool of connections reuses it).
func (c *Conversation) Reset(p Params) {
	c.P, c.FixMajor, c.fe, c.be = p, false, stFrontendStartup, stBackendWaiting
	c.queue, c.head, c.discarding, c.pending, c.feCopy, c.nego = c.queue[:0], 0, false, copyNone, false, negotiation{}
	c.taken, c.done = 0, 0
	c.Frontend.tracker = tracker{c: c}
	c.Backend.tracker = tracker{c: c}
	c.Replication.reset(p)
}

// Encrypted reports whether the server accepted encryption: what follows
// is a TLS or GSSAPI handshake, which no tracker decodes.
func (c *Conversation) Encrypted() bool { return c.be == stBackendEncrypted }

// Authenticated reports whether the server sent AuthenticationOk.
func (c *Conversation) Authenticated() bool {
	switch c.be {
	case stBackendWaiting, stBackendAuthentication, stBackendSaslWait, stBackendSasl, stBackendSaslFinal, stBackendClosed:
		return false
	}
	return c.Started()
}

// Requests counts the frontend's requests the backend answers in order
// (Parse, Bind, Describe, Execute, Close, Sync, Query, FunctionCall): those
// taken, and of them those answered or voided (an extended-query error
// voids the requests up to the next Sync, and those sent after it until
// then are never taken). taken-done wait for an answer; a proxy that keeps
// something per request tags it with taken after the request and knows it
// answered once done reaches the tag.
func (c *Conversation) Requests() (taken, done uint64) { return c.taken, c.done }

// Idle reports whether the backend owes the frontend nothing: every
// request answered, none voided until a Sync still to come.
func (c *Conversation) Idle() bool { return c.be == stBackendIdle && !c.discarding }

// Started reports whether the frontend sent its StartupMessage: its
// messages are tagged from then on.
func (c *Conversation) Started() bool {
	return !c.Frontend.Untagged() && c.fe != stFrontendEncryption
}

// tracker is what both sides' trackers keep.
type tracker struct {
	c *Conversation
	// Offset is the byte offset of the next message in the side's stream;
	// Index counts the messages taken.
	Offset, Index int64

	step Step
}

// took starts the Step of frame with the Params reached and returns it
// with the frame's offset. Msg, Sub and Logical are the caller's to set.
func (t *tracker) took(frame []byte) (*Step, int64) {
	s := &t.step
	s.P = t.c.P
	off := t.Offset
	t.Offset += int64(len(frame))
	t.Index++
	return s, off
}

// FrontendTracker takes the messages the frontend sends.
type FrontendTracker struct {
	tracker
	st Startup
	fe Frontend
}

// Untagged reports whether the frontend's next message is a startup-phase
// packet, without a tag (read it with FrameReader.NextUntagged).
func (t *FrontendTracker) Untagged() bool {
	return untaggedStates[t.c.fe]
}

// IsDirectTLS reports whether a connection's first byte begins a TLS
// handshake record (0x16) rather than a startup packet, whose length
// starts with 0 for any size a server accepts: the frontend began TLS
// without SSLRequest (take it with DirectTLS).
func IsDirectTLS(first byte) bool { return first == 0x16 }

// DirectTLS takes a connection whose first byte begins a TLS handshake
// (IsDirectTLS): the frontend began TLS without an SSLRequest, as
// PostgreSQL 17 on recognises (offering ALPN "postgresql"). What follows is
// the handshake, no message: a caller holding the TLS end calls Decrypted
// when it is done. The Step holds no message; in a major whose manual does
// not document it, or once the frontend spoke, it is a *FlowError.
func (t *FrontendTracker) DirectTLS() (*Step, error) {
	s, off := t.took(nil)
	s.Msg = nil
	s.clearInner()
	c := t.c
	r := flowLookup(c.fe, kindDirectTLS, c.P.Major)
	if r == nil {
		return s, flowViolation(c.fe, kindDirectTLS, c.P.Major, off, t.Index-1)
	}
	c.move(&c.fe, &c.be, r.act)
	c.settle(r.act)
	return s, nil
}

// Next decodes one whole message the frontend sent and takes it into the
// conversation. On a *DecodeError the Step holds nothing decoded; on a
// *FlowError it holds the message.
func (t *FrontendTracker) Next(frame []byte) (*Step, error) {
	c := t.c
	s, off := t.took(frame)
	s.clearInner()
	st := c.fe
	var k flowKind
	var err error
	switch {
	case untaggedStates[st]:
		if len(frame) >= 8 {
			k = kindsStartup(binary.BigEndian.Uint32(frame[4:]))
			// A CancelRequest comes on a connection of its own: only its
			// length tells a 3.2 key from a 3.0 one (4 bytes read the same).
			if k == kindCancelRequest && len(frame) != 16 {
				s.P.ProtocolMinor = 2
			}
		}
		s.Msg, err = t.st.Decode(frame, s.P)
	case len(frame) > 0 && frame[0] == 'p':
		if k = passwordKinds[st]; k == kindNone {
			s.Msg = nil
			e := flowViolation(st, k, c.P.Major, off, t.Index-1)
			e.Got = "'p' (a password, SASL or GSSAPI response)"
			return s, e
		}
		t.fe.Auth = authStates[st]
		s.Msg, err = t.fe.Decode(frame, s.P)
	default:
		if len(frame) > 0 {
			k = kindsFrontend[frame[0]]
		}
		s.Msg, err = t.fe.Decode(frame, s.P)
	}
	if err != nil {
		return s, err
	}
	a := flowActs[st][k]
	if a&actRule != 0 { // an encryption request some majors lack, direct TLS
		a, _ = lookAct(st, k, c.P.Major, frame[0])
	}
	if a == 0 {
		return s, flowViolation(st, k, c.P.Major, off, t.Index-1)
	}
	// What the message tells, by its kind: an integer switch costs less
	// per message than one on its type.
	switch k {
	case kindStartupMessage:
		c.P.ProtocolMinor = int(s.Msg.(*StartupMessage).ProtocolVersion & 0xffff)
		c.nego.ask(s.Msg.(*StartupMessage))
	case kindQuery:
		c.pending = c.Replication.start(s.Msg.(*Query).String)
	case kindCopyData:
		if st == stFrontendCopyBoth && c.feCopy {
			err = c.Replication.next(s, sideFrontend, s.Msg.(*CopyData).Data)
		}
	}
	if q := flowState(a >> actPush); q != 0 && !c.push(q-1) {
		e := flowViolation(st, k, c.P.Major, off, t.Index-1)
		e.Detail = "more requests wait for an answer than a tracker follows (65536)"
		return s, e
	}
	c.move(&c.fe, &c.be, a)
	c.settle(a)
	if c.fe != stFrontendCopyBoth {
		c.feCopy = false
	}
	if err != nil {
		return s, offsetted(err, off)
	}
	return s, nil
}

// Release lets go of the decoded messages the tracker keeps for reuse:
// their strings are copies, which after a large message would pin its size
// until the next message of the same type.
func (t *FrontendTracker) Release() {
	t.st, t.fe, t.step = Startup{}, Frontend{}, Step{}
	t.c.Replication.release(sideFrontend)
}

// BackendTracker takes the messages the backend sends.
type BackendTracker struct {
	tracker
	be  Backend
	ssl SSLResponse
	// pgspec:if message:gssenc-response
	gss GSSEncResponse
	// pgspec:end
}

// OneByte reports whether the backend's next message is the one-byte
// answer to an encryption request (read exactly one byte, with
// FrameReader.NextByte): Next decodes it as the message answering the
// request the frontend sent (SSLResponse after SSLRequest).
func (t *BackendTracker) OneByte() bool { return answerKinds[t.c.be] != kindNone }

// answer decodes the one-byte answer of kind k.
func (t *BackendTracker) answer(k flowKind, frame []byte, p Params) (Message, error) {
	var m Message = &t.ssl
	// pgspec:if message:gssenc-response
	if k == kindGSSEncResponse {
		m = &t.gss
	}
	// pgspec:end
	if err := m.Decode(frame, p); err != nil {
		return nil, err
	}
	return m, nil
}

// Next decodes one whole message the backend sent (a one-byte answer when
// OneByte) and takes it into the conversation. On a *DecodeError the Step
// holds nothing decoded; on a *FlowError it holds the message.
func (t *BackendTracker) Next(frame []byte) (*Step, error) {
	c := t.c
	var k flowKind
	if len(frame) > 0 {
		// Most frames are a message the state allows without a change
		// (actStays: a result's DataRow, a copy stream's CopyData, the
		// ParameterStatus of start-up, a simple query's CommandComplete):
		// decoded and taken on one bit, without a rule lookup, and DataRow
		// and CopyData without the dispatcher. Anything else, or a frame
		// that fails, takes the general path below. ('R' has no kind by
		// its tag; a one-byte answer fails as a tagged message.)
		if k = kindsBackend[frame[0]]; flowActs[c.be][k]&actStays != 0 {
			switch k {
			case kindDataRow:
				if t.be.dataRow.Decode(frame, c.P) == nil {
					s, _ := t.took(frame)
					s.Msg = &t.be.dataRow
					s.clearInner()
					return s, nil
				}
			case kindCopyData:
				if t.be.copyData.Decode(frame, c.P) == nil {
					s, off := t.took(frame)
					s.Msg = &t.be.copyData
					if err := c.Replication.next(s, sideBackend, t.be.copyData.Data); err != nil {
						return s, offsetted(err, off)
					}
					return s, nil
				}
			default:
				if m, err := t.be.Decode(frame, c.P); err == nil {
					s, _ := t.took(frame)
					s.Msg = m
					s.clearInner()
					switch k {
					case kindParameterStatus:
						c.parameter(&t.be.parameterStatus)
					case kindCommandComplete, kindErrorResponse:
						c.Replication.open(copyNone)
					}
					return s, nil
				}
			}
		}
	}
	s, off := t.took(frame)
	s.clearInner()
	st := c.be
	var err error
	switch {
	case len(frame) == 1 && answerKinds[st] != kindNone:
		// A server that predates SSL answers with an ErrorResponse instead.
		k = answerKinds[st]
		s.Msg, err = t.answer(k, frame, s.P)
	case len(frame) >= 9 && frame[0] == 'R': // k is kindNone: 'R' is told apart by its subtype
		if sub := binary.BigEndian.Uint32(frame[5:]); sub < uint32(len(authKinds)) {
			k = authKinds[sub]
		}
		s.Msg, err = t.be.Decode(frame, s.P)
	default:
		s.Msg, err = t.be.Decode(frame, s.P)
		if err != nil && s.P.ProtocolMinor < 2 {
			// A layout of protocol 3.2 (a cancel key longer than 4 bytes)
			// on a 3.0 session: decoded as 3.2, reported as a violation.
			p := s.P
			p.ProtocolMinor = 2
			if m, err2 := t.be.Decode(frame, p); err2 == nil {
				s.Msg, s.P = m, p
				e := flowViolation(st, k, c.P.Major, off, t.Index-1)
				e.Detail = s.Msg.Slug() + " has the layout of protocol 3.2; the session speaks 3.0"
				return s, e
			}
		}
	}
	if err != nil {
		return s, err
	}
	// A message is taken on its act alone, unless the act needs its rule
	// (actRule: the one-byte answers, what start-up's negotiation requires).
	a, r := flowActs[st][k], (*flowRule)(nil)
	if a&actRule != 0 {
		a, r = lookAct(st, k, c.P.Major, frame[0])
	}
	if a == 0 {
		return s, flowViolation(st, k, c.P.Major, off, t.Index-1)
	}
	switch k {
	case kindParameterStatus:
		c.parameter(s.Msg.(*ParameterStatus))
	// pgspec:if message:negotiate-protocol-version
	case kindNegotiateProtocolVersion:
		m := s.Msg.(*NegotiateProtocolVersion)
		if d := c.nego.answer(m, c.P.Major); r != nil && r.requires == requiresNegotiation && d != "" {
			e := flowViolation(st, k, c.P.Major, off, t.Index-1)
			e.Detail = d
			return s, e
		}
		if minor := int(m.NewestProtocolVersion & 0xffff); minor < c.P.ProtocolMinor {
			c.P.ProtocolMinor = minor
		}
	// pgspec:end
	case kindCopyBothResponse:
		c.Replication.P = Params{Major: c.P.Major, ProtocolMinor: c.P.ProtocolMinor}
		c.Replication.open(c.pending)
		c.feCopy = c.pending == copyPhysical || c.pending == copyLogical
	case kindCopyOutResponse:
		c.Replication.P = Params{Major: c.P.Major, ProtocolMinor: c.P.ProtocolMinor}
		if c.pending == copyBackup {
			c.Replication.open(copyBackup)
		} else {
			c.Replication.open(copyNone)
		}
	case kindCopyData: // the rule allows it only in a copy state
		err = c.Replication.next(s, sideBackend, s.Msg.(*CopyData).Data)
	case kindCommandComplete, kindErrorResponse:
		c.Replication.open(copyNone)
	case kindReadyForQuery:
		c.pending = copyNone
		if r == nil || r.requires != requiresNegotiated {
			break
		}
		if d := c.nego.missing(c.P.Major, c.P.ProtocolMinor); d != "" {
			// What is missing came before: the start-up is over all the same.
			c.move(&c.be, &c.fe, a)
			c.settle(a)
			e := flowViolation(st, k, c.P.Major, off, t.Index-1)
			e.Detail = d
			return s, e
		}
	}
	c.move(&c.be, &c.fe, a)
	c.settle(a)
	if err != nil {
		return s, offsetted(err, off)
	}
	return s, nil
}

// parameter takes what a ParameterStatus tells the conversation: the major
// of server_version. Small enough to inline: the other parameters cost a
// length test.
func (c *Conversation) parameter(m *ParameterStatus) {
	if m.Name == "server_version" && !c.FixMajor {
		c.serverVersion(m.Value)
	}
}

// serverVersion takes the major of server_version v, once a connection:
// kept out of line, so that parameter inlines.
//
//go:noinline
func (c *Conversation) serverVersion(v string) {
	c.P.Major = ServerMajor(v)
	c.Replication.P.Major = c.P.Major
}

// Release lets go of the decoded messages the tracker keeps for reuse.
func (t *BackendTracker) Release() {
	t.be, t.step = Backend{}, Step{}
	t.c.Replication.release(sideBackend)
}

// offsetted puts off, the enclosing message's offset, into a FlowError from
// a message inside it.
func offsetted(err error, off int64) error {
	if e, ok := err.(*FlowError); ok {
		e.Offset = off
	}
	return err
}

// move puts both sides in the states act a names: own is the state of the
// side that sent the message, other the other side's.
func (c *Conversation) move(own, other *flowState, a flowAct) {
	*own = flowState(a)
	if p := flowState(a >> actPeer); p != 0 {
		*other = p - 1
	}
}

// settle ends or discards the request the backend answered (act a), and
// lets a backend with nothing left to answer take the oldest request
// waiting. The test inlines; the work, seldom needed, does not.
func (c *Conversation) settle(a flowAct) {
	if a&(actEnd|actDiscard) != 0 || c.be == stBackendIdle && c.head < len(c.queue) {
		c.settled(a)
	}
}

func (c *Conversation) settled(a flowAct) {
	switch {
	case a&actEnd != 0:
		c.be = stBackendIdle
		c.done++
	case a&actDiscard != 0:
		c.discard()
	}
	if c.be == stBackendIdle && c.head < len(c.queue) {
		c.be = c.queue[c.head]
		c.head++
	}
	if c.head != 0 && c.head == len(c.queue) {
		c.queue, c.head = c.queue[:0], 0
	}
}

// push queues the backend state a request's answer starts in; false when
// too many wait. While an error is being discarded only a Sync is answered.
func (c *Conversation) push(s flowState) bool {
	if c.discarding {
		if s != stBackendSync {
			return true
		}
		c.discarding = false
	}
	if len(c.queue)-c.head >= maxPending {
		return false
	}
	c.taken++
	if c.be == stBackendIdle {
		c.be = s
		return true
	}
	c.queue = append(c.queue, s)
	return true
}

// discard drops the requests before the next Sync, as the server does
// after an extended-query error; with no Sync sent yet, those still to
// come until it.
func (c *Conversation) discard() {
	c.done++ // the request that failed
	for c.head < len(c.queue) {
		s := c.queue[c.head]
		c.head++
		if s == stBackendSync {
			c.be = s
			return
		}
		c.done++
	}
	c.be, c.discarding = stBackendIdle, true
}

// ServerMajor is the Params.Major to decode a server's messages with, from
// its server_version parameter ("15.18 (Debian 15.18-1.pgdg120+1)" → 15,
// "19rc1" → 19): the major when the codec was generated for it, else 0 (the
// newest layout, the best guess for a newer server or an unreadable
// version).
func ServerMajor(v string) int {
	major := 0
	for i := 0; i < len(v) && v[i] >= '0' && v[i] <= '9' && major < 1000; i++ {
		major = major*10 + int(v[i]-'0')
	}
	if !GeneratedMajors.Has(major) || major == 0 {
		return 0
	}
	return major
}

// Resume takes up a connection whose start was not seen (a capture that
// began late): the client is taken as authenticated and the server as
// idle. Answers to requests sent before are then reported as violations.
func (c *Conversation) Resume() {
	c.fe, c.be = stFrontendSession, stBackendIdle
}

// Decrypted goes on after the server accepted encryption (or the frontend
// began TLS at once) when the caller holds the TLS or GSSAPI end itself (a
// proxy terminating TLS): what comes through it is the protocol again, from
// a startup packet. After an 'S' or 'G' it may ask for no more encryption
// (and the server may refuse what came with the request, the way its major
// does); through direct TLS each request may come once and is answered
// 'N', as PostgreSQL 17 on does.
func (c *Conversation) Decrypted() {
	switch c.fe {
	case stFrontendTlsHandshake:
		c.fe, c.be = stFrontendTlsStartup, stBackendWaiting
	case stFrontendGssHandshake:
		c.fe, c.be = stFrontendEncryptedStartup, stBackendAfterGssHandshake
	default:
		c.fe, c.be = stFrontendEncryptedStartup, stBackendAfterSslHandshake
	}
}
