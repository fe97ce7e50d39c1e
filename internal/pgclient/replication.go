package pgclient

import (
	"github.com/pgspec/pgspec/codec"
)

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
// decodes it with a session.Replication, which follows Stream Start and
// Stream Stop. For a logical stream, first set P.LogicalVersion to the
// command's proto_version and, for streaming 'parallel', add
// codec.ParallelStreaming to P.Streaming. Values are valid until the next call.
func (c *Conn) ReceiveReplication(logical bool) (ReplicationMessage, error) {
	m, err := c.Receive()
	if err != nil {
		return ReplicationMessage{}, err
	}
	cd, ok := m.(*codec.CopyData)
	if !ok {
		return ReplicationMessage{Msg: m}, nil
	}
	r := &c.repl
	r.Logical = logical
	r.P.Major, r.P.LogicalVersion = c.P.Major, c.P.LogicalVersion
	r.P.Streaming = r.P.Streaming&codec.Streamed | c.P.Streaming&codec.ParallelStreaming
	sub, lm, err := r.Decode(cd.Data)
	if err != nil {
		return ReplicationMessage{}, err
	}
	c.Decoded[sub.Slug()]++
	if lm != nil {
		c.Decoded[lm.Slug()]++
	}
	return ReplicationMessage{Msg: sub, Logical: lm}, nil
}
