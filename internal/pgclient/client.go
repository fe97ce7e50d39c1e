package pgclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// Config says where and as whom to connect.
type Config struct {
	// Addr is the server's host:port.
	Addr     string
	User     string
	Password string
	Database string
	// Params are extra startup parameters (application_name, replication, options …).
	Params map[string]string
	// GSSEncRequest and SSLRequest make the client ask for GSSAPI encryption
	// and TLS first (in that order, as libpq does); any answer but 'N' is an
	// error, since this client speaks only plaintext.
	GSSEncRequest, SSLRequest bool
	// ProtocolMinor is the minor protocol version to ask for: 0 (3.0) or 2
	// (3.2). A server that lacks it answers NegotiateProtocolVersion.
	ProtocolMinor int
	// ProtocolOptions are "_pq_." startup parameters, which a server that
	// does not know them lists in NegotiateProtocolVersion.
	ProtocolOptions map[string]string
}

// Conn is one session. It is not safe for concurrent use.
type Conn struct {
	nc net.Conn
	fr *codec.FrameReader
	be codec.Backend
	// P is the layout every message is encoded and decoded with; Major is
	// learnt from the server_version parameter status.
	P codec.Params
	// ServerParams holds the ParameterStatus values the server reported.
	ServerParams map[string]string
	// ProcessID and SecretKey come from BackendKeyData, for CancelRequest.
	ProcessID uint32
	SecretKey []byte
	// AuthMethod names how the server authenticated us: "ok", "cleartext", "md5" or "SCRAM-SHA-256".
	AuthMethod string
	// SSLAnswer is the server's one-byte answer to SSLRequest, 0 when not asked.
	SSLAnswer byte
	// Negotiated is the server's NegotiateProtocolVersion, nil when it took the version asked for.
	Negotiated *codec.NegotiateProtocolVersion
	// Notices and Notifications collect the asynchronous messages as they arrive.
	Notices       []*Error
	Notifications []Notification
	// Decoded counts the messages decoded per slug, backend and replication
	// layers alike, for the suite's report.
	Decoded map[string]int

	rb codec.ReplicationBackend
	lg codec.Logical
	// wbuf and subBuf are reused for encoding messages and CopyData payloads.
	wbuf, subBuf []byte
}

// Connect opens a session: optional SSLRequest, StartupMessage,
// authentication, then everything up to the first ReadyForQuery.
func Connect(ctx context.Context, cfg Config) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	c := &Conn{nc: nc, ServerParams: map[string]string{}, Decoded: map[string]int{}}
	if deadline, ok := ctx.Deadline(); ok {
		nc.SetDeadline(deadline)
	}
	if err := c.startup(cfg); err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return c, nil
}

func (c *Conn) startup(cfg Config) error {
	var err error
	if cfg.GSSEncRequest {
		if _, err = c.requestEncryption(&codec.GSSEncRequest{}); err != nil {
			return err
		}
	}
	if cfg.SSLRequest {
		if c.SSLAnswer, err = c.requestEncryption(&codec.SSLRequest{}); err != nil {
			return err
		}
	}
	c.fr = codec.NewFrameReader(c.nc)
	c.P.ProtocolMinor = cfg.ProtocolMinor
	startup := &codec.StartupMessage{ProtocolVersion: 3<<16 | uint32(cfg.ProtocolMinor)}
	params := map[string]string{"user": cfg.User, "database": cfg.Database}
	maps.Copy(params, cfg.Params)
	maps.Copy(params, cfg.ProtocolOptions)
	for _, k := range slices.Sorted(maps.Keys(params)) {
		startup.Parameters = append(startup.Parameters, codec.StartupParameter{Name: k, Value: params[k]})
	}
	if err := c.Send(startup); err != nil {
		return err
	}
	if err := c.authenticate(cfg); err != nil {
		return err
	}
	_, err = c.ReadUntilReady(nil)
	return err
}

