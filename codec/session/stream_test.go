package session

import (
	"bytes"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// TestAppendCopyData: the reply is a CopyData whose payload is the
// message's own encoding, appended after what dst held.
func TestAppendCopyDataAfterPrefix(t *testing.T) {
	now := time.Date(2000, 1, 1, 0, 0, 1, 0, time.UTC)
	m := StandbyStatus(0x16_B374D848, 0x16_B374D840, 0x16_B374D800, now, true)
	if m.WALWritePosition != 0x16_B374D848 || m.WALFlushPosition != 0x16_B374D840 || m.WALApplyPosition != 0x16_B374D800 ||
		m.ClientTime != 1_000_000 || m.ReplyRequested != 1 {
		t.Errorf("%+v", m)
	}
	payload, _ := m.Encode(nil, codec.Params{})
	out, err := AppendCopyData([]byte("prefix"), m, codec.Params{})
	if err != nil || string(out[:6]) != "prefix" {
		t.Fatalf("% x, %v", out, err)
	}
	var cd codec.CopyData
	if err := cd.Decode(out[6:], codec.Params{}); err != nil || !bytes.Equal(cd.Data, payload) {
		t.Errorf("CopyData % x, %v; want payload % x", cd.Data, err, payload)
	}
	// An encoding error leaves dst as it was.
	bad := &codec.PrimaryStatusUpdate{}
	if out, err := AppendCopyData([]byte("x"), bad, codec.Params{Major: 15}); err == nil || string(out) != "x" {
		t.Errorf("PrimaryStatusUpdate under 15: %q, %v", out, err)
	}
}

func TestHotStandbyFeedback(t *testing.T) {
	m := HotStandbyFeedback(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), 3<<32|742, 2<<32|700)
	if m.Xmin != 742 || m.XminEpoch != 3 || m.CatalogXmin != 700 || m.CatalogXminEpoch != 2 || m.ClientTime != 0 {
		t.Errorf("%+v", m)
	}
}
