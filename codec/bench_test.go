package codec_test

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgspec/pgspec/codec"
)

// Benchmarks side by side: every case has one sub-benchmark per
// implementation (impl=pgspec, impl=pgproto3 or impl=pglogrepl) over the
// same bytes, so that `benchstat -col /impl` prints their ratios (make bench).
// Decoders decode into a value reused across iterations; encoders append to
// a buffer that already has room.

// benchCase is one message as pgspec and pgproto3 hold it; both must encode
// to the same bytes.
type benchCase struct {
	name   string
	ours   codec.Message
	theirs pgproto3.Message
}

// Realistic values: text columns of a typical row, and the catalog's OIDs.
var (
	textColumn = []byte("2024-05-17 09:41:27.123456+00")
	oidsByCol  = []uint32{23, 25, 1043, 1184, 1700, 16, 20, 701, 2950, 3802}
)

func dataRows(n int) (codec.Message, pgproto3.Message) {
	vals := make([][]byte, n)
	for i := range vals {
		switch i % 5 {
		case 0:
			vals[i] = []byte(strconv.Itoa(100000 + i))
		case 3:
			vals[i] = nil // NULL
		default:
			vals[i] = textColumn[:5+i%20]
		}
	}
	return &codec.DataRow{Values: vals}, &pgproto3.DataRow{Values: vals}
}

func rowDescription(n int) (codec.Message, pgproto3.Message) {
	ours := &codec.RowDescription{}
	theirs := &pgproto3.RowDescription{}
	for i := range n {
		name := fmt.Sprintf("column_%d", i)
		oid := oidsByCol[i%len(oidsByCol)]
		ours.Fields = append(ours.Fields, codec.FieldDescription{Name: name, TableOID: 16384, TableAttributeNumber: int16(i + 1),
			DataTypeOID: oid, DataTypeSize: -1, TypeModifier: -1, Format: 0})
		theirs.Fields = append(theirs.Fields, pgproto3.FieldDescription{Name: []byte(name), TableOID: 16384, TableAttributeNumber: uint16(i + 1),
			DataTypeOID: oid, DataTypeSize: -1, TypeModifier: -1, Format: 0})
	}
	return ours, theirs
}

func bind(n int) (codec.Message, pgproto3.Message) {
	vals := make([][]byte, n)
	formats := make([]int16, n)
	for i := range vals {
		vals[i] = []byte(strconv.Itoa(1000 * i))
		formats[i] = int16(i % 2)
	}
	ours := &codec.Bind{PreparedStatement: "stmtcache_4f2a9c", ParameterFormatCodes: formats, Parameters: vals, ResultFormatCodes: []int16{1}}
	theirs := &pgproto3.Bind{PreparedStatement: "stmtcache_4f2a9c", ParameterFormatCodes: formats, Parameters: vals, ResultFormatCodes: []int16{1}}
	return ours, theirs
}

const benchQuery = "SELECT id, name, email, created_at FROM users WHERE tenant_id = $1 AND created_at > $2 ORDER BY id LIMIT 100"

