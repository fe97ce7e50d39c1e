package codec_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// badCase is input that must fail with a DecodeError naming the message,
// the field and the byte offset.
type badCase struct {
	name   string
	msg    codec.Message
	p      codec.Params
	src    []byte
	err    error
	field  string
	offset int
}

var badCases = []badCase{
	// truncated
	{"length beyond input", &codec.DataRow{}, codec.Params{}, cat('D', be32(14), be16(1), be32(4)), codec.ErrTruncated, "length", 1},
	{"no terminator", &codec.Query{}, codec.Params{}, cat('Q', be32(7), "abc"), codec.ErrUnterminated, "String", 5},
	{"short integer", &codec.PrimaryKeepalive{}, codec.Params{}, cat('k', be32(1)), codec.ErrTruncated, "ServerWALEnd", 1},
	// fields read as one run when all there, one by one to name the first missing
	{"run cut in its second field", &codec.PrimaryKeepalive{}, codec.Params{}, cat('k', be64(1), be32(0)), codec.ErrTruncated, "ServerTime", 9},
	{"run cut before its last byte", &codec.PrimaryKeepalive{}, codec.Params{}, cat('k', be64(1), be64(2)), codec.ErrTruncated, "ReplyRequested", 17},
	{"column run cut", &codec.RowDescription{}, codec.Params{}, cat('T', be32(4+2+2+17), be16(1), cstr("a"), make([]byte, 17)), codec.ErrTruncated, "Fields[0].Format", 25},
	{"value shorter than its length", &codec.DataRow{}, codec.Params{}, cat('D', be32(4+2+4+1), be16(1), be32(5), "x"), codec.ErrTruncated, "Values[0]", 11},
	{"empty input", &codec.Sync{}, codec.Params{}, nil, codec.ErrTruncated, "tag", 0},
	{"tuple cut after kind", &codec.LogicalInsert{}, codec.Params{Major: 16}, cat('I', be32(1), 'N', be16(1), 't', be16(0)), codec.ErrTruncated, "New.Columns[0].Data", 9},
	// TupleData's columns are read in one loop until one is not plain, then one by one from it
	{"column cut after plain ones", &codec.LogicalInsert{}, codec.Params{Major: 16}, cat('I', be32(1), 'N', be16(3), 'n', 'b', be32(1), "a", 't', be32(2), "b"), codec.ErrTruncated, "New.Columns[2].Data", 20},
	// overlong
	{"body longer than its fields", &codec.ReadyForQuery{}, codec.Params{}, cat('Z', be32(6), 'I', 'x'), codec.ErrTrailingBytes, "TxStatus", 6},
	{"input longer than the length", &codec.ReadyForQuery{}, codec.Params{}, cat('Z', be32(5), 'I', 'x'), codec.ErrTrailingBytes, "length", 6},
	{"logical message with a byte too many", &codec.LogicalBegin{}, codec.Params{Major: 16}, cat('B', be64(1), be64(2), be32(3), byte(9)), codec.ErrTrailingBytes, "Xid", 21},
	{"secret key too long for 3.0", &codec.BackendKeyData{}, codec.Params{Major: 18}, cat('K', be32(16), be32(1), be64(2)), codec.ErrBadLength, "SecretKey", 9},
	{"secret key too long for 3.2", &codec.BackendKeyData{}, codec.Params{Major: 18, ProtocolMinor: 2}, cat('K', be32(8+257), be32(1), make([]byte, 257)), codec.ErrBadLength, "SecretKey", 9},
	// negative lengths
	{"negative value length", &codec.DataRow{}, codec.Params{}, cat('D', be32(4+2+4), be16(1), be32(0xFFFFFFFE)), codec.ErrNegativeLength, "Values[0]", 7},
	{"negative column length after plain ones", &codec.LogicalInsert{}, codec.Params{Major: 16}, cat('I', be32(1), 'N', be16(3), 'u', 't', be32(1), "a", 't', neg1), codec.ErrNegativeLength, "New.Columns[2].Data", 16},
	{"-1 where NULL is not allowed", &codec.LogicalMessage{}, codec.Params{Major: 16}, cat('M', byte(0), be64(1), cstr("p"), neg1), codec.ErrNegativeLength, "Content", 12},
	{"negative message length", &codec.Query{}, codec.Params{}, cat('Q', neg1, byte(0)), codec.ErrBadLength, "length", 1},
	{"length below 4", &codec.Sync{}, codec.Params{}, cat('S', be32(3)), codec.ErrBadLength, "length", 1},
	// counts
	{"count beyond input", &codec.DataRow{}, codec.Params{}, cat('D', be32(6), be16(0xFFFF)), codec.ErrCountTooLarge, "Values", 5},
	{"2^31-1 relations", &codec.LogicalTruncate{}, codec.Params{Major: 16}, cat('T', be32(math.MaxInt32), byte(0), be32(1)), codec.ErrCountTooLarge, "RelationOIDs", 1},
	{"negative Int32 count", &codec.NegotiateProtocolVersion{}, codec.Params{}, cat('v', be32(12), be32(0), neg1), codec.ErrNegativeCount, "UnrecognizedOptions", 9},
	{"columns beyond input", &codec.RowDescription{}, codec.Params{}, cat('T', be32(4+2+2+18), be16(2), cstr("a"), make([]byte, 18)), codec.ErrCountTooLarge, "Fields", 5},
	// unknown tags
	{"unknown column kind", &codec.LogicalInsert{}, codec.Params{Major: 16}, cat('I', be32(1), 'N', be16(1), 'x'), codec.ErrUnknownTag, "New.Columns[0].Kind", 8},
	{"binary column before 14", &codec.LogicalInsert{}, codec.Params{Major: 13}, cat('I', be32(1), 'N', be16(1), 'b', be32(0)), codec.ErrUnknownTag, "New.Columns[0].Kind", 8},
	{"unknown column kind after plain ones", &codec.LogicalInsert{}, codec.Params{Major: 16}, cat('I', be32(1), 'N', be16(3), 'n', 'u', 'x'), codec.ErrUnknownTag, "New.Columns[2].Kind", 10},
	{"binary column before 14 after a text one", &codec.LogicalInsert{}, codec.Params{Major: 13}, cat('I', be32(1), 'N', be16(2), 't', be32(0), 'b', be32(0)), codec.ErrUnknownTag, "New.Columns[1].Kind", 13},
	{"delete without K or O", &codec.LogicalDelete{}, codec.Params{Major: 16}, cat('D', be32(1), 'N', be16(0)), codec.ErrUnknownTag, "OldKind", 5},
	// wrong fixed values
	{"wrong tag", &codec.Sync{}, codec.Params{}, cat('X', be32(4)), codec.ErrBadFixedValue, "tag", 0},
	{"wrong authentication subtype", &codec.AuthenticationOk{}, codec.Params{}, cat('R', be32(8), be32(3)), codec.ErrBadFixedValue, "Int32(0)", 5},
	{"wrong request code", &codec.SSLRequest{}, codec.Params{}, cat(be32(8), be32(80877104)), codec.ErrBadFixedValue, "Int32(80877103)", 4},
	{"update without N", &codec.LogicalUpdate{}, codec.Params{Major: 16}, cat('U', be32(1), 'X', be16(0)), codec.ErrBadFixedValue, "Byte1('N')", 5},
}

