package codec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// errorKind is one kind of failure: how to cause it, the sentinel it
// wraps, where it says it happened, and the one line it reads as.
type errorKind struct {
	kind  string
	cause func() error
	is    error
	// where: message and field (DecodeError, EncodeError), byte offset (DecodeError).
	message, field string
	offset         int
	text           string
}

func decodeErr(m codec.Message, p codec.Params, src []byte) func() error {
	return func() error { return m.Decode(src, p) }
}

func dispatchErr(d decoder, src []byte) func() error {
	return func() error { _, err := d.Decode(src, codec.Params{}); return err }
}

func encodeErr(m codec.Message, p codec.Params) func() error {
	return func() error { _, err := m.Encode(nil, p); return err }
}

var decodeKinds = []errorKind{
	{"truncated", decodeErr(&codec.DataRow{}, codec.Params{}, msg('D', be16(1), be32(5), "x")), codec.ErrTruncated,
		"DataRow", "Values[0]", 11, "codec: decode DataRow.Values[0] (Byten) at byte 11: truncated"},
	{"length beyond the input", decodeErr(&codec.Sync{}, codec.Params{}, cat('S', be32(8))), codec.ErrTruncated,
		"Sync", "length", 1, "codec: decode Sync.length at byte 1: truncated"},
	{"trailing bytes", decodeErr(&codec.ReadyForQuery{}, codec.Params{}, cat('Z', be32(6), 'I', 'x')), codec.ErrTrailingBytes,
		"ReadyForQuery", "TxStatus", 6, "codec: decode ReadyForQuery at byte 6: trailing bytes after TxStatus (Byte1)"},
	{"bad fixed value", decodeErr(&codec.SSLRequest{}, codec.Params{}, cat(be32(8), be32(80877104))), codec.ErrBadFixedValue,
		"SSLRequest", "Int32(80877103)", 4, "codec: decode SSLRequest.Int32(80877103) at byte 4: wrong fixed value: got 80877104 (want 80877103)"},
	{"bad fixed byte", decodeErr(&codec.LogicalUpdate{}, codec.Params{Major: 16}, cat('U', be32(1), 'Q', be16(0))), codec.ErrBadFixedValue,
		"LogicalUpdate", "Byte1('N')", 5, "codec: decode LogicalUpdate.Byte1('N') at byte 5: wrong fixed value: got 'Q' (want 'N')" +
			" (decoded with Params.LogicalVersion 1 and without Params.Streaming Streamed; in a streamed transaction (pgoutput protocol version 2 and later) it starts with the transaction's xid)"},
	{"wrong tag", decodeErr(&codec.Sync{}, codec.Params{}, cat('X', be32(4))), codec.ErrBadFixedValue,
		"Sync", "tag", 0, "codec: decode Sync.tag at byte 0: wrong fixed value: got 'X' (want 'S')"},
	{"bad message length", decodeErr(&codec.Query{}, codec.Params{}, cat('Q', be32(3), byte(0))), codec.ErrBadLength,
		"Query", "length", 1, "codec: decode Query.length at byte 1: bad length"},
	{"negative length", decodeErr(&codec.DataRow{}, codec.Params{}, msg('D', be16(1), be32(0xFFFFFFFE))), codec.ErrNegativeLength,
		"DataRow", "Values[0]", 7, "codec: decode DataRow.Values[0] (Byten) at byte 7: negative length"},
	{"second element", decodeErr(&codec.LogicalUpdate{}, codec.Params{Major: 16}, cat('U', be32(1), 'O', be16(3), 'n', 't', be32(1), "a", 't', be32(9), "b")), codec.ErrTruncated,
		"LogicalUpdate", "Old.Columns[2].Data", 20, "codec: decode LogicalUpdate.Old.Columns[2].Data (Byten) at byte 20: truncated"},
	{"count too large", decodeErr(&codec.LogicalTruncate{}, codec.Params{Major: 16}, cat('T', be32(1<<31-1), byte(0), be32(1))), codec.ErrCountTooLarge,
		"LogicalTruncate", "RelationOIDs", 1, "codec: decode LogicalTruncate.RelationOIDs (Int32) at byte 1: count larger than the remaining bytes"},
	{"negative count", decodeErr(&codec.NegotiateProtocolVersion{}, codec.Params{}, msg('v', be32(0), neg1)), codec.ErrNegativeCount,
		"NegotiateProtocolVersion", "UnrecognizedOptions", 9, "codec: decode NegotiateProtocolVersion.UnrecognizedOptions (Int32) at byte 9: negative count"},
	{"unknown tag in a message", decodeErr(&codec.LogicalInsert{}, codec.Params{Major: 16}, cat('I', be32(1), 'N', be16(1), 'x')), codec.ErrUnknownTag,
		"LogicalInsert", "New.Columns[0].Kind", 8, "codec: decode LogicalInsert.New.Columns[0].Kind (Byte1) at byte 8: unknown tag 'x' (want 'n', 'u', 't', 'b')"},
	{"wrong byte where a streamed xid may be", decodeErr(&codec.LogicalInsert{}, codec.Params{Major: 16, LogicalVersion: 2}, cat('I', be32(7), be32(1), 'N', be16(0))), codec.ErrBadFixedValue,
		"LogicalInsert", "Byte1('N')", 5, "codec: decode LogicalInsert.Byte1('N') at byte 5: wrong fixed value: got '\\x00' (want 'N')" +
			" (decoded without Params.Streaming Streamed; between Stream Start and Stream Stop it starts with the transaction's xid)"},
	{"missing terminator", decodeErr(&codec.Query{}, codec.Params{}, msg('Q', "abc")), codec.ErrUnterminated,
		"Query", "String", 5, "codec: decode Query.String (String) at byte 5: missing zero terminator"},
}

