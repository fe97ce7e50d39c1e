package codec_test

import (
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestNoAllocations: decoding into a value that already decoded the message
// once, and encoding into a buffer with room, allocate nothing, for every
// vector.
func TestNoAllocations(t *testing.T) {
	for _, v := range vectors {
		m := reflectNew(v.msg).(codec.Message)
		if err := m.Decode(v.wire, v.p); err != nil {
			t.Fatal(v.name, err)
		}
		if n := testing.AllocsPerRun(50, func() { _ = m.Decode(v.wire, v.p) }); n != 0 {
			t.Errorf("%s: decode allocates %v times", v.name, n)
		}
		buf := make([]byte, 0, 2*len(v.wire))
		if n := testing.AllocsPerRun(50, func() { _, _ = v.msg.Encode(buf[:0], v.p) }); n != 0 {
			t.Errorf("%s: encode allocates %v times", v.name, n)
		}
	}
}
