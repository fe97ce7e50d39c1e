package codec_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestEncryptionAnswers: the one-byte answers to SSLRequest ('S'/'N') and
// GSSENCRequest ('G'/'N') are messages of their own, read with NextByte; a
// byte neither answer can be, or a second byte, is refused by name.
func TestEncryptionAnswers(t *testing.T) {
	for _, c := range []struct {
		msg  codec.Message
		wire string
		ok   bool
		err  string
	}{
		{&codec.SSLResponse{}, "S", true, ""},
		{&codec.SSLResponse{}, "N", true, ""},
		{&codec.SSLResponse{}, "G", false, `SSLResponse.Answer (Byte1) at byte 0: unknown tag 'G' (want 'S', 'N')`},
		{&codec.SSLResponse{}, "", false, "truncated"},
		{&codec.SSLResponse{}, "NN", false, "trailing bytes"},
		{&codec.GSSEncResponse{}, "G", true, ""},
		{&codec.GSSEncResponse{}, "N", true, ""},
		{&codec.GSSEncResponse{}, "S", false, `GSSEncResponse.Answer (Byte1) at byte 0: unknown tag 'S' (want 'G', 'N')`},
	} {
		err := c.msg.Decode([]byte(c.wire), codec.Params{})
		if !c.ok {
			var de *codec.DecodeError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%T %q: got %v, want a DecodeError with %q", c.msg, c.wire, err, c.err)
			}
			continue
		}
		decodeEncode(t, c.wire, c.msg, []byte(c.wire), codec.Params{})
	}
	if m := (codec.SSLResponse{}); m.Decode([]byte("S"), codec.Params{}) != nil || m.Answer != 'S' {
		t.Errorf("SSLResponse 'S': Answer %q", m.Answer)
	}
	// GSSENCRequest, and so its answer, came with PostgreSQL 12.
	var ve *codec.VersionError
	if err := new(codec.GSSEncResponse).Decode([]byte("N"), codec.Params{Major: 11}); !errors.As(err, &ve) {
		t.Errorf("GSSEncResponse in 11: %v", err)
	}
}

// TestFrameReaderNextByte: a server's stream after SSLRequest is one byte,
// then (after 'N') tagged messages; NextByte takes exactly the byte and
// Buffered says what came after it.
func TestFrameReaderNextByte(t *testing.T) {
	auth := cat('R', be32(8), be32(0))
	for name, src := range chunkings(cat('N', auth)) {
		f := codec.NewFrameReader(src)
		b, err := f.NextByte()
		var ans codec.SSLResponse
		if err != nil || ans.Decode(b, codec.Params{}) != nil || ans.Answer != 'N' {
			t.Fatalf("%s: answer % x %v", name, b, err)
		}
		if got, err := f.Next(); err != nil || !bytes.Equal(got, auth) {
			t.Fatalf("%s: after the answer: % x %v", name, got, err)
		}
		if _, err := f.NextByte(); err != io.EOF {
			t.Errorf("%s: at the end: %v", name, err)
		}
	}
	// Bytes that arrived with an 'S' are not the TLS server's: Buffered shows them.
	f := codec.NewFrameReader(bytes.NewReader([]byte("Sxyz")))
	if b, err := f.NextByte(); err != nil || string(b) != "S" || f.Buffered() != 3 {
		t.Errorf("'S' then 3 bytes: %q %v, Buffered %d", b, err, f.Buffered())
	}
	// The Backend dispatcher never takes an answer for a NoticeResponse
	// whole: 'N' alone is a truncated message, which is why NextByte exists.
	if _, err := new(codec.Backend).Decode([]byte("N"), codec.Params{}); !errors.Is(err, codec.ErrTruncated) {
		t.Errorf("Backend.Decode(\"N\"): %v", err)
	}
}
