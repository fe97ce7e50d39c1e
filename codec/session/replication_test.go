package session_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// TestAppendCopyData: a standby status update and hot standby feedback go
// straight into a CopyData frame, byte for byte what the manual lays out,
// and appending into a reused buffer allocates nothing.
func TestAppendCopyData(t *testing.T) {
	now := time.Date(2000, 1, 1, 0, 0, 1, 0, time.UTC) // 1,000,000 µs after PostgreSQL's epoch
	buf, err := session.AppendCopyData([]byte("keep"), session.StandbyStatus(0x16_B374D848, 0x16_B374D840, 0x10, now, true), codec.Params{})
	want := []byte{'k', 'e', 'e', 'p',
		'd', 0, 0, 0, 38, // CopyData, length 4 + 34
		'r',
		0, 0, 0, 0x16, 0xB3, 0x74, 0xD8, 0x48, // written
		0, 0, 0, 0x16, 0xB3, 0x74, 0xD8, 0x40, // flushed
		0, 0, 0, 0, 0, 0, 0, 0x10, // applied
		0, 0, 0, 0, 0, 0x0F, 0x42, 0x40, // client time 1,000,000
		1, // reply requested
	}
	if err != nil || !bytes.Equal(buf, want) {
		t.Fatalf("standby status update: %v\n got % x\nwant % x", err, buf, want)
	}
	buf, err = session.AppendCopyData(buf[:0], session.HotStandbyFeedback(now, 7<<32|1234, 0), codec.Params{})
	want = []byte{'d', 0, 0, 0, 29, 'h', // length 4 + 25
		0, 0, 0, 0, 0, 0x0F, 0x42, 0x40, // client time
		0, 0, 0x04, 0xD2, 0, 0, 0, 7, // xmin 1234, epoch 7
		0, 0, 0, 0, 0, 0, 0, 0, // no catalog xmin
	}
	if err != nil || !bytes.Equal(buf, want) {
		t.Fatalf("hot standby feedback: %v\n got % x\nwant % x", err, buf, want)
	}

	update := session.StandbyStatus(1, 2, 3, now, false)
	allocs := testing.AllocsPerRun(1000, func() {
		update.WALWritePosition++
		buf, _ = session.AppendCopyData(buf[:0], update, codec.Params{})
	})
	if allocs != 0 {
		t.Errorf("AppendCopyData into a reused buffer: %v allocs, want 0", allocs)
	}
}
