//go:build ignore

package codec

import (
	"encoding/binary"
	"io"
	"math/bits"
	"sync"
)

// DefaultMaxSize is the largest message a FrameReader accepts when MaxSize is
// 0: PostgreSQL's own limit for one allocation (MaxAllocSize, 1 GiB - 1).
const DefaultMaxSize = 1<<30 - 1

// minRead is the size of a FrameReader's own buffer: how much it asks its
// source for at least, so that many small messages cost one read.
const minRead = 8 << 10

// maxEmptyReads is how many reads in a row may return no bytes and no
// error before Next gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// FrameReader reads whole messages from a stream: tagged messages (tag byte,
// Int32 length, body), such as the CopyData that carry replication.
// pgspec:if frontend-backend
// It also reads the untagged startup-phase ones (StartupMessage,
// SSLRequest, GSSENCRequest, CancelRequest: Int32 length, body) and the
// one-byte answers to SSLRequest and GSSENCRequest.
// pgspec:end
//
// The length is checked against MaxSize before any of the body is read, and
// memory grows only as bytes arrive, so a hostile length costs nothing.
// Messages that fit in its 8 KiB buffer are returned from it; a larger one
// is read into a buffer from a pool shared by all FrameReaders, which goes
// back to the pool at the next call, so that a stream of large messages
// (replication, COPY) allocates nothing in steady state and one huge
// message is not kept for the connection's lifetime. The 8 KiB buffer is
// pooled too (smallPool): many short connections allocate none.
type FrameReader struct {
	// MaxSize bounds a message's total size in bytes (tag included); 0 means DefaultMaxSize.
	MaxSize int

	src   io.Reader
	buf   []byte // small[:], or nil before the first read and after the last
	small *[minRead]byte
	r, w  int // buf[r:w] is read from src and not yet returned
	// large holds the message that does not fit in buf: while it is read
	// (want > 0) have of its want bytes have arrived; once returned, it
	// waits for the next call to go back to the pool.
	large      *[]byte
	have, want int
	hdr        int // the large message's header before its length: 1 tagged, 0 untagged
}

// NewFrameReader returns a FrameReader reading from src.
func NewFrameReader(src io.Reader) *FrameReader {
	return &FrameReader{src: src}
}

// Next reads one tagged message and returns all of its bytes (tag and
// length included), the slice valid until the next call.
// pgspec:if frontend-backend
// It is ready for a Backend or Frontend decoder.
// pgspec:end
// CopyDataPayload takes the payload out of a CopyData. At a clean end of
// stream Next returns io.EOF; in the middle of a message a *FrameError
// wrapping io.ErrUnexpectedEOF, which names the message and how much of it
// arrived.
func (f *FrameReader) Next() ([]byte, error) {
	if f.large != nil {
		if msg, done, err := f.resumeLarge(); done {
			return msg, err
		}
	}
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
		return nil, f.cutShort(err, f.buf[f.r:f.w], 1, 0)
	}
	tag := f.buf[f.r]
	n := int(int32(binary.BigEndian.Uint32(f.buf[f.r+1:])))
	return f.frame(tag, 1, n, 4)
}

// pgspec:if frontend-backend
// NextUntagged reads one startup-phase message (length first), ready for a
// Startup decoder.
func (f *FrameReader) NextUntagged() ([]byte, error) {
	if f.large != nil {
		if msg, done, err := f.resumeLarge(); done {
			return msg, err
		}
	}
	if err := f.fill(4); err != nil {
		return nil, f.cutShort(err, f.buf[f.r:f.w], 0, 0)
	}
	n := int(int32(binary.BigEndian.Uint32(f.buf[f.r:])))
	return f.frame(0, 0, n, 8)
}

// NextByte reads the server's one-byte answer to SSLRequest or
// GSSENCRequest, ready for SSLResponse or GSSEncResponse. The slice is
// valid until the next call. At a clean end of stream it returns io.EOF.
func (f *FrameReader) NextByte() ([]byte, error) {
	if f.large != nil {
		if msg, done, err := f.resumeLarge(); done {
			return msg, err
		}
	}
	if err := f.fill(1); err != nil {
		return nil, err
	}
	f.r++
	return f.buf[f.r-1 : f.r : f.r], nil
}

// Buffered is how many bytes were read from the source and not yet
// returned. A client that starts TLS or GSSAPI after an 'S' or 'G' answer
// must find 0 here: bytes that arrived before its handshake did not come
// through the encrypted channel (CVE-2021-23222).
func (f *FrameReader) Buffered() int { return f.w - f.r }

// Drain appends the bytes Buffered counts to dst and drops them: a caller
// that stops framing the stream (it relays the rest as it comes, or hands
// it to a TLS handshake) loses none.
func (f *FrameReader) Drain(dst []byte) []byte {
	dst = append(dst, f.buf[f.r:f.w]...)
	f.r = f.w
	return dst
}

// pgspec:end

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
	// buf fills first: a large buffer is only taken for a message whose
	// first 8 KiB have arrived. The header is buffered, so fill reports
	// a stream that ends here as io.ErrUnexpectedEOF.
	if err := f.fill(min(total, minRead)); err != nil {
		return nil, f.cutShort(err, f.buf[f.r:f.w], hdr, total)
	}
	if total > minRead {
		f.hdr = hdr
		return f.startLarge(total)
	}
	msg := f.buf[f.r : f.r+total : f.r+total]
	f.r += total
	return msg, nil
}