func TestBadBytes(t *testing.T) {
	for _, c := range badCases {
		t.Run(c.name, func(t *testing.T) {
			err := c.msg.Decode(c.src, c.p)
			var de *codec.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v (%T), want a *DecodeError", err, err)
			}
			if !errors.Is(err, c.err) || de.Field != c.field || de.Offset != c.offset {
				t.Errorf("got %v\nwant %v at %s, byte %d", err, c.err, c.field, c.offset)
			}
		})
	}
}

func TestDecodeErrorReadsInOneLine(t *testing.T) {
	err := (&codec.DataRow{}).Decode(cat('D', be32(4+2+4), be16(1), be32(0xFFFFFFFE)), codec.Params{})
	const want = "codec: decode DataRow.Values[0] (Byten) at byte 7: negative length"
	if err == nil || err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestVersionError(t *testing.T) {
	for _, c := range []struct {
		msg   codec.Message
		major int
	}{
		{&codec.LogicalMessage{}, 13},      // 'M' arrives in 14
		{&codec.GSSEncRequest{}, 11},       // GSSENCRequest arrives in 12
		{&codec.PrimaryStatusUpdate{}, 18}, // 19 only
		{&codec.AuthenticationSCMCredential{}, 16},
		{&codec.Query{}, codec.OldestMajor - 1},
		{&codec.Query{}, codec.NewestMajor + 1},
	} {
		var ve *codec.VersionError
		err := c.msg.Decode([]byte{0}, codec.Params{Major: c.major})
		if !errors.As(err, &ve) || ve.Major != c.major {
			t.Errorf("%T decode in %d: got %v", c.msg, c.major, err)
		}
		// Majors outside the generated ones say so, and wrap ErrMajorNotGenerated.
		if outside := !codec.GeneratedMajors.Has(c.major); errors.Is(err, codec.ErrMajorNotGenerated) != outside ||
			outside != strings.Contains(err.Error(), "is not one of the majors the codec was generated for ("+generatedList+")") {
			t.Errorf("%T decode in %d: %v; outside the generated majors: %v", c.msg, c.major, err, outside)
		}
		dst := []byte("keep")
		out, err := c.msg.Encode(dst, codec.Params{Major: c.major})
		if !errors.As(err, &ve) || string(out) != "keep" {
			t.Errorf("%T encode in %d: got %v, %q", c.msg, c.major, err, out)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		msg   codec.Message
		p     codec.Params
		err   error
		field string
	}{
		{"zero byte in a string", &codec.Query{String: "a\x00b"}, codec.Params{}, codec.ErrZeroByte, "String"},
		{"3-byte key under 3.0", &codec.BackendKeyData{SecretKey: []byte{1, 2, 3}}, codec.Params{Major: 18}, codec.ErrBadLength, "SecretKey"},
		{"8-byte key under 3.0", &codec.BackendKeyData{SecretKey: make([]byte, 8)}, codec.Params{Major: 18}, codec.ErrBadLength, "SecretKey"},
		{"257-byte cancel key", &codec.CancelRequest{SecretKey: make([]byte, 257)}, codec.Params{Major: 18, ProtocolMinor: 2}, codec.ErrBadLength, "SecretKey"},
		{"empty cancel key", &codec.CancelRequest{}, codec.Params{Major: 19}, codec.ErrBadLength, "SecretKey"},
		{"257-byte key under 3.2", &codec.BackendKeyData{SecretKey: make([]byte, 257)}, codec.Params{Major: 18, ProtocolMinor: 2}, codec.ErrBadLength, "SecretKey"},
		{"8-byte key before 18", &codec.BackendKeyData{SecretKey: make([]byte, 8)}, codec.Params{Major: 17, ProtocolMinor: 2}, codec.ErrBadLength, "SecretKey"},
		{"unknown old kind", &codec.LogicalUpdate{OldKind: 'X'}, codec.Params{Major: 16}, codec.ErrUnknownTag, "OldKind"},
		{"delete needs K or O", &codec.LogicalDelete{}, codec.Params{Major: 16}, codec.ErrUnknownTag, "OldKind"},
		{"unknown column kind", &codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'z'}}}, codec.Params{}, codec.ErrUnknownTag, "Columns.Kind"},
		{"error field code 0", &codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 0, Value: "x"}}}, codec.Params{}, codec.ErrZeroByte, "Fields.Code"},
		{"empty startup parameter name", &codec.StartupMessage{Parameters: []codec.StartupParameter{{Value: "x"}}}, codec.Params{}, codec.ErrZeroByte, "Parameters.Name"},
		{"more than 65535 values", &codec.DataRow{Values: make([][]byte, 70000)}, codec.Params{}, codec.ErrTooLarge, "Values"},
		{"more than 65535 parameter types", &codec.Parse{ParameterOIDs: make([]uint32, 70000)}, codec.Params{}, codec.ErrTooLarge, "ParameterOIDs"},
		{"more than 65535 column formats", &codec.CopyInResponse{ColumnFormatCodes: make([]int16, 70000)}, codec.Params{}, codec.ErrTooLarge, "ColumnFormatCodes"},
		{"zero byte in the first string of a run", &codec.Parse{Name: "s\x00", Query: "SELECT 1"}, codec.Params{}, codec.ErrZeroByte, "Name"},
		{"zero byte in the last string of a run", &codec.Parse{Name: "s", Query: "SELECT\x00 1"}, codec.Params{}, codec.ErrZeroByte, "Query"},
		{"zero byte in both strings of a run", &codec.ParameterStatus{Name: "\x00", Value: "\x00"}, codec.Params{}, codec.ErrZeroByte, "Name"},
		{"zero byte in a value", &codec.ParameterStatus{Name: "TimeZone", Value: "UTC\x00"}, codec.Params{}, codec.ErrZeroByte, "Value"},
		// a field set that the Params (or another field, or the major) leave off the wire
		{"abort LSN without parallel streaming", &codec.LogicalStreamAbort{Xid: 1, SubXid: 2, AbortLSN: 5}, codec.Params{Major: 16, LogicalVersion: 4, Streaming: codec.Streamed}, codec.ErrNotOnWire, "AbortLSN"},
		{"abort time before 16", &codec.LogicalStreamAbort{Xid: 1, SubXid: 2, AbortTime: 5}, codec.Params{Major: 15, LogicalVersion: 4, Streaming: codec.ParallelStreaming}, codec.ErrNotOnWire, "AbortTime"},
		{"xid outside a streamed transaction", &codec.LogicalInsert{Xid: 7, RelationOID: 1}, codec.Params{Major: 16, LogicalVersion: 2}, codec.ErrNotOnWire, "Xid"},
		{"xid under protocol version 1", &codec.LogicalInsert{Xid: 7, RelationOID: 1}, codec.Params{Major: 16, LogicalVersion: 1, Streaming: codec.Streamed}, codec.ErrNotOnWire, "Xid"},
		{"xid before 14", &codec.LogicalInsert{Xid: 7, RelationOID: 1}, codec.Params{Major: 13, LogicalVersion: 2, Streaming: codec.Streamed}, codec.ErrNotOnWire, "Xid"},
		{"old tuple without its kind", &codec.LogicalUpdate{Old: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'n'}}}}, codec.Params{Major: 16}, codec.ErrNotOnWire, "Old"},
		{"data of a NULL column", &codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'n', Data: []byte("x")}}}, codec.Params{}, codec.ErrNotOnWire, "Columns.Data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// without room (the full writer) and with room (Encode's fast
			// path, where the message has one)
			for _, dst := range [][]byte{[]byte("keep"), append(make([]byte, 0, 1<<20), "keep"...)} {
				out, err := c.msg.Encode(dst, c.p)
				var ee *codec.EncodeError
				if !errors.As(err, &ee) || !errors.Is(err, c.err) || ee.Field != c.field {
					t.Fatalf("room for %d bytes: got %v, want %v at %s", cap(dst)-len(dst), err, c.err, c.field)
				}
				if !bytes.Equal(out, []byte("keep")) {
					t.Errorf("room for %d bytes: dst changed to %q", cap(dst)-len(dst), out)
				}
			}
		})
	}
}

