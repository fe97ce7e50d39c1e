package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/codec"
)

// Config says as whom to start a session.
type Config struct {
	User, Password, Database string
	// Params are further startup parameters: application_name, options,
	// replication ("true" for physical, "database" for logical) …
	Params map[string]string
	// Protocol is the version to ask for; 0 means Protocol32. A server
	// before PostgreSQL 18 answers with NegotiateProtocolVersion and the
	// session goes on in 3.0. Set Protocol30 for a pooler that refuses 3.2.
	Protocol ProtocolVersion
	// ProtocolOptions are "_pq_." parameters; a server that does not know
	// them lists them in NegotiateProtocolVersion (Conn.UnrecognizedOptions).
	ProtocolOptions map[string]string
	// RequireAuth, when not empty, lists the authentication methods the
	// client accepts (Auth.Require): "trust", "password", "md5",
	// "SCRAM-SHA-256".
	RequireAuth []string
}

// StartupMessage is the StartupMessage for c, its parameters in name order.
func (c Config) StartupMessage() *codec.StartupMessage {
	version := c.Protocol
	if version == 0 {
		version = Protocol32
	}
	params := map[string]string{"user": c.User}
	if c.Database != "" {
		params["database"] = c.Database
	}
	maps.Copy(params, c.Params)
	maps.Copy(params, c.ProtocolOptions)
	m := &codec.StartupMessage{ProtocolVersion: uint32(version)}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		m.Parameters = append(m.Parameters, codec.StartupParameter{Name: k, Value: params[k]})
	}
	return m
}

// Conn is a client session over any byte stream (a net.Conn, a TLS
// connection, a net.Pipe in tests): it frames and decodes what the server
// sends, encodes what the client sends, and keeps what the server said
// about the session. It is not safe for concurrent use.
type Conn struct {
	// Conversation follows the session in both directions: its P is the
	// layout messages are encoded and decoded with (Major from
	// server_version, ProtocolMinor from the negotiation), its Replication
	// the stream StartReplication began, and a message the protocol's flow
	// does not allow is a *codec.FlowError.
	*codec.Conversation
	// Server holds the ParameterStatus values the server reported.
	Server map[string]string
	// ProcessID and SecretKey come from BackendKeyData, for CancelRequest.
	ProcessID uint32
	SecretKey []byte
	// Protocol is the protocol version the session speaks.
	Protocol ProtocolVersion
	// UnrecognizedOptions are the "_pq_." options the server did not know.
	UnrecognizedOptions []string
	// AuthMethod says how the server authenticated the client (Auth.Method).
	AuthMethod string
	// Strict makes Receive return a message the protocol's flow does not
	// allow where it came as a *codec.FlowError; otherwise it is taken as
	// it came.
	Strict bool
	// OnMessage, when set, sees every message Receive decodes (those
	// Startup and ReadUntilReady read included), after the Conn has taken
	// note of it: the place for notices (NoticeResponse), notifications
	// (NotificationResponse) and logging.
	OnMessage func(codec.Message)

	rw   io.ReadWriter
	fr   *codec.FrameReader
	wbuf []byte
}

// NewConn returns a session on rw; call Startup first.
func NewConn(rw io.ReadWriter) *Conn {
	return &Conn{Conversation: codec.NewConversation(codec.Params{}), rw: rw, fr: codec.NewFrameReader(rw), Server: map[string]string{}}
}

// Startup sends the StartupMessage for cfg, authenticates with cfg's user
// and password, and reads up to the first ReadyForQuery. An ErrorResponse
// is returned as *Error.
func (c *Conn) Startup(cfg Config) error {
	startup := cfg.StartupMessage()
	c.Protocol = ProtocolVersion(startup.ProtocolVersion)
	if err := c.Send(startup); err != nil {
		return err
	}
	auth := Auth{User: cfg.User, Password: cfg.Password, Require: cfg.RequireAuth}
	for done := false; !done; {
		m, err := c.Receive()
		if err != nil {
			return err
		}
		var reply codec.Message
		if reply, done, err = auth.Reply(m); err != nil {
			return err
		}
		if reply != nil {
			if err := c.Send(reply); err != nil {
				return err
			}
		}
	}
	c.AuthMethod = auth.Method
	_, err := c.ReadUntilReady(nil)
	return err
}

// Send encodes the messages and writes them in one write. The
// conversation takes each but refuses none: what a client sends is the
// server's to judge (a test may break the protocol on purpose).
func (c *Conn) Send(msgs ...codec.Message) error {
	buf := c.wbuf[:0]
	for _, m := range msgs {
		start := len(buf)
		var err error
		if buf, err = m.Encode(buf, c.P); err != nil {
			return err
		}
		c.Frontend.Next(buf[start:])
	}
	return c.write(buf)
}

// SendCopyData sends m, a streaming replication message (a standby status
// update, hot standby feedback), inside a CopyData.
func (c *Conn) SendCopyData(m codec.Message) error {
	buf, err := AppendCopyData(c.wbuf[:0], m, c.P)
	if err != nil {
		return err
	}
	c.Frontend.Next(buf)
	return c.write(buf)
}

func (c *Conn) write(buf []byte) error {
	c.wbuf = buf
	_, err := c.rw.Write(buf)
	return err
}

// Receive reads and decodes the next message; it is valid until the next
// Receive (its strings stay valid for good; Clone it to keep it whole).
// ParameterStatus, BackendKeyData and NegotiateProtocolVersion update the
// Conn as they pass.
func (c *Conn) Receive() (codec.Message, error) {
	s, err := c.ReceiveStep()
	if err != nil {
		return nil, err
	}
	return s.Msg, nil
}

