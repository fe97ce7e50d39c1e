package pgclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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

// Conn is one session over TCP: a session.Conn, plus what the test suite
// watches (notices, notifications, what was decoded). It is not safe for
// concurrent use.
type Conn struct {
	*session.Conn
	nc net.Conn
	// SSLDeclined says the server answered an SSLRequest with 'N'.
	SSLDeclined bool
	// Negotiated is the server's NegotiateProtocolVersion, nil when it took the version asked for.
	Negotiated *codec.NegotiateProtocolVersion
	// Notices and Notifications collect the asynchronous messages as they arrive.
	Notices       []*session.Error
	Notifications []Notification
	// Decoded counts the messages decoded per slug, backend and replication
	// layers alike, for the suite's report.
	Decoded map[string]int
}

// Connect opens a session: optional GSSENCRequest and SSLRequest,
// StartupMessage, authentication, then everything up to the first
// ReadyForQuery.
func Connect(ctx context.Context, cfg Config) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		nc.SetDeadline(deadline)
	}
	c := &Conn{nc: nc, Conn: session.NewConn(nc), Decoded: map[string]int{}}
	c.Strict = true // the suite's server is PostgreSQL: any flow violation is a finding
	c.OnMessage = c.observe
	if err := c.startup(cfg); err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return c, nil
}

func (c *Conn) startup(cfg Config) error {
	if cfg.GSSEncRequest {
		if err := plaintext(c.nc, &codec.GSSEncRequest{}, 'G'); err != nil {
			return err
		}
	}
	if cfg.SSLRequest {
		if err := plaintext(c.nc, &codec.SSLRequest{}, 'S'); err != nil {
			return err
		}
		c.SSLDeclined = true
	}
	return c.Startup(session.Config{User: cfg.User, Password: cfg.Password, Database: cfg.Database, Params: cfg.Params,
		Protocol: session.Protocol30 | session.ProtocolVersion(cfg.ProtocolMinor), ProtocolOptions: cfg.ProtocolOptions})
}

// plaintext sends an encryption request, which the server must decline:
// this client speaks only plaintext. yes is the answer that accepts it.
func plaintext(nc net.Conn, req codec.Message, yes byte) error {
	accepted, err := session.RequestEncryption(nc, req)
	if accepted {
		return fmt.Errorf("%s answered %q; this client speaks only plaintext", req.Slug(), yes)
	}
	return err
}

// observe keeps what the suite watches of every message received.
func (c *Conn) observe(m codec.Message) {
	c.Decoded[m.Slug()]++
	switch m := m.(type) {
	case *codec.NegotiateProtocolVersion:
		c.Negotiated = m.Clone()
	case *codec.NoticeResponse:
		c.Notices = append(c.Notices, session.NewError(m.Fields))
	case *codec.NotificationResponse:
		c.Notifications = append(c.Notifications, Notification{m.ProcessID, m.Channel, m.Payload})
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
	return errors.Join(c.Terminate(), c.nc.Close())
}

// NetConn is the underlying connection, for tests that need to watch it close.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Notification is a NotificationResponse's values.
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
	var results []Result
	cur := &Result{}
	err := c.Exec(sql, func(m codec.Message) error {
		switch m := m.(type) {
		case *codec.RowDescription:
			for _, f := range m.Fields {
				cur.Columns = append(cur.Columns, f.Name)
			}
		case *codec.DataRow:
			cur.Rows = append(cur.Rows, m.Clone().Values)
		case *codec.CommandComplete, *codec.EmptyQueryResponse:
			if cc, ok := m.(*codec.CommandComplete); ok {
				cur.Tag = cc.CommandTag
			}
			results = append(results, *cur)
			cur = &Result{}
		}
		return nil
	})
	return results, err
}
