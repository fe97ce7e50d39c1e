package session

import (
	"time"

	"github.com/pgspec/pgspec/codec"
)

// StandbyStatus is the standby status update reporting the positions the
// client has written, flushed (made durable) and applied, at now. A logical
// replication client reports its flushed position as all three: the
// server may then release WAL (and advance the slot) up to it.
func StandbyStatus(written, flushed, applied LSN, now time.Time, replyRequested bool) *codec.StandbyStatusUpdate {
	m := &codec.StandbyStatusUpdate{WALWritePosition: uint64(written), WALFlushPosition: uint64(flushed),
		WALApplyPosition: uint64(applied), ClientTime: clientTime(now)}
	if replyRequested {
		m.ReplyRequested = 1
	}
	return m
}

// HotStandbyFeedback is the hot standby feedback message for the oldest
// transaction ids (full 64-bit ids: epoch and xid) the standby still needs;
// 0 means none.
func HotStandbyFeedback(now time.Time, xmin, catalogXmin uint64) *codec.HotStandbyFeedback {
	return &codec.HotStandbyFeedback{ClientTime: clientTime(now),
		Xmin: uint32(xmin), XminEpoch: uint32(xmin >> 32), CatalogXmin: uint32(catalogXmin), CatalogXminEpoch: uint32(catalogXmin >> 32)}
}

// clientTime is now in PostgreSQL microseconds; a clock outside
// PostgreSQL's range (it is not) would send 0.
func clientTime(now time.Time) int64 {
	us, _ := MicrosFromTime(now)
	return us
}

// Replication decodes the CopyData payloads of a replication stream: the
// streaming replication message (XLogData, PrimaryKeepalive, …) and, in a
// logical stream, the pgoutput message in each XLogData, keeping
// P.Streaming in step with Stream Start and Stream Stop so that streamed
// messages decode with their xid.
//
// Messages are valid until the next Decode; their []byte fields point into
// the payload.
type Replication struct {
	// P is the layout: Major from the server, and for a logical stream
	// LogicalVersion set to START_REPLICATION's proto_version (and
	// ParallelStreaming added for streaming 'parallel').
	P codec.Params
	// Logical makes Decode decode XLogData payloads as pgoutput.
	Logical bool

	rb codec.ReplicationBackend
	lg codec.Logical
}

// Decode decodes one CopyData payload. logical is the pgoutput message
// inside an XLogData of a logical stream, else nil. When only that pgoutput
// message fails to decode, msg is still the XLogData (its LSNs say where).
func (r *Replication) Decode(payload []byte) (msg, logical codec.Message, err error) {
	msg, err = r.rb.Decode(payload, r.P)
	if err != nil {
		return nil, nil, err
	}
	x, ok := msg.(*codec.XLogData)
	if !r.Logical || !ok {
		return msg, nil, nil
	}
	if logical, err = r.lg.Decode(x.WALData, r.P); err != nil {
		return msg, nil, err
	}
	switch logical.(type) {
	case *codec.LogicalStreamStart:
		r.P.Streaming |= codec.Streamed
	case *codec.LogicalStreamStop:
		r.P.Streaming &^= codec.Streamed
	}
	return msg, logical, nil
}
