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
