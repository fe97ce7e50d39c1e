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
	// server_version (unless FixMajor). The trackers change it through
	// setParams, which keeps the old in the Steps decoded with it.
	P Params
	// FixMajor keeps P.Major as set: server_version does not change it.
	FixMajor bool
	// Replication follows the replication stream a START_REPLICATION or
	// BASE_BACKUP began on a walsender connection (one whose StartupMessage
	// asked for it with its replication parameter), its Logical the
	// pgoutput inside.
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
	walsender  bool        // the StartupMessage asked for a walsender: its Queries may be replication commands
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
	c.queue, c.head, c.discarding, c.pending, c.feCopy, c.nego, c.walsender = c.queue[:0], 0, false, copyNone, false, negotiation{}, false
	c.taken, c.done = 0, 0
	c.Frontend.reset(c)
	c.Backend.reset(c)
	c.Replication.reset(p)
}

// reset starts a side's count over, field by field: a composite literal of
// the whole tracker is built on the stack and copied (about 60 instructions
// a side, each connection). Its Step is set once for c: each message sets
// what it holds, and a Step is valid only until the next.
func (t *tracker) reset(c *Conversation) {
	if t.c != c {
		t.c = c
		t.step.reset(c)
	}
	t.Offset, t.Index = 0, 0
}