// dispatchKinds are the dispatchers' own failures.
var dispatchKinds = []errorKind{
	{"unknown backend tag", dispatchErr(&codec.Backend{}, msg('Q', "x")), codec.ErrUnknownTag, "backend message", "tag", 0,
		"codec: decode backend message.tag at byte 0: unknown tag 'Q' (want '1', '2', '3', 'A', 'C', 'D', 'E', 'G', 'H', 'I', 'K', 'N', 'R', 'S', 'T', 'V', 'W', 'Z', 'c', 'd', 'n', 's', 't', 'v')"},
	{"unknown authentication subtype", dispatchErr(&codec.Backend{}, cat('R', be32(8), be32(99))), codec.ErrUnknownTag, "backend message", "subtype", 5,
		"codec: decode backend message.subtype at byte 5: unknown subtype 99 (want 0, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12)"},
	{"'p' without an authentication state", dispatchErr(&codec.Frontend{}, msg('p', cstr("pw"))), codec.ErrUnknownTag, "frontend message", "Auth", 0,
		"codec: decode frontend message.Auth at byte 0: Frontend.Auth is not set, and only it tells which message a 'p' is"},
	{"unknown replication tag", dispatchErr(&codec.ReplicationFrontend{}, cat('w', be64(1))), codec.ErrUnknownTag, "replication message", "tag", 0,
		"codec: decode replication message.tag at byte 0: unknown tag 'w' (want 'h', 'p', 'r')"},
	{"startup request cut short", dispatchErr(&codec.Startup{}, be32(8)), codec.ErrTruncated, "startup message", "request code", 4,
		"codec: decode startup message.request code at byte 4: truncated"}, // the code follows the length
}

var encodeKinds = []errorKind{
	{"zero byte in a string", encodeErr(&codec.Query{String: "a\x00b"}, codec.Params{}), codec.ErrZeroByte,
		"Query", "String", 0, "codec: encode Query.String: zero byte inside a zero-terminated value"},
	{"count too large for its field", encodeErr(&codec.DataRow{Values: make([][]byte, 70000)}, codec.Params{}), codec.ErrTooLarge,
		"DataRow", "Values", 0, "codec: encode DataRow.Values: value too large for its wire field"},
	{"length outside the layout's bounds", encodeErr(&codec.BackendKeyData{SecretKey: make([]byte, 3)}, codec.Params{Major: 18}), codec.ErrBadLength,
		"BackendKeyData", "SecretKey", 0, "codec: encode BackendKeyData.SecretKey: bad length: 3 bytes (want 4)"},
	{"3.2 key under 3.0", encodeErr(&codec.BackendKeyData{SecretKey: make([]byte, 32)}, codec.Params{Major: 18}), codec.ErrBadLength,
		"BackendKeyData", "SecretKey", 0, "codec: encode BackendKeyData.SecretKey: bad length: 32 bytes (want 4); Params.ProtocolMinor 2 (protocol 3.2) allows 4 to 256 bytes"},
	{"field the Params leave out", encodeErr(&codec.LogicalStreamAbort{AbortLSN: 1}, codec.Params{Major: 16, LogicalVersion: 4, Streaming: codec.Streamed}), codec.ErrNotOnWire,
		"LogicalStreamAbort", "AbortLSN", 0, "codec: encode LogicalStreamAbort.AbortLSN: set, but it is on the wire only when Params.Streaming has ParallelStreaming and Params.LogicalVersion >= 4"},
	{"field of later majors", encodeErr(&codec.LogicalInsert{Xid: 7}, codec.Params{Major: 13}), codec.ErrNotOnWire,
		"LogicalInsert", "Xid", 0, "codec: encode LogicalInsert.Xid: set, but it is on the wire only in PostgreSQL 14 and later"},
	{"tag not among the choices", encodeErr(&codec.LogicalUpdate{OldKind: 'X'}, codec.Params{Major: 16}), codec.ErrUnknownTag,
		"LogicalUpdate", "OldKind", 0, "codec: encode LogicalUpdate.OldKind: unknown tag 'X' (want 'K', 'O')"},
}

