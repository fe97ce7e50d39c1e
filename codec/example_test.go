package codec_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pgspec/pgspec/codec"
)

// A client reading a PostgreSQL 18 server's answer to a simple query: frame
// the stream, dispatch by tag, and switch on the message type.
func Example() {
	p := codec.Params{Major: 18}
	// What the server sends, built with the same codec.
	var stream []byte
	for _, m := range []codec.Message{
		&codec.RowDescription{Fields: []codec.FieldDescription{{Name: "answer", DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}},
		&codec.DataRow{Values: [][]byte{[]byte("42")}},
		&codec.DataRow{Values: [][]byte{nil}},
		&codec.CommandComplete{CommandTag: "SELECT 2"},
		&codec.ReadyForQuery{TxStatus: 'I'},
	} {
		var err error
		if stream, err = m.Encode(stream, p); err != nil {
			panic(err)
		}
	}

	frames := codec.NewFrameReader(bytes.NewReader(stream))
	var backend codec.Backend
	for {
		raw, err := frames.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			panic(err)
		}
		msg, err := backend.Decode(raw, p)
		if err != nil {
			panic(err)
		}
		switch m := msg.(type) {
		case *codec.RowDescription:
			fmt.Println("columns:", m.Fields[0].Name)
		case *codec.DataRow:
			fmt.Printf("row: %q (NULL: %v)\n", m.Values[0], m.Values[0] == nil)
		case *codec.CommandComplete:
			fmt.Println("done:", m.CommandTag)
		case *codec.ReadyForQuery:
			fmt.Printf("ready: %c\n", m.TxStatus)
		}
	}
	// Output:
	// columns: answer
	// row: "42" (NULL: false)
	// row: "" (NULL: true)
	// done: SELECT 2
	// ready: I
}

// Bad bytes give an error that names the message, the field and the offset.
func Example_badBytes() {
	var m codec.DataRow
	// 'D', length 10, 1 column, a column length of 100 (bytes 7-10), and then
	// no value bytes at all from byte 11 on.
	err := m.Decode([]byte{'D', 0, 0, 0, 10, 0, 1, 0, 0, 0, 100}, codec.Params{})
	fmt.Println(err)
	// Output:
	// codec: decode DataRow.Values[0] (Byten) at byte 11: truncated
}

// Consuming pgoutput: the ReplicationTracker learns proto_version 2 and
// streaming from the START_REPLICATION command and keeps Params.Streaming in
// step with Stream Start and Stream Stop, so that the streamed Insert
// decodes with its transaction id and the one of an ordinary transaction
// without; a Stream Commit of a transaction never streamed would be a
// *codec.FlowError.
func ExampleReplicationTracker() {
	p := codec.Params{Major: 17, LogicalVersion: 2}
	streamed := codec.Params{Major: 17, LogicalVersion: 2, Streaming: codec.Streamed}
	row := codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("42")}}}
	orders := codec.LogicalRelation{RelationOID: 16384, Namespace: "public", RelationName: "orders",
		Columns: []codec.RelationColumn{{Flags: 1, Name: "id", DataType: 23, TypeModifier: -1}}}
	streamedOrders := orders
	streamedOrders.Xid = 731
	var payloads [][]byte // what each CopyData carries
	for _, step := range []struct {
		m codec.Message
		p codec.Params
	}{
		{&codec.LogicalStreamStart{Xid: 731, FirstSegment: 1}, p},
		{&streamedOrders, streamed},
		{&codec.LogicalInsert{Xid: 731, RelationOID: 16384, New: row}, streamed},
		{&codec.LogicalStreamStop{}, streamed},
		{&codec.LogicalStreamCommit{Xid: 731, CommitLSN: 0x16_B374D848, TransactionEndLSN: 0x16_B374D878}, p},
		{&codec.LogicalBegin{Xid: 732}, p},
		{&codec.LogicalInsert{RelationOID: 16384, New: row}, p},
		{&codec.LogicalCommit{}, p},
	} {
		wal, _ := step.m.Encode(nil, step.p)
		x, _ := (&codec.XLogData{WALStart: 0x16_B374D848, WALData: wal}).Encode(nil, p)
		payloads = append(payloads, x)
	}

	r := codec.ReplicationTracker{P: codec.Params{Major: 17}}
	r.Start("START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '2', streaming 'on', publication_names 'p')")
	relations := map[uint32]*codec.LogicalRelation{}
	for _, payload := range payloads {
		_, m, err := r.Backend(payload)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch m := m.(type) {
		case *codec.LogicalRelation:
			relations[m.RelationOID] = m.Clone() // kept: the next message reuses m
		case *codec.LogicalInsert:
			rel := relations[m.RelationOID]
			fmt.Printf("insert into %s.%s (xid %d): %s = %s\n", rel.Namespace, rel.RelationName, m.Xid, rel.Columns[0].Name, m.New.Columns[0].Data)
		case *codec.LogicalStreamCommit:
			fmt.Printf("stream commit of %d\n", m.Xid)
		}
	}
	// Output:
	// insert into public.orders (xid 731): id = 42
	// stream commit of 731
	// insert into public.orders (xid 0): id = 42
}