// cutShort is err, unless it is the io.ErrUnexpectedEOF of a stream that
// ended inside a message: then a *FrameError naming the message (its tag,
// and its length once the header is whole) and how many of the want bytes
// it needs arrived (head, the message's first bytes).
func (f *FrameReader) cutShort(err error, head []byte, hdr, want int) error {
	if err != io.ErrUnexpectedEOF {
		return err
	}
	e := &FrameError{Max: f.maxSize(), Got: len(head), Want: want, Err: err}
	if hdr == 1 && len(head) > 0 {
		e.Tag = head[0]
	}
	if len(head) >= hdr+4 {
		e.Length = int(int32(binary.BigEndian.Uint32(head[hdr:])))
	} else {
		e.Want = hdr + 4
	}
	return e
}

func (f *FrameReader) maxSize() int {
	if f.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return f.MaxSize
}

// fill reads until at least n <= minRead unread bytes are buffered. Earlier
// messages are moved out of the way (they are no longer valid).
func (f *FrameReader) fill(n int) error {
	if f.w-f.r >= n {
		return nil
	}
	if f.buf == nil {
		f.small = smallPool.Get().(*[minRead]byte)
		f.buf = f.small[:]
	}
	copy(f.buf, f.buf[f.r:f.w])
	f.w -= f.r
	f.r = 0
	for f.w < n {
		k, err := f.read(f.buf[f.w:])
		f.w += k
		if err != nil && f.w < n {
			if f.w == 0 { // nothing to resume: the buffer can serve another reader
				smallPool.Put(f.small)
				f.small, f.buf = nil, nil
			}
			if err == io.EOF && f.w > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// smallPool holds the FrameReaders' own buffers: a reader takes one at its
// first read and gives it back when a read fails with nothing buffered (at
// the end of its stream, mostly), so that a program that opens many short
// connections does not allocate and clear 8 KiB for each.
var smallPool = sync.Pool{New: func() any { return new([minRead]byte) }}

// startLarge starts reading a message of total bytes, more than buf holds,
// into a pooled buffer. A buffer of the whole size is taken when the pool
// has one (memory already spent: a hostile length gains nothing); else the
// buffer at most doubles per read, so that new memory follows what arrived
// rather than what the length claims.
func (f *FrameReader) startLarge(total int) ([]byte, error) {
	have := f.w - f.r
	if p, ok := largePools[sizeClass(total)].Get().(*[]byte); ok {
		f.large = p
	} else {
		f.large = getLarge(min(total, 2*max(have, minRead)))
	}
	copy(*f.large, f.buf[f.r:f.w])
	f.r, f.w = 0, 0
	f.have, f.want = have, total
	return f.readLarge()
}

// readLarge reads the rest of the large message, no further than its end:
// what follows stays in the source for buf. After an error (a deadline, a
// source that has nothing yet) the next call goes on where this one
// stopped, as fill does for small messages.
func (f *FrameReader) readLarge() ([]byte, error) {
	for f.have < f.want {
		b := *f.large
		if f.have == len(b) {
			q := getLarge(min(f.want, 2*len(b)))
			copy(*q, b)
			putLarge(f.large)
			f.large, b = q, *q
		}
		k, err := f.read(b[f.have:min(f.want, len(b))])
		f.have += k
		if err != nil && f.have < f.want {
			if err == io.EOF {
				err = f.cutShort(io.ErrUnexpectedEOF, (*f.large)[:f.have], f.hdr, f.want)
			}
			return nil, err
		}
	}
	total := f.want
	f.want = 0
	return (*f.large)[:total:total], nil
}

// read reads from src, retrying reads that return nothing at all a few
// times before giving up with io.ErrNoProgress.
func (f *FrameReader) read(p []byte) (int, error) {
	for range maxEmptyReads {
		if k, err := f.src.Read(p); k != 0 || err != nil {
			return k, err
		}
	}
	return 0, io.ErrNoProgress
}

// resumeLarge goes on reading the large message a failed call left half
// read (done); else it hands the last large message's buffer back.
func (f *FrameReader) resumeLarge() (msg []byte, done bool, err error) {
	if f.want != 0 {
		msg, err = f.readLarge()
		return msg, true, err
	}
	f.release()
	return nil, false, nil
}

// release hands the last large message's buffer back to the pool.
func (f *FrameReader) release() {
	putLarge(f.large)
	f.large = nil
}

// largePools holds buffers for messages above minRead, one pool per power
// of two from 2*minRead up.
var largePools [bits.UintSize]sync.Pool

// getLarge returns a buffer of at least n bytes (n > minRead), its length
// the power of two at or above n.
func getLarge(n int) *[]byte {
	class := sizeClass(n)
	if p, ok := largePools[class].Get().(*[]byte); ok {
		return p
	}
	b := make([]byte, 1<<class)
	return &b
}

// putLarge pools a buffer for the next large message, unless it is larger
// than maxPooled: a rare huge message should cost its memory only while it
// is in use, not for as long as the pool keeps it.
func putLarge(p *[]byte) {
	if len(*p) <= maxPooled {
		largePools[sizeClass(len(*p))].Put(p)
	}
}

// maxPooled is the largest buffer a FrameReader hands back to the pool.
const maxPooled = 16 << 20

// sizeClass is the power of two at or above n, as an exponent.
func sizeClass(n int) int { return bits.Len(uint(n - 1)) }
