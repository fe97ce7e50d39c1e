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
	for name, src := range chunkings(stream) {
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

// chunkings are readers of stream that hand out everything asked for, one
// byte at a time, or half of what is asked.
func chunkings(stream []byte) map[string]io.Reader {
	return map[string]io.Reader{
		"whole":    bytes.NewReader(stream),
		"one byte": iotest.OneByteReader(bytes.NewReader(stream)),
		"half":     iotest.HalfReader(bytes.NewReader(stream)),
	}
}

// copyDataStream is a stream of 'd' messages with bodies of the given
// sizes, each filled with its own letter, and the messages one by one.
func copyDataStream(sizes ...int) (stream []byte, msgs [][]byte) {
	for i, n := range sizes {
		m := msg('d', bytes.Repeat([]byte{byte('a' + i)}, n))
		stream = append(stream, m...)
		msgs = append(msgs, m)
	}
	return stream, msgs
}

// TestFrameReaderLargeMessages: messages from a few bytes to 300 KiB,
// mixed, arrive whole and in order through readers that hand out one byte,
// half of what is asked, or everything; each stays intact until the next
// call.
func TestFrameReaderLargeMessages(t *testing.T) {
	stream, want := copyDataStream(1, 8<<10, 100, 8<<10-4, 8<<10-5, 300<<10, 3, 64<<10, 9<<10, 0, 128<<10)
	for name, src := range chunkings(stream) {
		f := codec.NewFrameReader(src)
		for i, w := range want {
			got, err := f.Next()
			if err != nil || !bytes.Equal(got, w) {
				t.Fatalf("%s: message %d (%d bytes): got %d bytes, %v", name, i, len(w), len(got), err)
			}
		}
		if _, err := f.Next(); err != io.EOF {
			t.Errorf("%s: at the end: %v", name, err)
		}
	}
}

// TestFrameReaderTruncatedLarge: a large message cut short is
// io.ErrUnexpectedEOF, and its buffer is not handed out.
func TestFrameReaderTruncatedLarge(t *testing.T) {
	m := msg('d', bytes.Repeat([]byte{'x'}, 100<<10))
	f := codec.NewFrameReader(bytes.NewReader(m[:len(m)-1]))
	if got, err := f.Next(); !errors.Is(err, io.ErrUnexpectedEOF) || got != nil {
		t.Errorf("got %d bytes, %v", len(got), err)
	}
}

// TestFrameReaderCutShortSaysWhere: a stream that ends inside a message is
// a *FrameError naming the message (its tag and length) and how many of
// its bytes arrived, however the bytes come: "unexpected EOF" alone leaves
// a consumer of a cut replication stream nothing to look for.
func TestFrameReaderCutShortSaysWhere(t *testing.T) {
	sync := cat('S', be32(4))
	big := msg('d', bytes.Repeat([]byte{'x'}, 100<<10))
	startup := cat(be32(9000), be32(196608), bytes.Repeat([]byte{'u'}, 9000-8))
	for _, c := range []struct {
		name     string
		src      []byte
		untagged bool
		want     string
	}{
		{"header", cat(sync, 'Q', byte(0)), false, "codec: frame 'Q': the stream ended after 2 of the header's 5 bytes: unexpected EOF"},
		{"body", cat(sync, 'Q', be32(10), "ab"), false, "codec: frame 'Q' length 10: the stream ended after 7 of its 11 bytes: unexpected EOF"},
		{"large body", cat(sync, big[:len(big)-1]), false, "codec: frame 'd' length 102404: the stream ended after 102404 of its 102405 bytes: unexpected EOF"},
		{"startup header", be32(9)[:3], true, "codec: frame: the stream ended after 3 of the header's 4 bytes: unexpected EOF"},
		{"startup body", startup[:8500], true, "codec: frame length 9000: the stream ended after 8500 of its 9000 bytes: unexpected EOF"},
	} {
		for name, src := range chunkings(c.src) {
			f := codec.NewFrameReader(src)
			var err error
			if c.untagged {
				_, err = f.NextUntagged()
			} else if _, err = f.Next(); err == nil {
				_, err = f.Next()
			}
			var fe *codec.FrameError
			if !errors.As(err, &fe) || !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != c.want {
				t.Errorf("%s, %s: %v\nwant %s", c.name, name, err, c.want)
			}
		}
	}
}

// emptyReader returns no bytes and no error, forever.
type emptyReader struct{ reads int }

func (e *emptyReader) Read([]byte) (int, error) { e.reads++; return 0, nil }

// TestFrameReaderNoProgress: a source that returns (0, nil) forever makes
// Next give up with io.ErrNoProgress instead of spinning, in the header,
// in a small body and in a large one.
func TestFrameReaderNoProgress(t *testing.T) {
	for name, head := range map[string][]byte{
		"header":     nil,
		"small body": cat('D', be32(100)),
		"large body": cat('d', be32(1<<20)),
	} {
		src := &emptyReader{}
		f := codec.NewFrameReader(io.MultiReader(bytes.NewReader(head), src))
		if _, err := f.Next(); !errors.Is(err, io.ErrNoProgress) {
			t.Errorf("%s: got %v, want io.ErrNoProgress", name, err)
		}
		if src.reads > 1000 {
			t.Errorf("%s: %d empty reads before giving up", name, src.reads)
		}
	}
}

// TestFrameReaderForgetsLargeMessages: after one 64 MiB message, reading
// small ones does not keep 64 MiB alive: the memory in use drops back once
// the large message's buffer is released and collected.
func TestFrameReaderForgetsLargeMessages(t *testing.T) {
	big := msg('d', make([]byte, 64<<20))
	small := msg('Z', byte('I'))
	f := codec.NewFrameReader(io.MultiReader(bytes.NewReader(big), bytes.NewReader(bytes.Repeat(small, 10))))
	if got, err := f.Next(); err != nil || len(got) != len(big) {
		t.Fatalf("large message: %d bytes, %v", len(got), err)
	}
	big = nil
	for range 10 {
		if got, err := f.Next(); err != nil || !bytes.Equal(got, small) {
			t.Fatalf("small message: % x, %v", got, err)
		}
	}
	if inUse := heapAfterGC(); inUse > 32<<20 {
		t.Errorf("%d MiB in use after the large message was read and passed", inUse>>20)
	}
	_ = f
}

// pausingReader serves data in chunks, returning errPause between them,
// as a source with a read deadline or a capture being reassembled does.
type pausingReader struct {
	data  []byte
	chunk int
	pause bool
}

var errPause = errors.New("nothing yet")

func (p *pausingReader) Read(b []byte) (int, error) {
	if p.pause = !p.pause; p.pause {
		return 0, errPause
	}
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), p.chunk)], p.data)
	p.data = p.data[n:]
	return n, nil
}

// TestFrameReaderResumesAfterErrors: a read error in the middle of a
// message, small or large, loses nothing: the next call goes on.
func TestFrameReaderResumesAfterErrors(t *testing.T) {
	stream, want := copyDataStream(10, 40<<10, 100, 200<<10, 5)
	f := codec.NewFrameReader(&pausingReader{data: stream, chunk: 3000})
	for i := 0; i < len(want); {
		got, err := f.Next()
		if err == errPause {
			continue
		}
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Fatalf("message %d: got %d bytes, %v; want %d", i, len(got), err, len(want[i]))
		}
		i++
	}
}
