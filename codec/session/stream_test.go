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

// TestReplicationStreamingState: Stream Start sets Streamed and Stream Stop
// clears it, so streamed messages decode with their xid; a physical stream
// leaves XLogData alone.
func TestReplicationStreamingState(t *testing.T) {
	p := codec.Params{LogicalVersion: 2}
	wrap := func(m codec.Message, p codec.Params) []byte {
		wal, err := m.Encode(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := (&codec.XLogData{WALData: wal}).Encode(nil, p)
		return x
	}
	r := Replication{P: p, Logical: true}
	streamed := p
	streamed.Streaming = codec.Streamed
	steps := []struct {
		payload []byte
		xid     uint32
	}{
		{wrap(&codec.LogicalStreamStart{Xid: 9, FirstSegment: 1}, p), 0},
		{wrap(&codec.LogicalDelete{Xid: 9, RelationOID: 1, OldKind: 'K', Old: codec.TupleData{}}, streamed), 9},
		{wrap(&codec.LogicalStreamStop{}, streamed), 0},
		{wrap(&codec.LogicalDelete{RelationOID: 1, OldKind: 'K', Old: codec.TupleData{}}, p), 0},
	}
	for i, s := range steps {
		_, lm, err := r.Decode(s.payload)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if d, ok := lm.(*codec.LogicalDelete); ok && d.Xid != s.xid {
			t.Errorf("step %d: xid %d, want %d", i, d.Xid, s.xid)
		}
	}
	phys := Replication{}
	if m, lm, err := phys.Decode(steps[0].payload); err != nil || lm != nil || m.Slug() != (&codec.XLogData{}).Slug() {
		t.Errorf("physical: %v, %v, %v", m, lm, err)
	}
}

// TestReplicationLogicalError: when only the pgoutput message inside an
// XLogData fails to decode, the XLogData still comes back with the error.
func TestReplicationLogicalError(t *testing.T) {
	p := codec.Params{LogicalVersion: 1}
	payload, err := (&codec.XLogData{WALStart: 7, WALData: []byte{'!'}}).Encode(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	r := Replication{P: p, Logical: true}
	m, lm, err := r.Decode(payload)
	x, ok := m.(*codec.XLogData)
	if err == nil || lm != nil || !ok || x.WALStart != 7 {
		t.Errorf("got %v, %v, %v; want the XLogData at 7, no pgoutput message and an error", m, lm, err)
	}
}
