package server

import (
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// Conn is one client session after Accept: what the client asked for, the
// layout messages use, the session's cancel key and transaction status. It
// buffers what it sends until Flush (Serve flushes at ReadyForQuery and
// Flush, as PostgreSQL does). It is not safe for concurrent use, except
// Cancel.
type Conn struct {
	Startup
	// P is the layout messages are encoded with: PostgreSQL 18 and the
	// negotiated protocol minor.
	P codec.Params
	// ProcessID and SecretKey are the BackendKeyData sent to the client.
	ProcessID uint32
	SecretKey []byte
	// TxStatus is what the next ReadyForQuery reports: 'I' idle, 'T' in a
	// transaction block, 'E' in a failed one. Handlers set 'T' and 'I' at
	// BEGIN and COMMIT; Serve sets 'E' when a statement fails inside a block.
	TxStatus byte
	// State is the Handler's, for what it keeps per session.
	State any

	nc   net.Conn
	cert *tls.Certificate // presented over TLS, for channel binding
	fr   *codec.FrameReader
	// conv follows the session from its first byte: Accept and Serve read
	// the client's messages through its Frontend, and every message sent
	// is taken by its Backend, so what the client may send next is the
	// protocol's flow, not a state machine of the engine's own.
	conv      *codec.Conversation
	outOfStep bool // a message sent was not where the conversation's flow had it
	out       []byte
	err       error // the first encoding error, reported at Flush

	engine
}

// flushAt is how much output is buffered before it is written anyway.
const flushAt = 32 << 10

// send appends m to the output, and the conversation takes it. One the flow has no place for leaves the
// conversation where it was, out of step until the next ReadyForQuery,
// where it is put back in step (see readyForQuery).
func (c *Conn) send(m codec.Message) {
	out, err := m.Encode(c.out, c.P)
	if err == nil && c.conv != nil { // nil: an answer the conversation must not take (malformed)
		if _, terr := c.conv.Backend.Next(out[len(c.out):]); terr != nil && isFlowError(terr) {
			c.outOfStep = true
		} else if terr != nil {
			err = terr
		}
	}
	if err != nil && c.err == nil {
		c.err = err
	}
	c.out = out
}

// Send queues m for the client; it is written at the next Flush, or once
// enough is queued.
func (c *Conn) Send(m codec.Message) error {
	c.send(m)
	if len(c.out) >= flushAt {
		return c.Flush()
	}
	return c.err
}

// Flush writes what is queued.
func (c *Conn) Flush() error {
	if c.err != nil {
		return c.err
	}
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.out)
	c.out = c.out[:0]
	return err
}

// answer writes the one-byte answer to an encryption request
// (codec.SSLResponse, codec.GSSEncResponse) at once: what follows an 'S' is
// the TLS handshake, not buffered output. After the handshake the
// conversation goes on through the encryption (Decrypted).
func (c *Conn) answer(m codec.Message) error {
	b, err := m.Encode(nil, c.P)
	if err != nil {
		return err
	}
	if _, err := c.conv.Backend.Next(b); err != nil {
		return err
	}
	_, err = c.nc.Write(b)
	return err
}

// fatal sends e and returns it: the session ends.
func (c *Conn) fatal(e *session.Error) error {
	c.send(&codec.ErrorResponse{Fields: e.Fields})
	return errors.Join(e, c.Flush())
}

// TypeMap is the session's pgtype.Map, which Query.Row encodes with and
// Query.Scan decodes with: register the server's own types there.
func (c *Conn) TypeMap() *pgtype.Map { return c.types }

// NetConn is the connection the session runs on (a *tls.Conn over TLS).
func (c *Conn) NetConn() net.Conn { return c.nc }

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// deadlinePassed is a read deadline in the past: it wakes a blocked read.
var deadlinePassed = time.Unix(1, 0)