func benchCases() []benchCase {
	var cs []benchCase
	add := func(name string, ours codec.Message, theirs pgproto3.Message) {
		cs = append(cs, benchCase{name, ours, theirs})
	}
	dr10, dr10p := dataRows(10)
	add("DataRow10", dr10, dr10p)
	dr100, dr100p := dataRows(100)
	add("DataRow100", dr100, dr100p)
	rd, rdp := rowDescription(10)
	add("RowDescription10", rd, rdp)
	b5, b5p := bind(5)
	add("Bind5", b5, b5p)
	b20, b20p := bind(20)
	add("Bind20", b20, b20p)
	add("Parse", &codec.Parse{Name: "stmtcache_4f2a9c", Query: benchQuery, ParameterOIDs: []uint32{20, 1184}},
		&pgproto3.Parse{Name: "stmtcache_4f2a9c", Query: benchQuery, ParameterOIDs: []uint32{20, 1184}})
	add("Query", &codec.Query{String: benchQuery}, &pgproto3.Query{String: benchQuery})
	for _, pair := range pgproto3Pairs {
		if _, ok := pair.ours.(*codec.ErrorResponse); ok {
			add("ErrorResponse", pair.ours, pair.theirs) // every field pgproto3 names
		}
	}
	copyRow := []byte("42\tAda Lovelace\tada@example.com\t2024-05-17 09:41:27+00\n")
	add("CopyData", &codec.CopyData{Data: copyRow}, &pgproto3.CopyData{Data: copyRow})
	add("CommandComplete", &codec.CommandComplete{CommandTag: "SELECT 10000"}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 10000")})
	add("ParameterStatus", &codec.ParameterStatus{Name: "server_version", Value: "15.18 (Debian 15.18-0+deb12u1)"},
		&pgproto3.ParameterStatus{Name: "server_version", Value: "15.18 (Debian 15.18-0+deb12u1)"})
	add("ReadyForQuery", &codec.ReadyForQuery{TxStatus: 'I'}, &pgproto3.ReadyForQuery{TxStatus: 'I'})
	return cs
}

// wire encodes c with both implementations and fails unless the bytes agree.
func (c benchCase) wire(b *testing.B) []byte {
	ours, err := c.ours.Encode(nil, codec.Params{})
	if err != nil {
		b.Fatal(err)
	}
	theirs, err := c.theirs.Encode(nil)
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		b.Fatalf("%s: the encodings differ:\npgspec   % x\npgproto3 % x", c.name, ours, theirs)
	}
	return ours
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchCases() {
		src := c.wire(b)
		b.Run(c.name+"/impl=pgspec", func(b *testing.B) {
			m := newLike(c.ours)
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := m.Decode(src, codec.Params{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/impl=pgproto3", func(b *testing.B) {
			m := newLike(c.theirs)
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := m.Decode(src[5:]); err != nil { // pgproto3 takes the body
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range benchCases() {
		buf := make([]byte, 0, 2*len(c.wire(b)))
		b.Run(c.name+"/impl=pgspec", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(cap(buf) / 2))
			var err error
			for b.Loop() {
				if buf, err = c.ours.Encode(buf[:0], codec.Params{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/impl=pgproto3", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(cap(buf) / 2))
			var err error
			for b.Loop() {
				if buf, err = c.theirs.Encode(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// logicalCase is a pgoutput message (protocol version 1, as pglogrepl.Parse reads it).
type logicalCase struct {
	name string
	msg  codec.Message
}

// tupleOf is a row of n text columns, the way pgoutput sends them by default.
func tupleOf(n int) codec.TupleData {
	var t codec.TupleData
	for i := range n {
		switch i % 5 {
		case 3:
			t.Columns = append(t.Columns, codec.TupleDataColumn{Kind: 'n'})
		case 4:
			t.Columns = append(t.Columns, codec.TupleDataColumn{Kind: 'u'})
		default:
			t.Columns = append(t.Columns, codec.TupleDataColumn{Kind: 't', Data: textColumn[:5+i%20]})
		}
	}
	return t
}

func logicalCases() []logicalCase {
	rel := &codec.LogicalRelation{RelationOID: 16384, Namespace: "public", RelationName: "orders", ReplicaIdentity: 'f'}
	for i := range 10 {
		rel.Columns = append(rel.Columns, codec.RelationColumn{Flags: int8(i % 2), Name: fmt.Sprintf("column_%d", i),
			DataType: oidsByCol[i], TypeModifier: -1})
	}
	return []logicalCase{
		{"Begin", &codec.LogicalBegin{FinalLSN: 0x16B3748, CommitTime: 769_000_000_000_000, Xid: 7431}},
		{"Relation", rel},
		{"Insert", &codec.LogicalInsert{RelationOID: 16384, New: tupleOf(10)}},
		{"Update", &codec.LogicalUpdate{RelationOID: 16384, OldKind: 'O', Old: tupleOf(10), New: tupleOf(10)}},
		{"Commit", &codec.LogicalCommit{CommitLSN: 0x16B3748, TransactionEndLSN: 0x16B3778, CommitTime: 769_000_000_000_000}},
	}
}

var logicalParams = codec.Params{LogicalVersion: 1}

func BenchmarkLogicalDecode(b *testing.B) {
	for _, c := range logicalCases() {
		src, err := c.msg.Encode(nil, logicalParams)
		if err != nil {
			b.Fatal(err)
		}
		theirs, err := pglogrepl.Parse(src)
		if err != nil || !same(fromPglogrepl(theirs), c.msg) {
			b.Fatalf("%s: pglogrepl reads %+v, %v", c.name, theirs, err)
		}
		b.Run(c.name+"/impl=pgspec", func(b *testing.B) {
			var d codec.Logical
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := d.Decode(src, logicalParams); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/impl=pglogrepl", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := pglogrepl.Parse(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// streamRows is how many DataRows the stream benchmark's result set has.
const streamRows = 10000

// backendStream is the answer to a query of streamRows rows of 7 columns
// (id, name, email, created_at, amount, active, a NULL note): RowDescription,
// the DataRows, CommandComplete and ReadyForQuery, about 1 MiB.
func backendStream(b *testing.B) []byte {
	rd, _ := rowDescription(7)
	out, err := rd.Encode(nil, codec.Params{})
	if err != nil {
		b.Fatal(err)
	}
	row := codec.DataRow{Values: make([][]byte, 7)}
	for i := range streamRows {
		row.Values = append(row.Values[:0], []byte(strconv.Itoa(10000+i)), []byte("customer name"), []byte("customer@example.com"),
			textColumn, []byte("1234.50"), []byte("t"), nil)
		if out, err = row.Encode(out, codec.Params{}); err != nil {
			b.Fatal(err)
		}
	}
	out, _ = (&codec.CommandComplete{CommandTag: "SELECT " + strconv.Itoa(streamRows)}).Encode(out, codec.Params{})
	out, _ = (&codec.ReadyForQuery{TxStatus: 'I'}).Encode(out, codec.Params{})
	return out
}

// BenchmarkStream frames and decodes a whole result set from an io.Reader,
// as a client does, up to ReadyForQuery; MB/s is the throughput.
func BenchmarkStream(b *testing.B) {
	stream := backendStream(b)
	b.Run("impl=pgspec", func(b *testing.B) {
		var d codec.Backend
		readEach(b, stream, streamRows, func(src io.Reader) (rows int) {
			f := codec.NewFrameReader(src)
			for done := false; !done; {
				msg, err := f.Next()
				if err != nil {
					b.Fatal(err)
				}
				m, err := d.Decode(msg, codec.Params{})
				if err != nil {
					b.Fatal(err)
				}
				switch m.(type) {
				case *codec.DataRow:
					rows++
				case *codec.ReadyForQuery:
					done = true
				}
			}
			return rows
		})
	})
	b.Run("impl=pgproto3", func(b *testing.B) {
		readEach(b, stream, streamRows, func(src io.Reader) (rows int) {
			f := pgproto3.NewFrontend(src, io.Discard)
			for done := false; !done; {
				m, err := f.Receive()
				if err != nil {
					b.Fatal(err)
				}
				switch m.(type) {
				case *pgproto3.DataRow:
					rows++
				case *pgproto3.ReadyForQuery:
					done = true
				}
			}
			return rows
		})
	})
}

// readEach runs read over a new reader of stream per iteration, as a new
// connection does, and fails unless read counts want; MB/s is the
// throughput.
func readEach(b *testing.B, stream []byte, want int, read func(io.Reader) int) {
	src := bytes.NewReader(stream)
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		src.Reset(stream)
		if n := read(src); n != want {
			b.Fatalf("read %d, want %d", n, want)
		}
	}
}

// physicalStream is a physical replication stream of about 4 MiB: CopyData
// messages of 8 to 128 KiB, each carrying an XLogData, as pg_receivewal
// reads them.
func physicalStream(b *testing.B) (stream []byte, messages int) {
	var xl codec.XLogData
	var sub []byte
	lsn := uint64(0x16_B3000000)
	for size := 0; len(stream) < 4<<20; size++ {
		n := 8<<10 + (size*37%121)<<10 // 8 KiB to 128 KiB, in an irregular order
		xl = codec.XLogData{WALStart: lsn, ServerWALEnd: lsn + uint64(n), ServerTime: 769_000_000_000_000, WALData: bytes.Repeat([]byte{byte(size)}, n)}
		var err error
		if sub, err = xl.Encode(sub[:0], codec.Params{}); err != nil {
			b.Fatal(err)
		}
		if stream, err = (&codec.CopyData{Data: sub}).Encode(stream, codec.Params{}); err != nil {
			b.Fatal(err)
		}
		lsn += uint64(n)
		messages++
	}
	return stream, messages
}

// BenchmarkPhysicalStream frames a physical replication stream from an
// io.Reader and decodes each CopyData and the XLogData in it: pgspec's
// FrameReader, Backend and ReplicationBackend beside pgproto3's Frontend
// and pglogrepl's ParseXLogData. Each iteration starts a new reader, as a
// new connection does.
func BenchmarkPhysicalStream(b *testing.B) {
	stream, messages := physicalStream(b)
	walBytes := 0 // what the messages carry, so that reading it is not optimised away
	b.Run("impl=pgspec", func(b *testing.B) {
		var d codec.Backend
		var rd codec.ReplicationBackend
		readEach(b, stream, messages, func(src io.Reader) (n int) {
			f := codec.NewFrameReader(src)
			for {
				frame, err := f.Next()
				if err == io.EOF {
					return n
				} else if err != nil {
					b.Fatal(err)
				}
				m, err := d.Decode(frame, codec.Params{})
				if err != nil {
					b.Fatal(err)
				}
				x, err := rd.Decode(m.(*codec.CopyData).Data, codec.Params{})
				if err != nil {
					b.Fatal(err)
				}
				walBytes += len(x.(*codec.XLogData).WALData)
				n++
			}
		})
	})
	b.Run("impl=pgproto3", func(b *testing.B) {
		readEach(b, stream, messages, func(src io.Reader) (n int) {
			f := pgproto3.NewFrontend(src, io.Discard)
			for {
				m, err := f.Receive()
				if err == io.EOF || err == io.ErrUnexpectedEOF && n == messages {
					return n
				} else if err != nil {
					b.Fatal(err)
				}
				x, err := pglogrepl.ParseXLogData(m.(*pgproto3.CopyData).Data[1:])
				if err != nil {
					b.Fatal(err)
				}
				walBytes += len(x.WALData)
				n++
			}
		})
	})
}
