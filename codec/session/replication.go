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
