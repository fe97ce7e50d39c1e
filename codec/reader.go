package codec

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// reader is the bounds-checked cursor generated decoders read through. Its
// first error sticks: after it every read returns a zero value, so decoders
// are straight-line code that checks the error once, in done.
type reader struct {
	src []byte
	pos int
	// end bounds reads: len(src), or the end the message's length field gives.
	end int
	msg string
	err error
}

// fail records the first error, at the current offset, and stops reading.
func (r *reader) fail(field string, cause error) {
	r.failAt(field, r.pos, cause)
}

func (r *reader) failAt(field string, off int, cause error) {
	if r.err == nil {
		r.err = &DecodeError{Message: r.msg, Field: field, Offset: off, Err: cause}
	}
	r.pos = r.end
}

// take returns the next n bytes as a sub-slice whose capacity ends with it.
func (r *reader) take(field string, n int) []byte {
	if r.end-r.pos < n {
		r.fail(field, ErrTruncated)
		return nil
	}
	b := r.src[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) u8(field string) uint8 {
	if r.pos >= r.end {
		r.fail(field, ErrTruncated)
		return 0
	}
	v := r.src[r.pos]
	r.pos++
	return v
}

func (r *reader) u16(field string) uint16 {
	if r.end-r.pos < 2 {
		r.fail(field, ErrTruncated)
		return 0
	}
	v := binary.BigEndian.Uint16(r.src[r.pos:])
	r.pos += 2
	return v
}

func (r *reader) u32(field string) uint32 {
	if r.end-r.pos < 4 {
		r.fail(field, ErrTruncated)
		return 0
	}
	v := binary.BigEndian.Uint32(r.src[r.pos:])
	r.pos += 4
	return v
}

func (r *reader) u64(field string) uint64 {
	if r.end-r.pos < 8 {
		r.fail(field, ErrTruncated)
		return 0
	}
	v := binary.BigEndian.Uint64(r.src[r.pos:])
	r.pos += 8
	return v
}

// uint reads a big-endian unsigned integer of width 1, 2, 4 or 8 bytes.
func (r *reader) uint(field string, width int) uint64 {
	switch width {
	case 1:
		return uint64(r.u8(field))
	case 2:
		return uint64(r.u16(field))
	case 4:
		return uint64(r.u32(field))
	}
	return r.u64(field)
}

// fixed reads a field whose value the manual fixes (a tag, a request code,
// an authentication subtype) and fails unless it holds want.
func (r *reader) fixed(field string, width int, want int64) {
	off := r.pos
	got := r.uint(field, width)
	mask := ^uint64(0) >> (64 - 8*width)
	if r.err == nil && got != uint64(want)&mask {
		r.failAt(field, off, ErrBadFixedValue)
	}
}

// tag reads the message's leading tag byte, which must be want.
func (r *reader) tag(want byte) {
	if r.pos < r.end && r.src[r.pos] == want {
		r.pos++
		return
	}
	r.fixed("tag", 1, int64(want))
}

// length reads the Int32 "length of message contents in bytes, including
// self" and bounds further reads by it: a length beyond the input is
// ErrTruncated, one short of it ErrTrailingBytes.
func (r *reader) length() {
	if r.end-r.pos >= 4 && int(int32(binary.BigEndian.Uint32(r.src[r.pos:]))) == r.end-r.pos {
		r.pos += 4
		return
	}
	r.badLength()
}

// badLength reports why the length does not match the input.
func (r *reader) badLength() {
	start := r.pos
	n := int(int32(r.u32("length")))
	switch {
	case r.err != nil:
	case n < 4:
		r.failAt("length", start, ErrBadLength)
	case n > r.end-start:
		r.failAt("length", start, ErrTruncated)
	case n < r.end-start:
		r.failAt("length", start+n, ErrTrailingBytes)
	}
}

// str reads a zero-terminated string; the result aliases src.
func (r *reader) str(field string) string {
	i := bytes.IndexByte(r.src[r.pos:r.end], 0)
	if i < 0 {
		r.fail(field, ErrUnterminated)
		return ""
	}
	s := unsafe.String(unsafe.SliceData(r.src[r.pos:]), i)
	r.pos += i + 1
	return s
}

// rest returns the bytes up to the end of the message.
func (r *reader) rest(field string, minLen, maxLen int) []byte {
	n := r.end - r.pos
	if n < minLen || n > maxLen {
		r.fail(field, ErrBadLength)
		return nil
	}
	return r.take(field, n)
}

// bytes32 reads an Int32 length and that many bytes; -1 gives nil when the
// manual says -1 means NULL, and is an error otherwise.
func (r *reader) bytes32(field string, nullable bool) []byte {
	if r.end-r.pos >= 4 {
		n := int(int32(binary.BigEndian.Uint32(r.src[r.pos:])))
		if n >= 0 && n <= r.end-r.pos-4 {
			start := r.pos + 4
			r.pos = start + n
			return r.src[start:r.pos:r.pos]
		}
	}
	return r.bytes32Slow(field, nullable)
}

// bytes32Slow handles NULL, negative lengths and short input.
func (r *reader) bytes32Slow(field string, nullable bool) []byte {
	off := r.pos
	n := int32(r.u32(field))
	switch {
	case n >= 0:
		return r.take(field, int(n))
	case n == -1 && nullable:
		return nil
	}
	r.failAt(field, off, ErrNegativeLength)
	return nil
}

// bytes32s reads n values like bytes32 into dst, reusing its array: the
// loop over DataRow's columns or Bind's parameters runs here, on locals,
// instead of one call per value. The first value that is not plain (NULL
// where not allowed, a bad length, short input) and those after it go
// through bytes32, so errors are the same.
func (r *reader) bytes32s(field string, dst [][]byte, n int, nullable bool) [][]byte {
	dst = grow(dst, n)[:n]
	src, pos, end := r.src, r.pos, r.end
	for i := range dst {
		if end-pos >= 4 {
			l := int(int32(binary.BigEndian.Uint32(src[pos:])))
			if start := pos + 4; uint(l) <= uint(end-start) {
				pos = start + l
				dst[i] = src[start:pos:pos]
				continue
			} else if l == -1 && nullable {
				pos = start
				dst[i] = nil
				continue
			}
		}
		r.pos = pos
		for ; i < n; i++ {
			dst[i] = r.bytes32(field, nullable)
		}
		return dst
	}
	r.pos = pos
	return dst
}

// count reads the count of a following array or group and checks that that
// many elements of at least minElem bytes each fit in the remaining input,
// so no caller ever reserves room for elements that are not there. 16-bit
// counts are unsigned (PostgreSQL reads them with pq_getmsgint), 32-bit
// counts signed.
func (r *reader) count(field string, width, minElem int) int {
	off := r.pos
	var n int
	if width == 2 {
		n = int(r.u16(field))
	} else {
		n = int(int32(r.u32(field)))
	}
	switch {
	case r.err != nil:
		return 0
	case n < 0:
		r.failAt(field, off, ErrNegativeCount)
		return 0
	case n > (r.end-r.pos)/minElem:
		r.failAt(field, off, ErrCountTooLarge)
		return 0
	}
	return n
}

// choice reads a byte that must be one of tags. When optional and the next
// byte is not one of them (or the message ends), nothing is read and 0 returned.
func (r *reader) choice(field string, tags string, optional bool) byte {
	if r.pos < r.end {
		b := r.src[r.pos]
		for i := 0; i < len(tags); i++ {
			if tags[i] == b {
				r.pos++
				return b
			}
		}
	}
	if !optional {
		if r.pos >= r.end {
			r.fail(field, ErrTruncated)
		} else {
			r.fail(field, ErrUnknownTag)
		}
	}
	return 0
}

// terminator reports whether a zero-terminated list ends here, consuming the
// zero byte; a list that runs out of input fails with ErrUnterminated.
func (r *reader) terminator(field string) bool {
	if r.pos >= r.end {
		r.fail(field, ErrUnterminated)
		return true
	}
	if r.src[r.pos] == 0 {
		r.pos++
		return true
	}
	return false
}

// done returns the first error, or ErrTrailingBytes when input is left.
func (r *reader) done() error {
	if r.err == nil && r.pos != r.end {
		r.fail("", ErrTrailingBytes)
	}
	return r.err
}

// grow returns s emptied, with room for n elements; n has been checked
// against the input by count.
func grow[S ~[]E, E any](s S, n int) S {
	if cap(s) < n {
		return make(S, 0, n)
	}
	return s[:0]
}

// anyLength is the upper bound of a Byten the manual does not bound.
const anyLength = int(^uint(0) >> 1)

// dispatchError reports a message a dispatcher cannot choose a type for.
func dispatchError(what, field string, off int, cause error) error {
	return &DecodeError{Message: what, Field: field, Offset: off, Err: cause}
}