// TestStringsEveryLength encodes strings of every length up to 100 into a
// buffer with and without room: as a CommandComplete and as either string
// of a ParameterStatus (Encode's fast path: putStr copies 1 to 3 bytes one
// at a time, 4 to 15 as two overlapping words, 16 or more in blocks of 16,
// the last overlapping, and more than 32 32 at a time), and as an
// ErrorResponse's field (the writer's str: words up to 32 bytes, memmove
// and IndexByte above). Each is written whole and terminated, and nothing
// in the room after it changes; a zero byte at any position is refused
// with dst unchanged, with the error the full writer gives (dst without
// room).
func TestStringsEveryLength(t *testing.T) {
	encoders := []struct {
		field  string
		encode func(s string, dst []byte) ([]byte, error)
		wire   func(s []byte) []byte // the message after "keep"
	}{
		{"CommandTag", func(s string, dst []byte) ([]byte, error) {
			return (&codec.CommandComplete{CommandTag: s}).Encode(dst, codec.Params{})
		}, func(s []byte) []byte { return cat('C', be32(uint32(len(s)+5)), s, []byte{0}) }},
		{"Name", func(s string, dst []byte) ([]byte, error) {
			return (&codec.ParameterStatus{Name: s, Value: "on"}).Encode(dst, codec.Params{})
		}, func(s []byte) []byte { return cat('S', be32(uint32(len(s)+8)), s, []byte{0}, []byte("on\x00")) }},
		{"Value", func(s string, dst []byte) ([]byte, error) {
			return (&codec.ParameterStatus{Name: "x", Value: s}).Encode(dst, codec.Params{})
		}, func(s []byte) []byte { return cat('S', be32(uint32(len(s)+7)), []byte("x\x00"), s, []byte{0}) }},
		{"Fields.Value", func(s string, dst []byte) ([]byte, error) {
			return (&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'M', Value: s}}}).Encode(dst, codec.Params{})
		}, func(s []byte) []byte { return cat('E', be32(uint32(len(s)+7)), []byte{'M'}, s, []byte{0, 0}) }},
	}
	const canary = 0xee
	roomy := func() []byte { // "keep" and room for the longest message, all canary
		b := bytes.Repeat([]byte{canary}, 4+120)
		return append(b[:0], "keep"...)
	}
	for n := 0; n <= 100; n++ {
		s := make([]byte, n)
		for i := range s {
			s[i] = byte(0x80 + i) // every byte's high bit set, the zero test's edge
			if i%3 == 1 {
				s[i] = byte(1 + i) // and low bytes, which borrow
			}
		}
		for _, e := range encoders {
			for _, dst := range [][]byte{[]byte("keep"), roomy()} {
				out, err := e.encode(string(s), dst)
				if want := append([]byte("keep"), e.wire(s)...); err != nil || !bytes.Equal(out, want) {
					t.Fatalf("%s, %d bytes: got % x, %v", e.field, n, out, err)
				}
				for i, c := range out[len(out):cap(out)] {
					if cap(dst) > len(dst) && c != canary {
						t.Fatalf("%s, %d bytes: byte %d of the room after the message changed to %#x", e.field, n, i, c)
					}
				}
				for z := range n {
					bad := bytes.Clone(s)
					bad[z] = 0
					out, err := e.encode(string(bad), dst)
					_, full := e.encode(string(bad), nil)
					var ee *codec.EncodeError
					if !errors.Is(err, codec.ErrZeroByte) || !errors.As(err, &ee) || ee.Field != e.field || string(out) != "keep" ||
						full == nil || err.Error() != full.Error() {
						t.Fatalf("%s, %d bytes, zero at %d: got %q, %v (the full writer: %v)", e.field, n, z, out, err, full)
					}
				}
			}
		}
	}
}

