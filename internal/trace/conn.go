package trace

import (
	"errors"
	"sync"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/spec"
)

// The sizes PostgreSQL itself accepts from a client before it trusts it: a
// startup-phase packet (MAX_STARTUP_PACKET_LENGTH) and an authentication
// message (PG_MAX_AUTH_TOKEN_LENGTH). PostgreSQL compares both with the
// length field; these are whole messages, so the authentication message's
// tag is added. A longer announced length ends the connection before any
// of the body is read.
const (
	MaxStartupSize = 10000
	MaxAuthSize    = 1 + 65535
)

// Layer is one decoded level of a wire message: the message itself, or a
// sub-message inside a CopyData or an XLogData.
type Layer struct {
	// Name is the layer: "startup", "frontend-backend", "replication" or
	// "logical-replication".
	Name string
	// Msg is the decoded message; it aliases the frame it was decoded from
	// and is valid until the direction's next message.
	Msg codec.Message
	// Params are those Msg was decoded with.
	Params codec.Params
}

// conn is one connection's conversation, which both directions feed: it
// decides how each next message is framed and decoded. A message is taken
// before it is forwarded, and the peer answers only after receiving it, so
// the conversation sees the messages in the order the peers did. The lock
// keeps the two directions' goroutines from taking messages at once.
type conn struct {
	id int64

	mu   sync.Mutex
	conv *codec.Conversation
	// resumed: the capture joined the connection after its start, so the
	// flow cannot be checked (the requests answered were never seen).
	resumed bool

	dirs [2]decoder
}

func newConn(id int64) *conn {
	c := &conn{id: id, conv: codec.NewConversation(codec.Params{})}
	for d := range c.dirs {
		c.dirs[d] = decoder{c: c, dir: Direction(d)}
	}
	return c
}

// fixMajor decodes the connection with major whatever server_version says.
func (c *conn) fixMajor(major int) {
	c.conv.P.Major, c.conv.FixMajor = major, true
}

// resume takes up a connection whose start was missed: authenticated, and
// its flow not checked.
func (c *conn) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conv.Resume()
	c.resumed = true
}

// locked reports what f says of the conversation.
func (c *conn) locked(f func(*codec.Conversation) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f(c.conv)
}

// decrypted: the proxy holds the TLS end, so what comes through it is read.
func (c *conn) decrypted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conv.Decrypted()
}

// directTLS: the client began TLS without SSLRequest.
func (c *conn) directTLS() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.conv.Frontend.DirectTLS()
	return err
}

func (c *conn) authenticated() bool { return c.locked((*codec.Conversation).Authenticated) }
func (c *conn) started() bool       { return c.locked((*codec.Conversation).Started) }
func (c *conn) encrypted() bool     { return c.locked((*codec.Conversation).Encrypted) }

// answerPending: the server's next message is its one-byte answer.
func (c *conn) answerPending() bool {
	return c.locked(func(v *codec.Conversation) bool { return v.Backend.OneByte() })
}

// decoder is one direction of a connection and its decoded layers.
type decoder struct {
	c      *conn
	dir    Direction
	offset int64 // of the next message in this direction's byte stream
	layers [3]Layer
	// settled: the connection is authenticated and in plaintext, so every
	// later message of the direction is tagged and its limit is the
	// caller's (framing need not take the lock again).
	settled bool
}

// forget drops the decoded messages: their strings are copies, which after a
// large message would pin its size until the next message of the same type.
func (d *decoder) forget() {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	if d.dir == Frontend {
		d.c.conv.Frontend.Release()
	} else {
		d.c.conv.Backend.Release()
	}
	d.layers = [3]Layer{}
}

// frameKind is how the next message of a direction is cut from its bytes.
type frameKind int

const (
	tagged    frameKind = iota // tag byte, Int32 length, body
	untagged                   // Int32 length, body: the client's startup phase
	oneByte                    // the server's answer to SSLRequest or GSSENCRequest
	undecoded                  // encrypted: nothing can be cut
)

// next says how the direction's next message is framed.
func (d *decoder) next() frameKind {
	k, _ := d.framing(0)
	return k
}

// framing says how the direction's next message is framed and how long it
// may be: the server is trusted as far as the protocol allows; a client is
// held to PostgreSQL's own limits until it has authenticated, then to max.
// One lock for both, as the pump asks before each message.
func (d *decoder) framing(max int) (frameKind, int) {
	if d.dir == Backend {
		max = codec.DefaultMaxSize
	}
	if d.settled {
		return tagged, max
	}
	c := d.c
	c.mu.Lock()
	defer c.mu.Unlock()
	size := max
	switch {
	case d.dir == Backend:
	case !c.conv.Started():
		size = MaxStartupSize
	case !c.conv.Authenticated():
		size = MaxAuthSize
	}
	switch {
	case c.conv.Encrypted():
		return undecoded, size
	case d.dir == Frontend && c.conv.Frontend.Untagged():
		return untagged, size
	case d.dir == Backend && c.conv.Backend.OneByte():
		return oneByte, size
	}
	d.settled = c.conv.Authenticated()
	return tagged, size
}

// maxSize is the longest message the direction accepts now (see framing).
func (d *decoder) maxSize(max int) int {
	_, size := d.framing(max)
	return size
}

// decode takes one message of the direction apart, down to the replication
// and pgoutput messages inside CopyData, through the conversation. On error
// the layers decoded so far are returned, the failed one last with a nil
// Msg when even its type is unknown; a *codec.FlowError comes with every
// layer decoded.
func (d *decoder) decode(frame []byte) ([]Layer, error) {
	c := d.c
	c.mu.Lock()
	defer c.mu.Unlock()
	d.offset += int64(len(frame))
	var s *codec.Step
	var err error
	name := spec.LayerFrontendBackend
	if d.dir == Frontend {
		if c.conv.Frontend.Untagged() {
			name = "startup"
		}
		s, err = c.conv.Frontend.Next(frame)
	} else {
		if c.conv.Backend.OneByte() { // SSLResponse or GSSEncResponse: untagged too
			name = "startup"
		}
		s, err = c.conv.Backend.Next(frame)
	}
	if c.resumed && err != nil && isFlowError(err) {
		err = nil
	}
	d.layers[0] = Layer{Name: name, Msg: s.Msg, Params: s.Params()}
	// A layer inside that failed to decode is the last, without a Msg.
	failed := err != nil && isDecodeError(err)
	if s.Sub == nil && (!failed || !carries(s.Msg)) {
		return d.layers[:1], err
	}
	d.layers[1] = Layer{Name: "replication", Msg: s.Sub, Params: s.Params()}
	if s.Logical == nil && (!failed || !carries(s.Sub)) {
		return d.layers[:2], err
	}
	d.layers[2] = Layer{Name: spec.LayerLogicalReplication, Msg: s.Logical, Params: s.LogicalP}
	return d.layers[:3], err
}

// carries reports whether m holds a message of another layer (its
// descriptor's Payload).
func carries(m codec.Message) bool { return m != nil && m.Descriptor().Payload() >= 0 }

// isDecodeError reports whether err is a *codec.DecodeError (see isFlowError).
func isDecodeError(err error) bool {
	var de *codec.DecodeError
	return errors.As(err, &de)
}