// reset makes s a side's Step before its first message.
func (s *Step) reset(c *Conversation) {
	s.Msg, s.Sub, s.Logical, s.kept = nil, nil, nil, false
	s.cur, s.p, s.lt = &c.P, Params{}, c.Replication.logical()
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

// The generated Next of each side (trackers_gen.go) is one switch on the
// frame's tag (on its request code in the frontend's startup states): the
// message the state allows on its act alone (actFast) is
// decoded by its own Decode with the conversation's P and taken in its
// case, through took, the side's took<Message> hook where the runtime has
// one, and the parts of the act the kind's acts have; anything else (a
// frame that fails, a violation, a message whose rule must be looked up,
// the one-byte answers) takes the general path, next, which decodes it
// again.

// took starts the Step of message m, decoded from frame with the
// conversation's P: no messages inside yet, frame counted as taken. It
// returns the Step and the frame's offset.
func (t *tracker) took(frame []byte, m Message) (*Step, int64) {
	s, off := t.taking(frame, m)
	s.clearInner()
	return s, off
}

// taking is took for a message whose hook sets the messages inside it.
func (t *tracker) taking(frame []byte, m Message) (*Step, int64) {
	s := &t.step
	s.Msg, s.kept = m, false
	off := t.Offset
	t.Offset += int64(len(frame))
	t.Index++
	return s, off
}

// untook uncounts frame, which Next's fast path counted before its decode
// failed: the general path takes it.
func (t *tracker) untook(frame []byte) {
	t.Offset -= int64(len(frame))
	t.Index--
}

// setParams makes p the Params the next messages decode with, the Steps
// taken keeping the ones they were decoded with. The same Params again
// (a StartupMessage asking for 3.0) change nothing to keep.
func (c *Conversation) setParams(p Params) {
	if p != c.P {
		c.Frontend.step.keep(c.P)
		c.Backend.step.keep(c.P)
		c.P = p
	}
}

// tooMany is the violation of a request of kind k, at off, that the side
// in state st queued beyond maxPending.
func (t *tracker) tooMany(st flowState, k flowKind, off int64) error {
	e := flowViolation(st, k, t.c.P.Major, off, t.Index-1)
	e.Detail = "more requests wait for an answer than a tracker follows (65536)"
	return e
}

// acted applies act a of the message of kind k at off, sent by side: the
// request it queues, both sides' next states, the request it ends or
// discards. It returns err, what failed inside the message, placed at off.
func (t *tracker) acted(side flowSide, a flowAct, k flowKind, off int64, err error) error {
	c := t.c
	own, other := &c.fe, &c.be
	if side == sideBackend {
		own, other = other, own
	}
	if q := flowState(a >> actPush); q != 0 && !c.push(q-1) {
		return t.tooMany(*own, k, off)
	}
	c.move(own, other, a)
	c.settle(a)
	if err != nil {
		return offsetted(err, off)
	}
	return nil
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
	s, off := t.took(nil, nil)
	c := t.c
	r := flowLookup(c.fe, kindDirectTLS, c.P.Major)
	if r == nil {
		return s, flowViolation(c.fe, kindDirectTLS, c.P.Major, off, t.Index-1)
	}
	c.move(&c.fe, &c.be, r.act)
	c.settle(r.act)
	return s, nil
}

// next is Next's general path: it decodes frame as the state says (a
// startup packet, a 'p' by the authentication exchange) and takes it by
// its rule.
func (t *FrontendTracker) next(frame []byte) (*Step, error) {
	c := t.c
	p := c.P
	st := c.fe
	var k flowKind
	var m Message
	var err error
	switch {
	case untaggedStates[st]:
		if len(frame) >= 8 {
			k = kindsStartup(binary.BigEndian.Uint32(frame[4:]))
			// A CancelRequest comes on a connection of its own: only its
			// length tells a 3.2 key from a 3.0 one (4 bytes read the same).
			if k == kindCancelRequest && len(frame) != 16 {
				p.ProtocolMinor = 2
			}
		}
		m, err = t.st.Decode(frame, p)
	case len(frame) > 0 && frame[0] == 'p':
		if k = passwordKinds[st]; k == kindNone {
			s, off := t.took(frame, nil)
			e := flowViolation(st, k, c.P.Major, off, t.Index-1)
			e.Got = "'p' (a password, SASL or GSSAPI response)"
			return s, e
		}
		t.fe.Auth = authStates[st]
		m, err = t.fe.Decode(frame, p)
	default:
		if len(frame) > 0 {
			k = kindsFrontend[frame[0]]
		}
		m, err = t.fe.Decode(frame, p)
	}
	if err != nil {
		s, _ := t.took(frame, nil) // a frame that fails holds its bytes all the same
		return s, err
	}
	s, off := t.took(frame, m)
	if p != c.P {
		s.keep(p)
	}
	a := actIn(st, k)
	if a&actRule != 0 { // an encryption request some majors lack, direct TLS
		a, _ = lookAct(st, k, c.P.Major, frame[0])
	}
	if a == 0 {
		return s, flowViolation(st, k, c.P.Major, off, t.Index-1)
	}
	return s, t.acted(sideFrontend, a, k, off, t.hook(k, s))
}

// tookStartupMessage takes the protocol the StartupMessage asks for.
func (t *FrontendTracker) tookStartupMessage() {
	m, p := &t.st.startupMessage, t.c.P
	p.ProtocolMinor = int(m.ProtocolVersion & 0xffff)
	t.c.setParams(p)
	t.c.walsender = t.c.nego.ask(m)
}

// tookCancelRequest keeps protocol 3.2 as the Params of a CancelRequest
// whose key is longer than 3.0's 4 bytes: it comes on a connection of its
// own, and only its length tells.
func (t *FrontendTracker) tookCancelRequest() {
	if len(t.st.cancelRequest.SecretKey) != 4 {
		p := t.c.P
		p.ProtocolMinor = 2
		t.step.keep(p)
	}
}

// tookQuery notes the stream a replication command asks for: a
// walsender's Query may be one, any other connection's is SQL.
func (t *FrontendTracker) tookQuery() {
	if c := t.c; c.walsender {
		c.pending = c.Replication.start(t.fe.query.String)
	}
}

// tookCopyData decodes the replication message inside a CopyData of a
// replication stream (the state at its arrival is the side's state still).
func (t *FrontendTracker) tookCopyData(s *Step) error {
	if c := t.c; c.fe == stFrontendCopyBoth && c.feCopy {
		return c.Replication.next(s, sideFrontend, t.fe.copyData.Data)
	}
	s.clearInner()
	return nil
}

// Release lets go of the decoded messages the tracker keeps for reuse:
// their strings are copies, which after a large message would pin its size
// until the next message of the same type.
func (t *FrontendTracker) Release() {
	t.st, t.fe = Startup{}, Frontend{}
	t.step.reset(t.c)
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

// answered takes frame, the one-byte answer of kind k to an encryption
// request, by the rule for its value.
func (t *BackendTracker) answered(k flowKind, frame []byte) (*Step, error) {
	c := t.c
	st := c.be
	// Each Decode called directly: one through the interface costs a call
	// the compiler cannot inline or devirtualise.
	var m Message = &t.ssl
	var err error
	// pgspec:if message:gssenc-response
	if k == kindGSSEncResponse {
		m, err = &t.gss, t.gss.Decode(frame, c.P)
	} else {
		err = t.ssl.Decode(frame, c.P)
	}
	// pgspec:end
	// pgspec:if no-message:gssenc-response
	err = t.ssl.Decode(frame, c.P)
	// pgspec:end
	if err != nil {
		s, _ := t.took(frame, nil) // a frame that fails holds its bytes all the same
		return s, err
	}
	s, off := t.took(frame, m)
	a := answeredAct(st, frame[0])
	if a == 0 {
		a, _ = lookAct(st, k, c.P.Major, frame[0])
	}
	if a == 0 {
		return s, flowViolation(st, k, c.P.Major, off, t.Index-1)
	}
	// An answer queues no request (spec/flow.go: only a frontend rule
	// pushes) and has no hook (trackersFile refuses one): its act is
	// applied here, without acted.
	c.move(&c.be, &c.fe, a)
	c.settle(a)
	return s, nil
}

// answeredAct is the act of answer b in st from answerActs, 0 when its
// rule must be looked up.
func answeredAct(st flowState, b byte) flowAct {
	for _, e := range &answerActs[st] {
		if e.b == b {
			return e.act
		}
	}
	return 0
}

// next is Next's general path: it decodes frame as the state says (a
// one-byte answer, which answered takes, an 'R' by its subtype, a 3.2
// layout on a 3.0 session) and takes it by its rule.
func (t *BackendTracker) next(frame []byte) (*Step, error) {
	c := t.c
	st := c.be
	// A server that predates SSL answers with an ErrorResponse instead.
	if k := answerKinds[st]; k != kindNone && len(frame) == 1 {
		return t.answered(k, frame)
	}
	p := c.P
	var k flowKind
	var m Message
	var err error
	switch {
	case len(frame) >= 9 && frame[0] == 'R': // 'R' is told apart by its subtype
		if sub := binary.BigEndian.Uint32(frame[5:]); sub < uint32(len(authKinds)) {
			k = authKinds[sub]
		}
		m, err = t.be.Decode(frame, p)
	default:
		if len(frame) > 0 {
			k = kindsBackend[frame[0]]
		}
		m, err = t.be.Decode(frame, p)
		if err != nil && p.ProtocolMinor < 2 {
			// A layout of protocol 3.2 (a cancel key longer than 4 bytes)
			// on a 3.0 session: decoded as 3.2, reported as a violation.
			p.ProtocolMinor = 2
			if m, err2 := t.be.Decode(frame, p); err2 == nil {
				s, off := t.took(frame, m)
				s.keep(p)
				e := flowViolation(st, k, c.P.Major, off, t.Index-1)
				e.Detail = s.Msg.Slug() + " has the layout of protocol 3.2; the session speaks 3.0"
				return s, e
			}
		}
	}
	if err != nil {
		s, _ := t.took(frame, nil) // a frame that fails holds its bytes all the same
		return s, err
	}
	s, off := t.took(frame, m)
	// A message is taken on its act alone, unless the act needs its rule
	// (actRule: the one-byte answers, what NegotiateProtocolVersion requires).
	a := actIn(st, k)
	if a&actRule != 0 {
		a, _ = lookAct(st, k, c.P.Major, frame[0])
	}
	if a == 0 {
		return s, flowViolation(st, k, c.P.Major, off, t.Index-1)
	}
	err = t.hook(k, s)
	// pgspec:if message:negotiate-protocol-version
	if k == kindNegotiateProtocolVersion {
		m := s.Msg.(*NegotiateProtocolVersion)
		r := flowLookup(st, k, c.P.Major) // a was its act
		if d := c.nego.answer(m, c.P.Major); r != nil && r.requires == requiresNegotiation && d != "" {
			e := flowViolation(st, k, c.P.Major, off, t.Index-1)
			e.Detail = d
			return s, e
		}
		if minor := int(m.NewestProtocolVersion & 0xffff); minor < c.P.ProtocolMinor {
			p := c.P
			p.ProtocolMinor = minor
			c.setParams(p)
		}
	}
	// pgspec:end
	if a&actNegotiated != 0 && c.nego.asked(c.P.ProtocolMinor) {
		if e := t.unnegotiated(st, k, off); e != nil {
			// What is missing came before: the start-up is over all the same.
			t.acted(sideBackend, a, k, off, nil)
			return s, e
		}
	}
	return s, t.acted(sideBackend, a, k, off, err)
}

// unnegotiated is the violation of the message of kind k at off, ending
// the start-up in state st (actNegotiated), when the negotiation missed
// what the StartupMessage asked; nil when it did not.
func (t *tracker) unnegotiated(st flowState, k flowKind, off int64) error {
	c := t.c
	d := c.nego.missing(c.P.Major, c.P.ProtocolMinor)
	if d == "" {
		return nil
	}
	e := flowViolation(st, k, c.P.Major, off, t.Index-1)
	e.Detail = d
	return e
}

// tookParameterStatus takes what a ParameterStatus tells the conversation.
func (t *BackendTracker) tookParameterStatus() {
	t.c.parameter(&t.be.parameterStatus)
}

// tookCommandComplete and tookErrorResponse end the copy stream a command
// began.
func (t *BackendTracker) tookCommandComplete() {
	t.c.Replication.open(copyNone)
}

func (t *BackendTracker) tookErrorResponse() {
	t.c.Replication.open(copyNone)
}

// tookReadyForQuery forgets the stream the last command asked for.
func (t *BackendTracker) tookReadyForQuery() {
	t.c.pending = copyNone
}

// tookCopyBothResponse begins the stream the replication command asked
// for, both sides' CopyData carrying replication messages.
func (t *BackendTracker) tookCopyBothResponse() {
	c := t.c
	c.Replication.P = Params{Major: c.P.Major, ProtocolMinor: c.P.ProtocolMinor}
	c.Replication.open(c.pending)
	c.feCopy = c.pending == copyPhysical || c.pending == copyLogical
}

// tookCopyOutResponse begins a base backup's stream, or plain COPY data.
func (t *BackendTracker) tookCopyOutResponse() {
	c := t.c
	c.Replication.P = Params{Major: c.P.Major, ProtocolMinor: c.P.ProtocolMinor}
	if c.pending == copyBackup {
		c.Replication.open(copyBackup)
	} else {
		c.Replication.open(copyNone)
	}
}

// tookCopyData decodes the replication message inside a CopyData of a
// replication stream.
func (t *BackendTracker) tookCopyData(s *Step) error {
	return t.c.Replication.backend(s, &t.be.copyData.Data)
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
	p := c.P
	p.Major = ServerMajor(v)
	c.setParams(p)
	c.Replication.P.Major = c.P.Major
}

// Release lets go of the decoded messages the tracker keeps for reuse.
func (t *BackendTracker) Release() {
	t.be = Backend{}
	t.step.reset(t.c)
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
// waiting: the backend is idle only with none waiting, so an act that
// neither ends a request nor sets the backend's state needs no settle.
// The test inlines; the work, seldom needed, does not.
func (c *Conversation) settle(a flowAct) {
	if a&(actEnd|actDiscard) != 0 || c.be == stBackendIdle && c.head < len(c.queue) {
		c.settled(a)
	}
}

// settled is settle's work. An answer ended with none waiting (most often a
// ReadyForQuery) is done once the backend is idle: head at the queue's end
// means an empty queue, which settled leaves so.
func (c *Conversation) settled(a flowAct) {
	switch {
	case a&actEnd != 0:
		c.be = stBackendIdle
		c.done++
		if c.head == len(c.queue) {
			return
		}
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
	if c.be == stBackendIdle { // none waits (settle takes the oldest when idle)
		c.taken++
		c.be = s
		return true
	}
	if len(c.queue)-c.head >= maxPending {
		return false
	}
	c.taken++
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
// idle, and as a walsender if its Queries are replication commands.
// Answers to requests sent before are then reported as violations.
func (c *Conversation) Resume() {
	c.fe, c.be, c.walsender = stFrontendSession, stBackendIdle, true
	c.queue, c.head, c.discarding = c.queue[:0], 0, false
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