// requestEncryption sends SSLRequest or GSSENCRequest and reads the answer,
// a single byte rather than a message, before framing starts.
func (c *Conn) requestEncryption(req codec.Message) (byte, error) {
	if err := c.Send(req); err != nil {
		return 0, err
	}
	var b [1]byte
	if _, err := io.ReadFull(c.nc, b[:]); err != nil {
		return 0, fmt.Errorf("%s answer: %w", req.Slug(), err)
	}
	if b[0] != 'N' {
		return b[0], fmt.Errorf("%s answered %q; this client speaks only plaintext", req.Slug(), b[0])
	}
	return b[0], nil
}

// authenticate answers the server's authentication requests until AuthenticationOk.
func (c *Conn) authenticate(cfg Config) error {
	var sc *scram
	for {
		m, err := c.Receive()
		if err != nil {
			return err
		}
		switch m := m.(type) {
		case *codec.AuthenticationOk:
			if c.AuthMethod == "" {
				c.AuthMethod = "ok"
			}
			return nil
		case *codec.AuthenticationCleartextPassword:
			c.AuthMethod = "cleartext"
			err = c.Send(&codec.PasswordMessage{Password: cfg.Password})
		case *codec.AuthenticationMD5Password:
			c.AuthMethod = "md5"
			err = c.Send(&codec.PasswordMessage{Password: md5Password(cfg.User, cfg.Password, m.Salt)})
		case *codec.AuthenticationSASL:
			if !slices.Contains(m.AuthMechanisms, scramMechanism) {
				return fmt.Errorf("server offers SASL mechanisms %q, not %s", m.AuthMechanisms, scramMechanism)
			}
			c.AuthMethod = scramMechanism
			if sc, err = newSCRAM(cfg.Password); err == nil {
				err = c.Send(&codec.SASLInitialResponse{AuthMechanism: scramMechanism, Data: sc.clientFirst()})
			}
		case *codec.AuthenticationSASLContinue:
			if sc == nil {
				return errors.New("AuthenticationSASLContinue before AuthenticationSASL")
			}
			var final []byte
			if final, err = sc.clientFinal(m.Data); err == nil {
				err = c.Send(&codec.SASLResponse{Data: final})
			}
		case *codec.AuthenticationSASLFinal:
			if sc == nil {
				return errors.New("AuthenticationSASLFinal before AuthenticationSASL")
			}
			err = sc.verifyServerFinal(m.Data)
		case *codec.ErrorResponse:
			return NewError(m.Fields)
		case *codec.NegotiateProtocolVersion:
			// The server speaks an older minor (or ignores options): use its
			// version from now on. PostgreSQL sends the whole version number
			// (PG_PROTOCOL_LATEST, 3<<16 | minor), not the bare minor the manual describes.
			c.P.ProtocolMinor = int(m.NewestProtocolVersion & 0xffff)
			c.Negotiated = &codec.NegotiateProtocolVersion{NewestProtocolVersion: m.NewestProtocolVersion}
			for _, o := range m.UnrecognizedOptions {
				c.Negotiated.UnrecognizedOptions = append(c.Negotiated.UnrecognizedOptions, strings.Clone(o))
			}
		default:
			return fmt.Errorf("unexpected %s during authentication", m.Slug())
		}
		if err != nil {
			return err
		}
	}
}

// Send encodes the messages with the generated encoders and writes them in one write.
func (c *Conn) Send(msgs ...codec.Message) error {
	buf := c.wbuf[:0]
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf, c.P); err != nil {
			return err
		}
	}
	c.wbuf = buf
	_, err := c.nc.Write(buf)
	return err
}

// Receive reads and decodes the next backend message. It stays valid until
// the next Receive. ParameterStatus and BackendKeyData update the Conn as
// they pass.
func (c *Conn) Receive() (codec.Message, error) {
	frame, err := c.fr.Next()
	if err != nil {
		return nil, err
	}
	m, err := c.be.Decode(frame, c.P)
	if err != nil {
		return nil, err
	}
	c.Decoded[m.Slug()]++
	switch m := m.(type) {
	case *codec.ParameterStatus:
		c.ServerParams[m.Name] = m.Value
		if m.Name == "server_version" {
			c.P.Major = MajorOf(m.Value)
		}
	case *codec.BackendKeyData:
		c.ProcessID, c.SecretKey = m.ProcessID, bytes.Clone(m.SecretKey)
	case *codec.NoticeResponse:
		c.Notices = append(c.Notices, NewError(m.Fields))
	case *codec.NotificationResponse:
		c.Notifications = append(c.Notifications, Notification{m.ProcessID, strings.Clone(m.Channel), strings.Clone(m.Payload)})
	}
	return m, nil
}

