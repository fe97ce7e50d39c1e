package trace

import (
	"strings"
	"sync/atomic"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
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

// conn is what the two directions of one connection learn from each other:
// the state that decides how the next message is decoded. A message that
// changes it is decoded before it is forwarded, and the peer answers only
// after receiving it, so the state is current whenever the other direction
// reads it. The fields are atomics so that reading them costs no lock.
type conn struct {
	id int64

	major, protocolMinor atomic.Int32                        // codec.Params.Major (0: newest) and ProtocolMinor
	auth                 atomic.Int32                        // codec.AuthState: what the client's next 'p' is
	authenticated        atomic.Bool                         // AuthenticationOk seen: the client's limit is the configured one
	started              atomic.Bool                         // StartupMessage seen: the client sends tagged messages
	answerPending        atomic.Uint32                       // the code of the SSLRequest or GSSENCRequest sent: the server answers one byte
	encrypted            atomic.Bool                         // the server accepted encryption: nothing more can be decoded
	replicating          atomic.Bool                         // in a CopyBoth stream: CopyData carry replication messages
	pending              atomic.Pointer[session.Replication] // from START_REPLICATION, until its CopyBothResponse
	backupPending        atomic.Bool                         // BASE_BACKUP sent, its CopyOutResponse not yet seen
	majorFixed           bool                                // major set by the user: server_version does not change it

	dirs [2]decoder
}

func newConn(id int64) *conn {
	c := &conn{id: id}
	for d := range c.dirs {
		c.dirs[d] = decoder{c: c, dir: Direction(d)}
	}
	return c
}

func (c *conn) params() codec.Params {
	return codec.Params{Major: int(c.major.Load()), ProtocolMinor: int(c.protocolMinor.Load())}
}

// decoder is one direction's decoders and the state only that direction uses.
type decoder struct {
	c      *conn
	dir    Direction
	offset int64 // of the next message in this direction's byte stream

	st  codec.Startup
	fe  codec.Frontend
	be  codec.Backend
	rf  codec.ReplicationFrontend
	rb  codec.ReplicationBackend // a base backup's CopyData
	ssl codec.SSLResponse
	gss codec.GSSEncResponse

	// Backend only: the replication stream in progress (nil outside one),
	// and whether CopyData carry BASE_BACKUP's sub-messages.
	stream *session.Replication
	backup bool

	layers [3]Layer
}

// forget drops the decoded messages: their strings are copies, which after a
// large message would pin its size until the next message of the same type.
func (d *decoder) forget() {
	d.st, d.fe, d.be, d.rf, d.rb = codec.Startup{}, codec.Frontend{}, codec.Backend{}, codec.ReplicationFrontend{}, codec.ReplicationBackend{}
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
	switch {
	case d.c.encrypted.Load():
		return undecoded
	case d.dir == Frontend && !d.c.started.Load():
		return untagged
	case d.dir == Backend && d.c.answerPending.Load() != 0:
		return oneByte
	}
	return tagged
}

// maxSize is the longest message the direction accepts now: the server is
// trusted as far as the protocol allows; a client is held to PostgreSQL's
// own limits until it has authenticated, then to max.
func (d *decoder) maxSize(max int) int {
	switch {
	case d.dir == Backend:
		return codec.DefaultMaxSize
	case !d.c.started.Load():
		return MaxStartupSize
	case !d.c.authenticated.Load():
		return MaxAuthSize
	}
	return max
}

// decode takes one message of the direction apart, down to the replication
// and pgoutput messages inside CopyData, and updates the connection's
// state. On error the layers decoded so far are returned, the failed one
// last with a nil Msg when even its type is unknown.
func (d *decoder) decode(frame []byte) ([]Layer, error) {
	d.offset += int64(len(frame))
	switch d.next() {
	case untagged:
		return d.decodeStartup(frame)
	case oneByte:
		var m codec.Message = &d.ssl
		if d.c.answerPending.Load() == gssEncRequestCode {
			m = &d.gss
		}
		d.c.answerPending.Store(0)
		d.c.encrypted.Store(frame[0] != 'N')
		err := m.Decode(frame, d.c.params())
		d.layers[0] = Layer{Name: "startup", Msg: m}
		return d.layers[:1], err
	}
	p := d.c.params()
	var m codec.Message
	var err error
	if d.dir == Frontend {
		d.fe.Auth = codec.AuthState(d.c.auth.Load())
		m, err = d.fe.Decode(frame, p)
	} else {
		m, err = d.be.Decode(frame, p)
	}
	d.layers[0] = Layer{Name: spec.LayerFrontendBackend, Msg: m, Params: p}
	chain := d.layers[:1]
	if err != nil {
		return chain, err
	}
	if d.dir == Frontend {
		d.frontendSent(m)
	} else {
		d.backendSent(m)
	}
	cd, ok := m.(*codec.CopyData)
	if !ok || (!d.c.replicating.Load() && !d.backup) {
		return chain, nil
	}
	var sub, lm codec.Message
	lp := p
	switch {
	case d.dir == Frontend:
		sub, err = d.rf.Decode(cd.Data, p)
	case d.stream != nil:
		d.stream.P.Major, d.stream.P.ProtocolMinor = p.Major, p.ProtocolMinor
		lp = d.stream.P // the layout lm is decoded with, before Stream Start or Stop changes it
		sub, lm, err = d.stream.Decode(cd.Data)
	default: // a base backup
		sub, err = d.rb.Decode(cd.Data, p)
	}
	d.layers[1] = Layer{Name: "replication", Msg: sub, Params: p}
	if _, ok := sub.(*codec.XLogData); !ok || d.stream == nil || !d.stream.Logical {
		return d.layers[:2], err
	}
	d.layers[2] = Layer{Name: spec.LayerLogicalReplication, Msg: lm, Params: lp}
	return d.layers[:3], err
}

// The request codes CancelRequest, SSLRequest and GSSENCRequest carry in
// place of a protocol version.
const (
	cancelRequestCode = 80877102
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
)

// decodeStartup decodes the client's untagged startup-phase messages.
func (d *decoder) decodeStartup(frame []byte) ([]Layer, error) {
	p := d.c.params()
	m, err := d.st.Decode(frame, p)
	d.layers[0] = Layer{Name: "startup", Msg: m, Params: p}
	if err != nil {
		return d.layers[:1], err
	}
	switch m := m.(type) {
	case *codec.SSLRequest:
		d.c.answerPending.Store(sslRequestCode)
	case *codec.GSSEncRequest:
		d.c.answerPending.Store(gssEncRequestCode)
	case *codec.StartupMessage:
		d.c.protocolMinor.Store(int32(session.ProtocolVersion(m.ProtocolVersion).Minor()))
		d.c.started.Store(true)
	}
	return d.layers[:1], nil
}

// frontendSent notes what a client message tells about the replies to come.
func (d *decoder) frontendSent(m codec.Message) {
	q, ok := m.(*codec.Query)
	if !ok {
		return
	}
	if st, ok := parseStartReplication(q.String); ok {
		d.c.pending.Store(st)
	}
	if fields := strings.Fields(q.String); len(fields) > 0 && strings.EqualFold(fields[0], "BASE_BACKUP") {
		d.c.backupPending.Store(true)
	}
}

// backendSent follows the server: authentication requests decide what the
// client's next 'p' is, ParameterStatus gives the major, and the copy
// responses open replication and base backup streams.
func (d *decoder) backendSent(m codec.Message) {
	c := d.c
	switch m := m.(type) {
	case *codec.AuthenticationOk:
		c.authenticated.Store(true)
	case *codec.AuthenticationCleartextPassword, *codec.AuthenticationMD5Password:
		c.auth.Store(int32(codec.AuthPassword))
	case *codec.AuthenticationSASL:
		c.auth.Store(int32(codec.AuthSASLInitial))
	case *codec.AuthenticationSASLContinue:
		c.auth.Store(int32(codec.AuthSASL))
	case *codec.AuthenticationGSS, *codec.AuthenticationSSPI, *codec.AuthenticationGSSContinue:
		c.auth.Store(int32(codec.AuthGSS))
	case *codec.NegotiateProtocolVersion:
		c.protocolMinor.Store(int32(session.ProtocolVersion(m.NewestProtocolVersion).Minor()))
	case *codec.ParameterStatus:
		if m.Name == "server_version" && !c.majorFixed {
			if major, err := session.ParseServerVersion(m.Value); err == nil {
				c.major.Store(int32(session.Layout(major)))
			}
		}
	case *codec.CopyBothResponse:
		d.stream = c.pending.Swap(nil)
		if d.stream == nil { // a stream no START_REPLICATION announced: physical
			d.stream = &session.Replication{}
		}
		c.replicating.Store(true)
	case *codec.CopyOutResponse:
		// Before 15 a base backup's CopyData are raw tar and manifest
		// bytes, not the sub-messages the codec decodes.
		d.backup = c.backupPending.Swap(false) && (&codec.BackupData{}).Majors().Has(int(c.major.Load()))
	case *codec.CommandComplete, *codec.ErrorResponse:
		d.endCopy()
	case *codec.ReadyForQuery:
		d.endCopy()
		c.pending.Store(nil)
		c.backupPending.Store(false)
	}
}

// endCopy forgets the replication or base backup stream that ended.
func (d *decoder) endCopy() {
	if d.stream != nil {
		d.stream = nil
		d.c.replicating.Store(false)
	}
	d.backup = false
}