// TestValuesEveryLength encodes a DataRow of values of every length up to
// 40 (the word-wise copy covers up to 16 bytes, memmove the rest) and NULL,
// into a buffer with and without room: the bytes are the lengths and values
// in order, and decode back to the same values.
func TestValuesEveryLength(t *testing.T) {
	row := codec.DataRow{Values: [][]byte{nil}}
	want := cat('D', be32(0), be16(41+1), neg1)
	for n := 0; n <= 40; n++ {
		v := make([]byte, n)
		for i := range v {
			v[i] = byte(n + i)
		}
		row.Values = append(row.Values, v)
		want = cat(want, be32(uint32(n)), v)
	}
	binary.BigEndian.PutUint32(want[1:], uint32(len(want)-1))
	for _, room := range []int{0, len(want), len(want) - 10} {
		out, err := row.Encode(make([]byte, 0, room), codec.Params{})
		if err != nil || !bytes.Equal(out, want) {
			t.Fatalf("room %d: got % x, %v\nwant % x", room, out, err, want)
		}
		var back codec.DataRow
		if err := back.Decode(out, codec.Params{}); err != nil || !reflect.DeepEqual(back.Values, row.Values) {
			t.Fatalf("room %d: decoded %q, %v", room, back.Values, err)
		}
	}
}

