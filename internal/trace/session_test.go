package trace

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// streaming takes c through a startup and cmd up to the server's
// CopyBothResponse, each message through the connection's decoders.
func streaming(t *testing.T, c *conn, cmd string) {
	t.Helper()
	for _, m := range []struct {
		dir Direction
		msg codec.Message
	}{
		{Frontend, &codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}, {Name: "replication", Value: "database"}}}},
		{Backend, &codec.AuthenticationOk{}},
		{Backend, &codec.ReadyForQuery{TxStatus: 'I'}},
		{Frontend, &codec.Query{String: cmd}},
		{Backend, &codec.CopyBothResponse{}},
	} {
		frame, err := m.msg.Encode(nil, codec.Params{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.dirs[m.dir].decode(frame); err != nil {
			t.Fatalf("%T: %v", m.msg, err)
		}
	}
}

// TestNewStreamStartsUnstreamed: a stream that ends inside a streamed
// transaction (the client stopped between Stream Start and Stream Stop)
// leaves nothing behind: the next START_REPLICATION's Insert carries no xid
// and is decoded as such.
func TestNewStreamStartsUnstreamed(t *testing.T) {
	c := newConn(1)
	const start = "START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '2', publication_names 'p', streaming 'on')"
	v2 := codec.Params{LogicalVersion: 2}
	rel := &codec.LogicalRelation{RelationOID: 16390, Namespace: "public", RelationName: "t"}
	insert := &codec.LogicalInsert{RelationOID: 16390, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("1")}}}}
	streaming(t, c, start)
	for i, step := range []struct {
		dir     Direction
		msg     codec.Message
		logical codec.Message // inside the backend's CopyData > XLogData, if not nil
	}{
		{dir: Backend, logical: &codec.LogicalStreamStart{Xid: 7, FirstSegment: 1}},
		{dir: Backend, msg: &codec.CopyDone{}},
		{dir: Frontend, msg: &codec.CopyDone{}},
		{dir: Backend, msg: &codec.CommandComplete{CommandTag: "START_STREAMING"}},
		{dir: Backend, msg: &codec.ReadyForQuery{TxStatus: 'I'}},
		{dir: Frontend, msg: &codec.Query{String: start}},
		{dir: Backend, msg: &codec.CopyBothResponse{}},
		{dir: Backend, logical: &codec.LogicalBegin{Xid: 8}},
		{dir: Backend, logical: rel},
		{dir: Backend, logical: insert},
	} {
		if step.logical != nil {
			wal, err := step.logical.Encode(nil, v2)
			if err != nil {
				t.Fatal(err)
			}
			data, err := (&codec.XLogData{WALData: wal}).Encode(nil, v2)
			if err != nil {
				t.Fatal(err)
			}
			step.msg = &codec.CopyData{Data: data}
		}
		frame, err := step.msg.Encode(nil, codec.Params{})
		if err != nil {
			t.Fatal(err)
		}
		chain, err := c.dirs[step.dir].decode(frame)
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

// TestUndecodableInnerLayer: a layer inside that fails to decode is the
// chain's last, without a Msg, after the messages around it: the
// replication message inside a CopyData, the pgoutput one inside an
// XLogData.
func TestUndecodableInnerLayer(t *testing.T) {
	c := newConn(1)
	streaming(t, c, "START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '1', publication_names 'p')")
	xlog, err := (&codec.XLogData{WALData: []byte{'!'}}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data []byte
		want string // the chain's message types
	}{
		{[]byte{'!'}, "*codec.CopyData <nil>"},
		{xlog, "*codec.CopyData *codec.XLogData <nil>"},
	} {
		frame, err := (&codec.CopyData{Data: tc.data}).Encode(nil, codec.Params{})
		if err != nil {
			t.Fatal(err)
		}
		chain, err := c.dirs[Backend].decode(frame)
		var types []string
		for _, l := range chain {
			types = append(types, fmt.Sprintf("%T", l.Msg))
		}
		if got := strings.Join(types, " "); got != tc.want || !isDecodeError(err) {
			t.Errorf("CopyData of %q: chain %s, %v; want %s and a decode error", tc.data, got, err, tc.want)
		}
	}
}