// MajorOf is the codec.Params.Major for a server_version parameter: its
// major when the codec has it, else 0 (the newest layout).
func MajorOf(version string) int {
	major, _ := session.ParseServerVersion(version)
	return session.Layout(major)
}

// ReadUntilReady reads until ReadyForQuery, calling each (if not nil) with
// every other message, and returns the transaction status. An ErrorResponse
// on the way is returned as *Error after ReadyForQuery arrives.
func (c *Conn) ReadUntilReady(each func(codec.Message) error) (txStatus byte, err error) {
	var firstErr error
	for {
		m, err := c.Receive()
		if err != nil {
			return 0, err
		}
		switch m := m.(type) {
		case *codec.ReadyForQuery:
			return m.TxStatus, firstErr
		case *codec.ErrorResponse:
			if firstErr == nil {
				firstErr = NewError(m.Fields)
			}
			continue
		}
		if each != nil && firstErr == nil {
			if err := each(m); err != nil {
				firstErr = err
			}
		}
	}
}

// Cancel asks the server at addr to cancel this session's running query:
// a CancelRequest with the session's key on a connection of its own, which
// the server closes without an answer. A cancel that arrives while nothing
// runs is ignored.
func (c *Conn) Cancel(addr string) error {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer nc.Close()
	msg, err := (&codec.CancelRequest{ProcessID: c.ProcessID, SecretKey: c.SecretKey}).Encode(nil, c.P)
	if err != nil {
		return err
	}
	if _, err := nc.Write(msg); err != nil {
		return err
	}
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := nc.Read(make([]byte, 1)); err != io.EOF {
		return fmt.Errorf("server answered a CancelRequest with %d bytes (%v) instead of closing", n, err)
	}
	return nil
}

// Close sends Terminate and closes the connection.
func (c *Conn) Close() error {
	err := c.Send(&codec.Terminate{})
	return errors.Join(err, c.nc.Close())
}

// NetConn is the underlying connection, for tests that need to watch it close.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Notification is a NotificationResponse copied out of the receive buffer.
type Notification struct {
	ProcessID        uint32
	Channel, Payload string
}

// Result is one statement's outcome, copied out of the receive buffer.
type Result struct {
	Columns []string
	// Rows hold the values as sent; nil is NULL.
	Rows [][][]byte
	Tag  string
}

// SimpleQuery runs sql (one or more statements) with the simple query
// protocol and returns one Result per statement.
func (c *Conn) SimpleQuery(sql string) ([]Result, error) {
	if err := c.Send(&codec.Query{String: sql}); err != nil {
		return nil, err
	}
	var results []Result
	cur := &Result{}
	_, err := c.ReadUntilReady(func(m codec.Message) error {
		switch m := m.(type) {
		case *codec.RowDescription:
			for _, f := range m.Fields {
				cur.Columns = append(cur.Columns, strings.Clone(f.Name))
			}
		case *codec.DataRow:
			cur.Rows = append(cur.Rows, CloneValues(m.Values))
		case *codec.CommandComplete:
			cur.Tag = strings.Clone(m.CommandTag)
			results = append(results, *cur)
			cur = &Result{}
		case *codec.EmptyQueryResponse:
			results = append(results, *cur)
			cur = &Result{}
		}
		return nil
	})
	return results, err
}

// CloneValues copies a row's values, keeping nil (NULL) apart from empty.
func CloneValues(vals [][]byte) [][]byte {
	out := make([][]byte, len(vals))
	for i, v := range vals {
		if v != nil {
			out[i] = append([]byte{}, v...)
		}
	}
	return out
}