// TestPrefixesNeverPanic decodes every prefix and every one-byte extension
// of every vector: each either decodes or fails with a DecodeError.
func TestPrefixesNeverPanic(t *testing.T) {
	for _, v := range vectors {
		for i := 0; i <= len(v.wire)+1; i++ {
			src := v.wire[:min(i, len(v.wire))]
			if i > len(v.wire) {
				src = append(bytes.Clone(v.wire), 0)
			}
			m := reflect.New(reflect.TypeOf(v.msg).Elem()).Interface().(codec.Message)
			err := m.Decode(src, v.p)
			var de *codec.DecodeError
			if i < len(v.wire) && err == nil && !restOfMessage(v.msg) {
				t.Errorf("%s: prefix of %d bytes decoded", v.name, i)
			}
			if err != nil && !errors.As(err, &de) {
				t.Errorf("%s: %d bytes: %T %v", v.name, i, err, err)
			}
		}
	}
}

// restOfMessage reports messages whose last field runs to the end of the
// input, so that a shorter input is a shorter value, not an error.
func restOfMessage(m codec.Message) bool {
	switch m.(type) {
	case *codec.XLogData:
		return true
	}
	return false
}

// generatedList is the codec's majors as VersionError lists them: "10, 11, …".
var generatedList = func() string {
	var s []string
	for _, m := range codec.GeneratedMajors.Majors() {
		s = append(s, strconv.Itoa(m))
	}
	return strings.Join(s, ", ")
}()

