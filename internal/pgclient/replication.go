package pgclient

import (
	"fmt"

	"github.com/pgspec/pgspec/codec"
)

// StartReplication sends a START_REPLICATION command (or any command that
// answers with CopyBothResponse) and waits for the CopyBothResponse. For a
// logical stream, first set P.LogicalVersion to the command's proto_version
// and, for streaming 'parallel', add codec.ParallelStreaming to P.Streaming;
// ReceiveReplication keeps codec.Streamed up to date itself.
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
		return NewError(m.Fields)
	default:
		return fmt.Errorf("%s answered with %s, want CopyBothResponse", cmd, m.Slug())
	}
}

// ReplicationMessage is what one backend message of a replication stream holds.
type ReplicationMessage struct {
	// Msg is the streaming replication sub-message of a CopyData (XLogData,
	// PrimaryKeepalive, …), or the backend message itself when it is not a
	// CopyData (CopyDone, ErrorResponse, …).
	Msg codec.Message
	// Logical is the pgoutput message inside an XLogData of a logical stream, else nil.
	Logical codec.Message
}

// ReceiveReplication reads the next message of a replication stream and
// decodes the CopyData payload, and for a logical stream the pgoutput
// message in the XLogData, with the generated decoders. It follows Stream
// Start / Stream Stop to decode the xid streamed messages carry. Values are
// valid until the next call.
func (c *Conn) ReceiveReplication(logical bool) (ReplicationMessage, error) {
	m, err := c.Receive()
	if err != nil {
		return ReplicationMessage{}, err
	}
	cd, ok := m.(*codec.CopyData)
	if !ok {
		return ReplicationMessage{Msg: m}, nil
	}
	sub, err := c.rb.Decode(cd.Data, c.P)
	if err != nil {
		return ReplicationMessage{}, err
	}
	c.Decoded[sub.Slug()]++
	x, ok := sub.(*codec.XLogData)
	if !logical || !ok {
		return ReplicationMessage{Msg: sub}, nil
	}
	lm, err := c.lg.Decode(x.WALData, c.P)
	if err != nil {
		return ReplicationMessage{}, err
	}
	c.Decoded[lm.Slug()]++
	switch lm.(type) {
	case *codec.LogicalStreamStart:
		c.P.Streaming |= codec.Streamed
	case *codec.LogicalStreamStop:
		c.P.Streaming &^= codec.Streamed
	}
	return ReplicationMessage{Msg: sub, Logical: lm}, nil
}

// SendReplication sends a streaming replication sub-message (standby status
// update, hot standby feedback) inside a CopyData.
func (c *Conn) SendReplication(m codec.Message) error {
	payload, err := m.Encode(c.subBuf[:0], c.P)
	if err != nil {
		return err
	}
	c.subBuf = payload
	return c.Send(&codec.CopyData{Data: payload})
}