// TestErrorKinds: every kind of decode and encode failure is a typed error
// that errors.As finds (also through wrapping), that errors.Is matches to
// its sentinel, that says message, field and offset, and reads in one line.
func TestErrorKinds(t *testing.T) {
	check := func(t *testing.T, k errorKind, err error) {
		if !errors.Is(err, k.is) {
			t.Errorf("got %v, want %v", err, k.is)
		}
		if err.Error() != k.text {
			t.Errorf("reads\n%q\nwant\n%q", err, k.text)
		}
		if s := err.Error(); strings.ContainsAny(s, "\n\r") || !strings.HasPrefix(s, "codec: ") {
			t.Errorf("not one codec line: %q", s)
		}
	}
	for _, k := range append(append([]errorKind(nil), decodeKinds...), dispatchKinds...) {
		t.Run("decode/"+k.kind, func(t *testing.T) {
			err := fmt.Errorf("reading a reply: %w", k.cause())
			var de *codec.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %T %v, want a *DecodeError", err, err)
			}
			if de.Message != k.message || de.Field != k.field || de.Offset != k.offset {
				t.Errorf("at %s.%s byte %d, want %s.%s byte %d", de.Message, de.Field, de.Offset, k.message, k.field, k.offset)
			}
			check(t, k, de)
		})
	}
	for _, k := range encodeKinds {
		t.Run("encode/"+k.kind, func(t *testing.T) {
			var ee *codec.EncodeError
			if err := k.cause(); !errors.As(err, &ee) {
				t.Fatalf("got %T %v, want an *EncodeError", err, err)
			}
			if ee.Message != k.message || ee.Field != k.field {
				t.Errorf("at %s.%s, want %s.%s", ee.Message, ee.Field, k.message, k.field)
			}
			check(t, k, ee)
		})
	}
}

// TestRunningOutIsTruncated: every way input can run out before the
// message does (a short field, a count larger than what is left, a string
// without its terminator) matches ErrTruncated, and its own sentinel.
func TestRunningOutIsTruncated(t *testing.T) {
	for _, c := range []struct {
		err error
		is  error
	}{
		{(&codec.DataRow{}).Decode(msg('D', be16(2), be32(1), "a"), codec.Params{}), codec.ErrTruncated},
		{(&codec.DataRow{}).Decode(msg('D', be16(0xFFFF)), codec.Params{}), codec.ErrCountTooLarge},
		{(&codec.Query{}).Decode(msg('Q', "abc"), codec.Params{}), codec.ErrUnterminated},
	} {
		if !errors.Is(c.err, codec.ErrTruncated) || !errors.Is(c.err, c.is) {
			t.Errorf("%v: not ErrTruncated and %v", c.err, c.is)
		}
	}
	if errors.Is(codec.ErrTrailingBytes, codec.ErrTruncated) || errors.Is(codec.ErrTruncated, codec.ErrCountTooLarge) {
		t.Error("ErrTruncated matches what is not input running out")
	}
}

// TestVersionErrorKind: a message outside its majors is a *VersionError,
// on decode and on encode, naming the message and the major.
func TestVersionErrorKind(t *testing.T) {
	for _, err := range []error{
		(&codec.LogicalMessage{}).Decode(cat('M', byte(0), be64(1), cstr("p"), be32(0)), codec.Params{Major: 13}),
		encodeErr(&codec.LogicalMessage{}, codec.Params{Major: 13})(),
	} {
		var ve *codec.VersionError
		if !errors.As(fmt.Errorf("wrapped: %w", err), &ve) || ve.Message != "LogicalMessage" || ve.Major != 13 {
			t.Fatalf("got %T %v", err, err)
		}
		if want := "codec: LogicalMessage does not exist in PostgreSQL 13"; err.Error() != want {
			t.Errorf("reads %q, want %q", err, want)
		}
	}
}

// TestFrameErrorKinds: framing refuses a length above the maximum or below
// the header with a *FrameError naming the tag, the length and the maximum.
func TestFrameErrorKinds(t *testing.T) {
	for _, c := range []struct {
		header   []byte
		untagged bool
		is       error
		text     string
	}{
		{cat('D', be32(1<<30)), false, codec.ErrTooLong, "codec: frame 'D' length 1073741824 (max 1048575): message longer than the maximum size"},
		{cat('D', be32(2)), false, codec.ErrBadLength, "codec: frame 'D' length 2 (max 1048575): bad length"},
		{be32(1 << 21), true, codec.ErrTooLong, "codec: frame length 2097152 (max 1048576): message longer than the maximum size"},
	} {
		f := codec.NewFrameReader(&countingReader{header: c.header})
		f.MaxSize = 1 << 20
		var err error
		if c.untagged {
			_, err = f.NextUntagged()
		} else {
			_, err = f.Next()
		}
		var fe *codec.FrameError
		if !errors.As(fmt.Errorf("wrapped: %w", err), &fe) || !errors.Is(err, c.is) {
			t.Fatalf("got %T %v", err, err)
		}
		if err.Error() != c.text {
			t.Errorf("reads\n%q\nwant\n%q", err, c.text)
		}
	}
}
