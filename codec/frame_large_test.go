package codec_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/pgspec/pgspec/codec"
)

// TestFrameReaderLargeMessages: messages from a few bytes to 300 KiB,
// mixed, arrive whole and in order through readers that hand out one byte,
// half of what is asked, or everything; each stays intact until the next
// call.
func TestFrameReaderLargeMessages(t *testing.T) {
	var stream []byte
	var want [][]byte
	for i, n := range []int{1, 8 << 10, 100, 8<<10 - 4, 8<<10 - 5, 300 << 10, 3, 64 << 10, 9 << 10, 0, 128 << 10} {
		m := msg('d', bytes.Repeat([]byte{byte('a' + i)}, n))
		stream = append(stream, m...)
		want = append(want, m)
	}
	for name, src := range map[string]func() io.Reader{
		"whole": func() io.Reader { return bytes.NewReader(stream) },
		"half":  func() io.Reader { return iotest.HalfReader(bytes.NewReader(stream)) },
		"bytes": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(stream)) },
	} {
		f := codec.NewFrameReader(src())
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
	if got, err := f.Next(); err != io.ErrUnexpectedEOF || got != nil {
		t.Errorf("got %d bytes, %v", len(got), err)
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
	var stream []byte
	var want [][]byte
	for i, n := range []int{10, 40 << 10, 100, 200 << 10, 5} {
		m := msg('d', bytes.Repeat([]byte{byte('a' + i)}, n))
		stream = append(stream, m...)
		want = append(want, m)
	}
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