// ReceiveStep is Receive with what the conversation found inside the
// message: in a replication stream, the replication message of a CopyData
// (Step.Sub) and the pgoutput message of an XLogData (Step.Logical).
func (c *Conn) ReceiveStep() (*codec.Step, error) {
	frame, err := c.fr.Next()
	if err != nil {
		return nil, err
	}
	s, err := c.Backend.Next(frame)
	if err != nil && (c.Strict || !errors.Is(err, codec.ErrFlow)) {
		return nil, err
	}
	switch m := s.Msg.(type) {
	case *codec.ParameterStatus:
		c.Server[m.Name] = m.Value
		if m.Name == "server_version" {
			if _, err := ParseServerVersion(m.Value); err != nil {
				return nil, err
			}
		}
	case *codec.BackendKeyData:
		c.ProcessID, c.SecretKey = m.ProcessID, bytes.Clone(m.SecretKey)
	case *codec.NegotiateProtocolVersion:
		if err := c.negotiate(m); err != nil {
			return nil, err
		}
	}
	if c.OnMessage != nil {
		c.OnMessage(s.Msg)
	}
	return s, nil
}

// negotiate takes the server's NegotiateProtocolVersion: the session goes
// on in the older version the server speaks. A version above the one asked
// for, not 3.x, or options that are not "_pq_." ones cannot come from a
// PostgreSQL server and end the session.
func (c *Conn) negotiate(m *codec.NegotiateProtocolVersion) error {
	// PostgreSQL sends the whole newest version it speaks (3<<16 | minor);
	// the manual says the minor alone, which is taken too.
	v := ProtocolVersion(m.NewestProtocolVersion)
	if v>>16 == 0 {
		v |= Protocol30
	}
	if m.NewestProtocolVersion < 0 || v.Major() != 3 || v > c.Protocol {
		return fmt.Errorf("session: NegotiateProtocolVersion offers %s (%#x) to a client that asked for %s", v, uint32(m.NewestProtocolVersion), c.Protocol)
	}
	for _, o := range m.UnrecognizedOptions {
		if !strings.HasPrefix(o, "_pq_.") {
			return fmt.Errorf("session: NegotiateProtocolVersion lists %q, not a protocol option", o)
		}
	}
	c.Protocol = v
	c.UnrecognizedOptions = slices.Clone(m.UnrecognizedOptions)
	return nil
}

// RequestEncryption sends req, an SSLRequest or a GSSENCRequest, on rw
// before the StartupMessage, and reads the server's one-byte answer:
// accepted ('S' or 'G') means the TLS or GSSAPI handshake starts now on
// rw, not accepted ('N') that the session goes on in plaintext. It reads
// exactly that byte, so no bytes the server sent after it can be mistaken
// for encrypted data (CVE-2021-23222): call it before NewConn. Any other
// answer is an error.
func RequestEncryption(rw io.ReadWriter, req codec.Message) (accepted bool, err error) {
	var yes byte
	switch req.(type) {
	case *codec.SSLRequest:
		yes = 'S'
	case *codec.GSSEncRequest:
		yes = 'G'
	default:
		return false, fmt.Errorf("session: %s is not an encryption request", req.Slug())
	}
	buf, err := req.Encode(nil, codec.Params{})
	if err != nil {
		return false, err
	}
	if _, err := rw.Write(buf); err != nil {
		return false, err
	}
	if _, err := io.ReadFull(rw, buf[:1]); err != nil {
		return false, fmt.Errorf("session: %s answer: %w", req.Slug(), err)
	}
	switch buf[0] {
	case yes:
		return true, nil
	case 'N':
		return false, nil
	}
	return false, fmt.Errorf("session: %s answered %q, want %q or 'N'", req.Slug(), buf[0], yes)
}

// ReadUntilReady reads until ReadyForQuery, calling each (if not nil) with
// every other message, and returns the transaction status ('I', 'T' or
// 'E'). The first ErrorResponse, or the first error each returns, is
// returned once ReadyForQuery has arrived, so the session stays usable.
func (c *Conn) ReadUntilReady(each func(codec.Message) error) (txStatus byte, err error) {
	var first error
	for {
		m, err := c.Receive()
		if err != nil {
			return 0, err
		}
		switch m := m.(type) {
		case *codec.ReadyForQuery:
			return m.TxStatus, first
		case *codec.ErrorResponse:
			if first == nil {
				first = NewError(m.Fields)
			}
			continue
		}
		if each != nil && first == nil {
			first = each(m)
		}
	}
}

// Exec runs sql (one or more statements) with the simple query protocol,
// calling each with every message of the answer up to ReadyForQuery.
func (c *Conn) Exec(sql string, each func(codec.Message) error) error {
	if err := c.Send(&codec.Query{String: sql}); err != nil {
		return err
	}
	_, err := c.ReadUntilReady(each)
	return err
}

// StartReplication sends a START_REPLICATION command and waits for the
// server's CopyBothResponse; the stream then arrives as CopyData, for a
// Replication to decode.
func (c *Conn) StartReplication(cmd string) error {
	if err := c.Send(&codec.Query{String: cmd}); err != nil {
		return err
	}
	m, err := c.Receive()
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case *codec.CopyBothResponse:
		return nil
	case *codec.ErrorResponse:
		_, _ = c.ReadUntilReady(nil)
		return NewError(m.Fields)
	}
	return fmt.Errorf("session: %s answered with %T, want CopyBothResponse", cmd, m)
}

// Terminate sends Terminate, the polite end of a session; the caller
// closes the connection.
func (c *Conn) Terminate() error {
	return c.Send(&codec.Terminate{})
}

// errUnexpected reports a message that has no place where it arrived.
func errUnexpected(m codec.Message, where string) error {
	return errors.New("session: unexpected " + m.Slug() + " " + where)
}
