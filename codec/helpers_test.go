package codec_test

import (
	"encoding/binary"
	"reflect"
)

// Byte builders for hand-written vectors: each writes exactly what its name
// says, so a vector reads like the manual's table.
func be16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// cstr is a String: the bytes and a terminating zero.
func cstr(s string) []byte { return append([]byte(s), 0) }

// cat joins parts; a byte or rune part is one byte.
func cat(parts ...any) []byte {
	var out []byte
	for _, p := range parts {
		switch v := p.(type) {
		case []byte:
			out = append(out, v...)
		case byte:
			out = append(out, v)
		case rune:
			out = append(out, byte(v))
		case string:
			out = append(out, v...)
		default:
			panic("cat: " + reflect.TypeOf(p).String())
		}
	}
	return out
}

// neg1 is the Int32 -1 that marks a NULL value.
var neg1 = be32(0xFFFFFFFF)
