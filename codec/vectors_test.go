package codec_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// vector is one message's bytes, built by hand from the manual's table, and
// the value they hold.
type vector struct {
	name string
	p    codec.Params
	msg  codec.Message
	wire []byte
}

var tuple = codec.TupleData{Columns: []codec.TupleDataColumn{
	{Kind: 'n'},                      // NULL
	{Kind: 'u'},                      // unchanged TOAST
	{Kind: 't', Data: []byte("42")},  // text
	{Kind: 'b', Data: []byte{0, 42}}, // binary
}}

// tupleWire is tuple on the wire (PostgreSQL 14 and later).
var tupleWire = cat(
	be16(4),            // Int16: number of columns
	'n',                // Byte1('n'): NULL
	'u',                // Byte1('u'): unchanged TOASTed value
	't', be32(2), "42", // Byte1('t'), Int32 length, Byten text value
	'b', be32(2), []byte{0, 42}, // Byte1('b'), Int32 length, Byten binary value
)

var oneColumn = codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("k")}}}
var oneColumnWire = cat(be16(1), 't', be32(1), "k")

var vectors = []vector{
	// BackendKeyData: Int32 secret key up to 17; Byten from 18, 4 bytes under 3.0, up to 256 under 3.2.
	{"BackendKeyData 17", codec.Params{Major: 17},
		&codec.BackendKeyData{ProcessID: 0x01020304, SecretKey: []byte{0xde, 0xad, 0xbe, 0xef}},
		cat('K', // Byte1('K')
			be32(12),                       // Int32(12): length
			be32(0x01020304),               // Int32: process ID
			[]byte{0xde, 0xad, 0xbe, 0xef}, // Int32: secret key
		)},
	{"BackendKeyData 18 protocol 3.0", codec.Params{Major: 18, ProtocolMinor: 0},
		&codec.BackendKeyData{ProcessID: 7, SecretKey: []byte{1, 2, 3, 4}},
		cat('K', be32(12), // tag, length 4+4+4
			be32(7),            // process ID
			[]byte{1, 2, 3, 4}, // Byten: secret key, 4 bytes before 3.2
		)},
	{"BackendKeyData 18 protocol 3.2", codec.Params{Major: 18, ProtocolMinor: 2},
		&codec.BackendKeyData{ProcessID: 7, SecretKey: bytes.Repeat([]byte{0xab}, 32)},
		cat('K', be32(4+4+32), // tag, length
			be32(7),                        // process ID
			bytes.Repeat([]byte{0xab}, 32), // Byten: 32-byte key to the end of the message
		)},
	{"CancelRequest 18 protocol 3.2", codec.Params{Major: 18, ProtocolMinor: 2},
		&codec.CancelRequest{ProcessID: 9, SecretKey: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		cat(be32(4+4+4+8), // Int32: length, no tag
			be32(80877102),                 // Int32(80877102): cancel request code
			be32(9),                        // process ID
			[]byte{1, 2, 3, 4, 5, 6, 7, 8}, // Byten: secret key
		)},
	{"CancelRequest 10", codec.Params{Major: 10},
		&codec.CancelRequest{ProcessID: 9, SecretKey: []byte{1, 2, 3, 4}},
		cat(be32(16), be32(80877102), be32(9), []byte{1, 2, 3, 4})},

	// Logical Update: 'K', 'O' or neither before the new tuple.
	{"Update with K", codec.Params{Major: 16},
		&codec.LogicalUpdate{RelationOID: 16384, OldKind: 'K', Old: oneColumn, New: tuple},
		cat('U', // Byte1('U')
			be32(16384),   // Int32 (Oid): relation
			'K',           // Byte1('K'): key follows
			oneColumnWire, // TupleData: the key
			'N',           // Byte1('N')
			tupleWire,     // TupleData: the new tuple
		)},
	{"Update with O", codec.Params{Major: 16},
		&codec.LogicalUpdate{RelationOID: 16384, OldKind: 'O', Old: oneColumn, New: oneColumn},
		cat('U', be32(16384), 'O', oneColumnWire, 'N', oneColumnWire)},
	{"Update with neither", codec.Params{Major: 16},
		&codec.LogicalUpdate{RelationOID: 16384, New: oneColumn},
		cat('U', be32(16384), 'N', oneColumnWire)},
	{"Update streamed", codec.Params{Major: 16, LogicalVersion: 2, Streaming: codec.Streamed},
		&codec.LogicalUpdate{Xid: 777, RelationOID: 16384, New: oneColumn},
		cat('U', be32(777), // Int32 (TransactionId): only in a streamed transaction
			be32(16384), 'N', oneColumnWire)},

	// Logical Insert, streamed and not; its tuple has every column kind.
	{"Insert", codec.Params{Major: 15},
		&codec.LogicalInsert{RelationOID: 16385, New: tuple},
		cat('I', be32(16385), 'N', tupleWire)},
	{"Insert streamed", codec.Params{Major: 15, LogicalVersion: 2, Streaming: codec.Streamed},
		&codec.LogicalInsert{Xid: 900, RelationOID: 16385, New: tuple},
		cat('I', be32(900), be32(16385), 'N', tupleWire)},
	{"Insert 10 text column", codec.Params{Major: 10},
		&codec.LogicalInsert{RelationOID: 1, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("x")}, {Kind: 'n'}}}},
		cat('I', be32(1), 'N', be16(2), 't', be32(1), "x", 'n')},

	// Stream Abort: abort LSN and timestamp only with parallel streaming (v4).
	{"Stream Abort v3", codec.Params{Major: 16, LogicalVersion: 3},
		&codec.LogicalStreamAbort{Xid: 10, SubXid: 11},
		cat('A', be32(10), be32(11))},
	{"Stream Abort v4 parallel", codec.Params{Major: 16, LogicalVersion: 4, Streaming: codec.ParallelStreaming},
		&codec.LogicalStreamAbort{Xid: 10, SubXid: 11, AbortLSN: 0x16B3748, AbortTime: 750000000000000},
		cat('A', be32(10), be32(11),
			be64(0x16B3748),       // Int64 (XLogRecPtr): abort LSN
			be64(750000000000000), // Int64 (TimestampTz): abort time
		)},
	{"Stream Abort 15 ignores parallel", codec.Params{Major: 15, Streaming: codec.ParallelStreaming},
		&codec.LogicalStreamAbort{Xid: 10, SubXid: 11},
		cat('A', be32(10), be32(11))},

	// Common frontend/backend messages.
	{"Bind", codec.Params{},
		&codec.Bind{DestinationPortal: "p", PreparedStatement: "s", ParameterFormatCodes: []int16{1},
			Parameters: [][]byte{[]byte("ab"), nil, {}}, ResultFormatCodes: []int16{0, 1}},
		cat('B', be32(4+2+2+2+2+2+(4+2)+4+4+2+2+2), // tag, length
			cstr("p"), cstr("s"), // destination portal, source statement
			be16(1), be16(1), // Int16 C, Int16[C] parameter format codes
			be16(3),       // Int16: number of parameter values
			be32(2), "ab", // Int32 length, Byten value
			neg1,                      // -1: NULL
			be32(0),                   // empty value
			be16(2), be16(0), be16(1), // Int16 R, Int16[R] result format codes
		)},
	{"RowDescription", codec.Params{},
		&codec.RowDescription{Fields: []codec.FieldDescription{
			{Name: "id", TableOID: 16384, TableAttributeNumber: 1, DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1, Format: 0},
			{Name: "t", DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1, Format: 1}}},
		cat('T', be32(4+2+(3+18)+(2+18)), be16(2), // tag, length, Int16 number of fields
			cstr("id"), be32(16384), be16(1), be32(23), be16(4), neg1, be16(0), // name, table OID, attnum, type OID, size, typmod, format
			cstr("t"), be32(0), be16(0), be32(25), be16(0xFFFF), neg1, be16(1),
		)},
	{"DataRow", codec.Params{},
		&codec.DataRow{Values: [][]byte{[]byte("1"), nil, {}}},
		cat('D', be32(4+2+5+4+4), be16(3), // tag, length, Int16 number of columns
			be32(1), "1", // Int32 length, Byten value
			neg1,    // NULL
			be32(0), // empty string
		)},
	{"ErrorResponse", codec.Params{},
		&codec.ErrorResponse{Fields: []codec.ErrorField{
			{Code: codec.ErrorFieldSeverity, Value: "ERROR"}, {Code: codec.ErrorFieldCode, Value: "42P01"},
			{Code: codec.ErrorFieldMessage, Value: "no such table"}}},
		cat('E', be32(4+7+7+15+1), // tag, length
			'S', cstr("ERROR"), // Byte1 code, String value
			'C', cstr("42P01"),
			'M', cstr("no such table"),
			byte(0), // terminator
		)},
	{"StartupMessage 3.0", codec.Params{},
		&codec.StartupMessage{ProtocolVersion: 196608, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}, {Name: "database", Value: "d"}}},
		cat(be32(4+4+5+2+9+2+1), // Int32 length, no tag
			be32(196608), // protocol 3.0
			cstr("user"), cstr("u"), cstr("database"), cstr("d"),
			byte(0), // terminator
		)},
	{"StartupMessage 3.2 on 18", codec.Params{Major: 18},
		&codec.StartupMessage{ProtocolVersion: 196610, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}},
		cat(be32(4+4+5+2+1), be32(196610), cstr("user"), cstr("u"), byte(0))},
	{"AuthenticationMD5Password", codec.Params{},
		&codec.AuthenticationMD5Password{Salt: [4]byte{1, 2, 3, 4}},
		cat('R', be32(12), be32(5), []byte{1, 2, 3, 4})},
	{"AuthenticationSASL", codec.Params{},
		&codec.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256", "SCRAM-SHA-256-PLUS"}},
		cat('R', be32(4+4+14+19+1), be32(10), cstr("SCRAM-SHA-256"), cstr("SCRAM-SHA-256-PLUS"), byte(0))},
	{"SASLInitialResponse without data", codec.Params{},
		&codec.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256"},
		cat('p', be32(4+14+4), cstr("SCRAM-SHA-256"), neg1)},
	{"NegotiateProtocolVersion", codec.Params{},
		&codec.NegotiateProtocolVersion{NewestProtocolVersion: 0, UnrecognizedOptions: []string{"_pq_.x"}},
		cat('v', be32(4+4+4+7), be32(0), be32(1), cstr("_pq_.x"))},

	// pgoutput messages.
	{"Begin", codec.Params{Major: 16},
		&codec.LogicalBegin{FinalLSN: 0x1000, CommitTime: 1, Xid: 500},
		cat('B', be64(0x1000), be64(1), be32(500))},
	{"Commit", codec.Params{Major: 16},
		&codec.LogicalCommit{CommitLSN: 0x10, TransactionEndLSN: 0x20, CommitTime: 3},
		cat('C', byte(0), be64(0x10), be64(0x20), be64(3))},
	{"Relation", codec.Params{Major: 16},
		&codec.LogicalRelation{RelationOID: 16384, Namespace: "public", RelationName: "t", ReplicaIdentity: 'd',
			Columns: []codec.RelationColumn{{Flags: 1, Name: "id", DataType: 23, TypeModifier: -1}}},
		cat('R', be32(16384), cstr("public"), cstr("t"), byte('d'), be16(1), byte(1), cstr("id"), be32(23), neg1)},
	{"Truncate", codec.Params{Major: 16},
		&codec.LogicalTruncate{Options: 1, RelationOIDs: []uint32{16384, 16390}},
		cat('T', be32(2), // Int32: number of relations
			byte(1),                  // Int8: option bits
			be32(16384), be32(16390), // Int32 (Oid), repeated for each relation
		)},

	// Streaming replication CopyData payloads.
	{"XLogData", codec.Params{},
		&codec.XLogData{WALStart: 0x100, ServerWALEnd: 0x200, ServerTime: 5, WALData: []byte("wal")},
		cat('w', be64(0x100), be64(0x200), be64(5), "wal")},
	{"Primary keepalive", codec.Params{},
		&codec.PrimaryKeepalive{ServerWALEnd: 0x300, ServerTime: 6, ReplyRequested: 1},
		cat('k', be64(0x300), be64(6), byte(1))},
	{"Standby status update", codec.Params{},
		&codec.StandbyStatusUpdate{WALWritePosition: 1, WALFlushPosition: 2, WALApplyPosition: 3, ClientTime: 4, ReplyRequested: 0},
		cat('r', be64(1), be64(2), be64(3), be64(4), byte(0))},
	{"Hot standby feedback", codec.Params{},
		&codec.HotStandbyFeedback{ClientTime: 9, Xmin: 100, XminEpoch: 1, CatalogXmin: 90, CatalogXminEpoch: 1},
		cat('h', be64(9), be32(100), be32(1), be32(90), be32(1))},
	{"Primary status update 19", codec.Params{Major: 19},
		&codec.PrimaryStatusUpdate{InsertLSN: 7, OldestCommitFullXid: 8, NextFullXid: 9, ServerTime: 10},
		cat('s', be64(7), be64(8), be64(9), be64(10))},
	{"Backup progress", codec.Params{Major: 15},
		&codec.BackupProgress{BytesDone: 4096},
		cat('p', be64(4096))},
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			got := reflect.New(reflect.TypeOf(v.msg).Elem()).Interface().(codec.Message)
			if err := got.Decode(v.wire, v.p); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !same(got, v.msg) {
				t.Errorf("Decode:\n got %+v\nwant %+v", got, v.msg)
			}
			prefix := []byte("prefix")
			enc, err := v.msg.Encode(append([]byte(nil), prefix...), v.p)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if !bytes.HasPrefix(enc, prefix) || !bytes.Equal(enc[len(prefix):], v.wire) {
				t.Errorf("Encode:\n got % x\nwant % x", enc[len(prefix):], v.wire)
			}
		})
	}
}
