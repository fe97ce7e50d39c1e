package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestDecodeErrorHints: bytes encoded under one Params and decoded under
// another fail with a DecodeError whose hint names the setting to check;
// the same bytes under the right Params decode.
func TestDecodeErrorHints(t *testing.T) {
	streamed := codec.Params{LogicalVersion: 2, Streaming: codec.Streamed}
	parallel := codec.Params{LogicalVersion: 4, Streaming: codec.Streamed | codec.ParallelStreaming}
	insert := &codec.LogicalInsert{Xid: 7, RelationOID: 16384, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'n'}}}}
	abort := &codec.LogicalStreamAbort{Xid: 7, SubXid: 8, AbortLSN: 9, AbortTime: 10}
	key := &codec.BackendKeyData{ProcessID: 1, SecretKey: []byte("0123456789abcdef0123456789abcdef")}
	for _, c := range []struct {
		name          string
		msg           codec.Message
		encode, wrong codec.Params
		hint          string
	}{
		{"streamed Insert without Streamed", insert, streamed, codec.Params{LogicalVersion: 2}, "without Params.Streaming Streamed"},
		{"plain Insert with Streamed", &codec.LogicalInsert{RelationOID: 16384, New: insert.New}, codec.Params{LogicalVersion: 2}, streamed, "with Params.Streaming Streamed"},
		{"streamed Insert under protocol version 1", insert, streamed, codec.Params{LogicalVersion: 1, Streaming: codec.Streamed}, "Params.LogicalVersion 1; streamed fields need pgoutput protocol version 2"},
		{"parallel Stream Abort without ParallelStreaming", abort, parallel, codec.Params{LogicalVersion: 4, Streaming: codec.Streamed}, "without Params.Streaming ParallelStreaming"},
		{"Stream Abort with ParallelStreaming", &codec.LogicalStreamAbort{Xid: 7, SubXid: 8}, codec.Params{LogicalVersion: 4}, parallel, "with Params.Streaming ParallelStreaming"},
		{"3.2 key under 3.0", key, codec.Params{ProtocolMinor: 2}, codec.Params{}, "protocol 3.0 (Params.ProtocolMinor 0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wire, err := c.msg.Encode(nil, c.encode)
			if err != nil {
				t.Fatal(err)
			}
			if err := newLike(c.msg).Decode(wire, c.encode); err != nil {
				t.Fatalf("under the Params it was encoded with: %v", err)
			}
			err = newLike(c.msg).Decode(wire, c.wrong)
			var de *codec.DecodeError
			if !errors.As(err, &de) || !strings.Contains(de.Hint, c.hint) || !strings.Contains(err.Error(), c.hint) {
				t.Errorf("got %v, want a hint with %q", err, c.hint)
			}
		})
	}
	// A failure no Params explains has no hint.
	err := (&codec.DataRow{}).Decode(msg('D', be16(1), be32(5), "x"), codec.Params{})
	var de *codec.DecodeError
	if !errors.As(err, &de) || de.Hint != "" {
		t.Errorf("truncated DataRow: %v", err)
	}
}

// TestDispatchFailureReturnsNoMessage: a dispatcher whose message fails to
// decode returns no half-filled message with the error.
func TestDispatchFailureReturnsNoMessage(t *testing.T) {
	var b codec.Backend
	m, err := b.Decode(msg('D', be16(2), be32(1), "a"), codec.Params{}) // the second value is missing
	if err == nil || m != nil {
		t.Errorf("got %v, %v; want no message and an error", m, err)
	}
	var l codec.Logical
	if m, err := l.Decode([]byte{'B', 1, 2}, codec.Params{}); err == nil || m != nil {
		t.Errorf("logical: got %v, %v", m, err)
	}
}
