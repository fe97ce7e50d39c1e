package codec_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestCopyDataFraming: AppendCopyData wraps a replication message in a
// CopyData after what dst holds, byte for byte what CopyData.Encode makes
// of the payload, and CopyDataPayload takes it out again; a frame that is
// not a whole CopyData is refused by name.
func TestCopyDataFraming(t *testing.T) {
	m := &codec.StandbyStatusUpdate{WALWritePosition: 0x16_B374D848, ClientTime: 1, ReplyRequested: 1}
	payload, _ := m.Encode(nil, codec.Params{})
	want, _ := (&codec.CopyData{Data: payload}).Encode([]byte("prefix"), codec.Params{})
	got, err := codec.AppendCopyData([]byte("prefix"), m, codec.Params{})
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AppendCopyData: % x, %v; want % x", got, err, want)
	}
	if p, err := codec.CopyDataPayload(got[6:]); err != nil || !bytes.Equal(p, payload) {
		t.Errorf("CopyDataPayload: % x, %v", p, err)
	}
	// An encoding error leaves dst as it was.
	if out, err := codec.AppendCopyData([]byte("x"), &codec.PrimaryStatusUpdate{}, codec.Params{Major: 15}); err == nil || string(out) != "x" {
		t.Errorf("PrimaryStatusUpdate under 15: %q, %v", out, err)
	}
	for _, bad := range []struct {
		frame []byte
		err   error
	}{
		{cat('c', be32(5), "x"), codec.ErrBadFixedValue},
		{cat('E', be32(7), "SX\x00"), codec.ErrBadFixedValue}, // no terminator: not an ErrorResponse
		{cat('d', be32(9), "abc"), codec.ErrTruncated},
		{cat('d', be32(4), "x"), codec.ErrTrailingBytes},
		{nil, codec.ErrTruncated},
	} {
		var de *codec.DecodeError
		if _, err := codec.CopyDataPayload(bad.frame); !errors.As(err, &de) || !errors.Is(err, bad.err) || de.Message != "CopyData" {
			t.Errorf("CopyDataPayload(% x): %v, want %v", bad.frame, err, bad.err)
		}
	}
	// The server ends a stream with CopyDone, or with an ErrorResponse whose
	// reason must not be lost (a walsender terminated, a slot invalidated).
	if _, err := codec.CopyDataPayload(cat('c', be32(4))); !errors.Is(err, codec.ErrCopyDone) {
		t.Errorf("CopyDone: %v", err)
	}
	fields := cat("SFATAL\x00", "C57P01\x00", "Mterminating connection due to administrator command\x00", byte(0))
	fatal := cat('E', be32(uint32(4+len(fields))), fields)
	var se *codec.StreamError
	if _, err := codec.CopyDataPayload(fatal); !errors.As(err, &se) || se.Fields['C'] != "57P01" ||
		err.Error() != "codec: the server ended the stream: FATAL 57P01: terminating connection due to administrator command" {
		t.Errorf("ErrorResponse: %v", err)
	}
	n := testing.AllocsPerRun(100, func() { got, _ = codec.AppendCopyData(got[:0], m, codec.Params{}) })
	if n != 0 {
		t.Errorf("AppendCopyData into a buffer with room: %v allocs", n)
	}
}