// TestEncodeWithAndWithoutRoom: every message, with every field set, and
// once more with a zero byte in each string, encodes to the same bytes or
// the same error whether dst has room for it (Encode's fast path, where a
// message has one) or not (the full writer, which grows dst), and decodes
// back from them to the same value on either path of Decode.
func TestEncodeWithAndWithoutRoom(t *testing.T) {
	for _, major := range []int{10, 14, 16, 18} {
		p := codec.Params{Major: major, LogicalVersion: 4, Streaming: codec.Streamed}
		for _, m := range codec.NewMessages() {
			if !m.Majors().Has(major) {
				continue
			}
			for seed := range 2 {
				fill(reflect.ValueOf(m).Elem(), seed+1)
				if seed == 1 {
					zeroStrings(reflect.ValueOf(m).Elem())
				}
				tight, err1 := m.Encode([]byte("x"), p)
				roomy, err2 := m.Encode(append(make([]byte, 0, 1<<16), 'x'), p)
				if fmt.Sprint(err1) != fmt.Sprint(err2) || !bytes.Equal(tight, roomy) {
					t.Fatalf("%d %T seed %d: without room % x, %v; with room % x, %v", major, m, seed, tight, err1, roomy, err2)
				}
				if err1 != nil {
					continue
				}
				back := newLike(m)
				if err := back.Decode(tight[1:], p); err != nil {
					continue // a filled value the layout cannot carry (the dispatchers' fuzz tests cover decoding)
				}
				if !reflect.DeepEqual(back, m) {
					t.Fatalf("%d %T: decoded %+v; encoded %+v", major, m, back, m)
				}
				full := newLike(m)
				if ok, err := codec.DecodeFully(full, tight[1:], p); ok && (err != nil || !reflect.DeepEqual(full, back)) {
					t.Fatalf("%d %T: the full reader decodes %+v, %v; the fast path %+v", major, m, full, err, back)
				}
				again, err := back.Encode(nil, p)
				if err != nil || !bytes.Equal(again, tight[1:]) {
					t.Fatalf("%d %T: decoded and encoded again % x, %v; want % x", major, m, again, err, tight[1:])
				}
			}
		}
	}
}

// zeroStrings puts a zero byte into every non-empty string field of v.
func zeroStrings(v reflect.Value) {
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String && f.Len() > 0 {
			f.SetString(f.String()[:f.Len()/2] + "\x00" + f.String()[f.Len()/2:])
		}
	}
}
