package codec_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// conversationInput packs turns into a fuzz input: per turn a direction
// byte (odd: the backend) and a big-endian Uint16 length, then the bytes.
func conversationInput(turns []turn) []byte {
	var out []byte
	for _, t := range turns {
		d := byte(0)
		if t.backend {
			d = 1
		}
		out = append(out, d)
		out = binary.BigEndian.AppendUint16(out, uint16(len(t.wire)))
		out = append(out, t.wire...)
	}
	return out
}

// FuzzConversation feeds a conversation of fuzzed turns (seeded with the
// session of flow_test.go and its mutations) to a Conversation: it never
// panics, fails only with a typed error, and a *FlowError always comes with
// the message decoded (or a one-byte answer), except for a 'p' the flow
// has no place for, which nothing decodes.
func FuzzConversation(f *testing.F) {
	base := session()
	f.Add(conversationInput(base))
	f.Add(conversationInput(swap(base, 6, 7)))
	f.Add(conversationInput(base[13:]))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := codec.NewConversation(codec.Params{})
		for len(in) >= 3 {
			backend := in[0]&1 == 1
			n := int(binary.BigEndian.Uint16(in[1:]))
			in = in[3:]
			n = min(n, len(in))
			frame := in[:n]
			in = in[n:]
			var s *codec.Step
			var err error
			if backend {
				s, err = c.Backend.Next(frame)
			} else {
				s, err = c.Frontend.Next(frame)
			}
			var fe *codec.FlowError
			var de *codec.DecodeError
			var ve *codec.VersionError
			switch {
			case err == nil:
				if s.Msg == nil {
					t.Fatalf("% x: no message and no error", frame)
				}
			case errors.As(err, &fe):
				if s.Msg == nil && !(len(frame) > 0 && frame[0] == 'p') {
					t.Fatalf("% x: %v without the message", frame, err)
				}
			case errors.As(err, &de), errors.As(err, &ve):
			default:
				t.Fatalf("% x: untyped error %T: %v", frame, err, err)
			}
		}
	})
}
