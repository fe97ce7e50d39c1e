package trace

import (
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// TestNewStreamStartsUnstreamed: a stream that ends inside a streamed
// transaction (the client stopped between Stream Start and Stream Stop)
// leaves nothing behind: the next START_REPLICATION's Insert carries no xid
// and is decoded as such.
func TestNewStreamStartsUnstreamed(t *testing.T) {
	c := newConn(1)
	bp := &c.dirs[Backend]
	const start = "START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '2', streaming 'on')"
	v2 := codec.Params{LogicalVersion: 2}
	insert := &codec.LogicalInsert{RelationOID: 16390, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("1")}}}}
	for i, step := range []struct {
		frontend codec.Message // sent before the backend message, if not nil
		backend  codec.Message
		logical  codec.Message // inside the backend's CopyData > XLogData, if not nil
	}{
		{frontend: &codec.Query{String: start}, backend: &codec.CopyBothResponse{}},
		{backend: &codec.CopyData{}, logical: &codec.LogicalStreamStart{Xid: 7, FirstSegment: 1}},
		{backend: &codec.CommandComplete{CommandTag: "START_STREAMING"}},
		{frontend: &codec.Query{String: start}, backend: &codec.CopyBothResponse{}},
		{backend: &codec.CopyData{}, logical: insert},
	} {
		if step.frontend != nil {
			c.dirs[Frontend].frontendSent(step.frontend)
		}
		if step.logical != nil {
			wal, err := step.logical.Encode(nil, v2)
			if err != nil {
				t.Fatal(err)
			}
			data, err := (&codec.XLogData{WALData: wal}).Encode(nil, v2)
			if err != nil {
				t.Fatal(err)
			}
			step.backend = &codec.CopyData{Data: data}
		}
		frame, err := step.backend.Encode(nil, codec.Params{})
		if err != nil {
			t.Fatal(err)
		}
		chain, err := bp.decode(frame)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if step.logical == nil {
			continue
		}
		if len(chain) != 3 {
			t.Fatalf("step %d: decoded %s, want CopyData > XLogData > %T", i, chainName(chain), step.logical)
		}
		text := formatter{style: style{maxValue: DefaultMaxValue}}
		if got, want := text.appendLine(nil, time.Time{}, 0, Backend, 0, chain[2:], nil), text.appendLine(nil, time.Time{}, 0, Backend, 0, []Layer{{Msg: step.logical, Params: v2}}, nil); string(got) != string(want) {
			t.Errorf("step %d decoded\n%s want\n%s", i, got, want)
		}
	}
}
