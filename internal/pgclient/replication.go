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

// ReceiveReplication reads the next message of a replication stream: the
// session's conversation decodes what a CopyData carries with what the
// START_REPLICATION said (proto_version, streaming) and follows Stream
// Start and Stream Stop. Values are valid until the next call.
func (c *Conn) ReceiveReplication() (ReplicationMessage, error) {
	s, err := c.ReceiveStep()
	if err != nil {
		return ReplicationMessage{}, err
	}
	if s.Sub == nil {
		return ReplicationMessage{Msg: s.Msg}, nil
	}
	c.Decoded[s.Sub.Slug()]++
	if s.Logical != nil {
		c.Decoded[s.Logical.Slug()]++
	}
	return ReplicationMessage{Msg: s.Sub, Logical: s.Logical}, nil
}
