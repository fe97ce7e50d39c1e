//go:build ignore

package codec

import (
	"encoding/binary"
	"io"
)

// DefaultMaxSize is the largest message a FrameReader accepts when MaxSize is
// 0: PostgreSQL's own limit for one allocation (MaxAllocSize, 1 GiB - 1).
const DefaultMaxSize = 1<<30 - 1

// minRead is how much FrameReader asks its source for at least, so that many
// small messages cost one read.
const minRead = 8 << 10

// FrameReader reads whole messages from a stream: tagged messages (tag byte,
// Int32 length, body) and the untagged startup-phase ones (StartupMessage,
// SSLRequest, GSSENCRequest, CancelRequest: Int32 length, body). The length
// is checked against MaxSize before any of the body is read, and the buffer
// grows only as bytes arrive, so a hostile length costs nothing.
type FrameReader struct {
	// MaxSize bounds a message's total size in bytes (tag included); 0 means DefaultMaxSize.
	MaxSize int

	src  io.Reader
	buf  []byte
	r, w int // buf[r:w] is read from src and not yet returned
}

// NewFrameReader returns a FrameReader reading from src.
func NewFrameReader(src io.Reader) *FrameReader {
	return &FrameReader{src: src}
}

// Next reads one tagged message and returns all of its bytes, ready for a
// Backend or Frontend decoder. The slice is valid until the next call. At a
// clean end of stream it returns io.EOF; in the middle of a message
// io.ErrUnexpectedEOF.
func (f *FrameReader) Next() ([]byte, error) {
	// Most messages are already buffered whole: return them without the
	// calls of the general path below, which makes the same checks.
	if b := f.buf[f.r:f.w]; len(b) >= 5 {
		n := int(int32(binary.BigEndian.Uint32(b[1:])))
		if n >= 4 && n < len(b) && n < f.maxSize() {
			f.r += 1 + n
			return b[: 1+n : 1+n], nil
		}
	}
	if err := f.fill(5); err != nil {
		return nil, err
	}
	tag := f.buf[f.r]
	n := int(int32(binary.BigEndian.Uint32(f.buf[f.r+1:])))
	return f.frame(tag, 1, n, 4)
}

// NextUntagged reads one startup-phase message (length first), ready for a
// Startup decoder.
func (f *FrameReader) NextUntagged() ([]byte, error) {
	if err := f.fill(4); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(f.buf[f.r:])))
	return f.frame(0, 0, n, 8)
}

// frame checks the length n read after a header of hdr bytes and returns the
// whole message once it has arrived.
func (f *FrameReader) frame(tag byte, hdr, n, minLen int) ([]byte, error) {
	max := f.maxSize()
	switch {
	case n < minLen:
		return nil, &FrameError{Tag: tag, Length: n, Max: max, Err: ErrBadLength}
	case n > max-hdr:
		return nil, &FrameError{Tag: tag, Length: n, Max: max, Err: ErrTooLong}
	}
	total := hdr + n
	if err := f.fill(total); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	msg := f.buf[f.r : f.r+total : f.r+total]
	f.r += total
	return msg, nil
}

func (f *FrameReader) maxSize() int {
	if f.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return f.MaxSize
}

// fill reads until at least n unread bytes are buffered. Earlier messages
// are moved out of the way (they are no longer valid), and the buffer at
// most doubles per read, so its size stays proportional to what arrived.
func (f *FrameReader) fill(n int) error {
	if f.w-f.r >= n {
		return nil
	}
	copy(f.buf, f.buf[f.r:f.w])
	f.w -= f.r
	f.r = 0
	for f.w < n {
		if f.w == len(f.buf) {
			size := max(2*len(f.buf), minRead)
			size = min(size, max(n, minRead))
			nb := make([]byte, size)
			copy(nb, f.buf[:f.w])
			f.buf = nb
		}
		k, err := f.src.Read(f.buf[f.w:])
		f.w += k
		if err != nil && f.w < n {
			if err == io.EOF && f.w > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}
