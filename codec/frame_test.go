package codec_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/pgspec/pgspec/codec"
)

func TestFrameReaderSplitsMessages(t *testing.T) {
	startup := cat(be32(4+4+1), be32(196608), byte(0))
	query := cat('Q', be32(4+9), cstr("select 1"))
	big := cat('d', be32(4+100000), bytes.Repeat([]byte{7}, 100000))
	sync := cat('S', be32(4))
	stream := cat(startup, query, big, sync)
	for name, src := range map[string]io.Reader{
		"whole":    bytes.NewReader(stream),
		"one byte": iotest.OneByteReader(bytes.NewReader(stream)),
		"half":     iotest.HalfReader(bytes.NewReader(stream)),
	} {
		f := codec.NewFrameReader(src)
		got, err := f.NextUntagged()
		if err != nil || !bytes.Equal(got, startup) {
			t.Fatalf("%s: startup: % x %v", name, got, err)
		}
		for _, want := range [][]byte{query, big, sync} {
			got, err := f.Next()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: got %d bytes, %v; want %d", name, len(got), err, len(want))
			}
		}
		if _, err := f.Next(); err != io.EOF {
			t.Errorf("%s: at the end: %v", name, err)
		}
	}
}

func TestFrameReaderBadInput(t *testing.T) {
	for _, c := range []struct {
		name     string
		src      []byte
		untagged bool
		want     error
	}{
		{"length below 4", cat('Q', be32(3)), false, codec.ErrBadLength},
		{"negative length", cat('Q', neg1), false, codec.ErrBadLength},
		{"startup length below 8", be32(7), true, codec.ErrBadLength},
		{"cut in the header", cat('Q', byte(0)), false, io.ErrUnexpectedEOF},
		{"cut in the body", cat('Q', be32(10), "ab"), false, io.ErrUnexpectedEOF},
		{"empty", nil, false, io.EOF},
	} {
		f := codec.NewFrameReader(bytes.NewReader(c.src))
		var err error
		if c.untagged {
			_, err = f.NextUntagged()
		} else {
			_, err = f.Next()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}
