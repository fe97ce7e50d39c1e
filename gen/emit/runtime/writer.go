//go:build ignore

package codec

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"unsafe"
)

// writer appends a message to buf; like reader, its first error sticks and
// result reports it once. It is two words passed and returned by value
// (w = w.u8(…)), so that once its methods are inlined Encode keeps the
// buffer in registers, as a hand-written append would; a pointer receiver
// would pin it in memory and cost a load and a store per field written.
type writer struct {
	buf []byte
	err *EncodeError
}

func (w writer) fail(field string, cause error) writer {
	if w.err == nil {
		w.err = &EncodeError{Field: field, Err: cause}
	}
	return w
}

func (w writer) u8(v uint8) writer   { w.buf = append(w.buf, v); return w }
func (w writer) u16(v uint16) writer { w.buf = binary.BigEndian.AppendUint16(w.buf, v); return w }
func (w writer) u32(v uint32) writer { w.buf = binary.BigEndian.AppendUint32(w.buf, v); return w }
func (w writer) u64(v uint64) writer { w.buf = binary.BigEndian.AppendUint64(w.buf, v); return w }

// putHeader appends a message's tag and its Int32 length n to dst, which
// has room for them (Encode's fast path checked): a byte and a 4-byte
// store, where an append of five bytes stores each byte and checks the
// room again.
func putHeader(dst []byte, tag byte, n int) []byte {
	l := len(dst)
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(dst)), l)
	*(*byte)(p) = tag
	binary.BigEndian.PutUint32((*[4]byte)(unsafe.Add(p, 1))[:], uint32(n))
	return dst[:l+5]
}

// hasRoom reports whether dst has room for n more bytes; compared unsigned,
// as the compiler checks a slice expression, so that dst[:len(dst)+n] after
// it is not checked again.
func hasRoom(dst []byte, n int) bool { return uint(len(dst)+n) <= uint(cap(dst)) }

// strAt is where a string appended to b starts, the first byte of the
// room Encode's fast path checked: the p of putStr.
func strAt(b []byte) *byte { return (*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), len(b))) }

// begin appends a placeholder for the Int32 self-inclusive length and
// returns where it starts; finish back-patches it.
func (w writer) begin() (writer, int) {
	start := len(w.buf)
	w.buf = append(w.buf, 0, 0, 0, 0)
	return w, start
}

// header appends a message's tag and the length placeholder in one append;
// finish back-patches the length.
func (w writer) header(tag byte) (writer, int) {
	w.buf = append(w.buf, tag, 0, 0, 0, 0)
	return w, len(w.buf) - 4
}

func (w writer) finish(start int) writer {
	n := len(w.buf) - start
	if n > math.MaxInt32 {
		return w.fail("length", ErrTooLarge)
	}
	binary.BigEndian.PutUint32(w.buf[start:], uint32(n))
	return w
}

// extend grows the buffer by n bytes, for a run of fixed-width values the
// caller stores into the returned room: one capacity check for the run.
func (w writer) extend(n int) (writer, []byte) {
	l := len(w.buf)
	w.buf = slices.Grow(w.buf, n)[:l+n]
	return w, w.buf[l : l+n]
}

// str appends a zero-terminated string; a zero byte inside would end it
// early on the wire and shift every later field, so it is an error.
func (w writer) str(field, s string) writer {
	w.buf, w.err = appendStr(w.buf, w.err, field, s)
	return w
}

// appendStr is str's work, a function of the buffer (not of the writer) so
// that str stays small enough to inline. Strings of up to 32 bytes (names,
// command tags, error fields: most strings sent) that fit the buffer's room
// are copied with at most four overlapping loads and stores, which also
// find a zero byte, and no call: cheaper than the calls to memmove and
// IndexByte that the others take (appendLongStr). A word v holds a zero
// byte when (v - 0x01…01) &^ v & 0x80…80 is not zero. The cases test the
// lengths most strings have (8 to 32) first. The loads and stores go
// through pointers into the room the first check proved, so none is
// bounds-checked, and both calls are the last thing done (the error is
// made in zeroStr), so that nothing is spilled around them: about 15
// instructions less per string than indexed windows.
func appendStr(buf []byte, err *EncodeError, field, s string) ([]byte, *EncodeError) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	l, n := len(buf), len(s)
	if n > 32 || uint(l+n) >= uint(cap(buf)) {
		return appendLongStr(buf, err, field, s)
	}
	dst, src := unsafe.Add(unsafe.Pointer(unsafe.SliceData(buf)), l), unsafe.Pointer(unsafe.StringData(s))
	w8 := func(p unsafe.Pointer, i int) []byte { return (*[8]byte)(unsafe.Add(p, i))[:] }
	w4 := func(p unsafe.Pointer, i int) []byte { return (*[4]byte)(unsafe.Add(p, i))[:] }
	le := binary.LittleEndian
	*(*byte)(unsafe.Add(dst, n)) = 0
	var seen uint64
	switch {
	case n >= 8:
		if n > 16 {
			x, y := le.Uint64(w8(src, 8)), le.Uint64(w8(src, n-16))
			le.PutUint64(w8(dst, 8), x)
			le.PutUint64(w8(dst, n-16), y)
			seen = (x-ones)&^x | (y-ones)&^y
		}
		x, y := le.Uint64(w8(src, 0)), le.Uint64(w8(src, n-8))
		le.PutUint64(w8(dst, 0), x)
		le.PutUint64(w8(dst, n-8), y)
		seen |= (x-ones)&^x | (y-ones)&^y
	case n >= 4:
		x, y := le.Uint32(w4(src, 0)), le.Uint32(w4(src, n-4))
		le.PutUint32(w4(dst, 0), x)
		le.PutUint32(w4(dst, n-4), y)
		seen = uint64((x-ones&0xffffffff)&^x | (y-ones&0xffffffff)&^y)
	case n > 0: // the first, middle and last byte cover 1 to 3
		a, b, c := *(*byte)(src), *(*byte)(unsafe.Add(src, n/2)), *(*byte)(unsafe.Add(src, n-1))
		*(*byte)(dst), *(*byte)(unsafe.Add(dst, n/2)), *(*byte)(unsafe.Add(dst, n-1)) = a, b, c
		if a == 0 || b == 0 || c == 0 {
			seen = highs
		}
	}
	if seen&highs != 0 {
		return zeroStr(buf[:l+n+1], err, field)
	}
	return buf[:l+n+1], err
}

// zeroStr is appendStr's failure. It is never inlined: inlined, its
// allocation would be a call inside appendStr, around which every
// argument is kept on the stack, on every call.
//
//go:noinline
func zeroStr(buf []byte, err *EncodeError, field string) ([]byte, *EncodeError) {
	if err == nil {
		err = &EncodeError{Field: field, Err: ErrZeroByte}
	}
	return buf, err
}

func appendLongStr(buf []byte, err *EncodeError, field, s string) ([]byte, *EncodeError) {
	if strings.IndexByte(s, 0) >= 0 && err == nil {
		err = &EncodeError{Field: field, Err: ErrZeroByte}
	}
	return append(append(buf, s...), 0), err
}

// raw appends bytes whose length the message's length field or the layout
// implies, within the lengths the layout allows; a value too long for them
// is refused naming what a later protocol allows (later), if anything.
func (w writer) raw(field string, b []byte, minLen, maxLen int, later string) writer {
	if len(b) < minLen || len(b) > maxLen {
		w = w.badLength(field, len(b), minLen, maxLen, later)
	}
	w.buf = append(w.buf, b...)
	return w
}

// badLength is raw's failure, kept out of it so that raw inlines.
func (w writer) badLength(field string, n, minLen, maxLen int, later string) writer {
	if n < minLen {
		later = "" // no later protocol allows less
	}
	return w.fail(field, &lengthError{n, minLen, maxLen, later})
}

// bytes32 appends an Int32 length and b; nil is -1 when the manual says -1
// means NULL.
func (w writer) bytes32(field string, b []byte, nullable bool) writer {
	switch {
	case b == nil && nullable:
		w.buf = append(w.buf, 0xff, 0xff, 0xff, 0xff)
		return w
	case len(b) > math.MaxInt32:
		w = w.fail(field, ErrTooLarge)
	}
	w.buf = append(binary.BigEndian.AppendUint32(w.buf, uint32(len(b))), b...)
	return w
}

// bytes32s appends each value like bytes32, in one loop: DataRow's columns,
// Bind's parameters. Values of up to 16 bytes (most columns) that fit the
// buffer's room are copied as appendStr copies short strings, with
// overlapping loads and stores rather than a call to memmove: Go keeps no
// register across a call, so a call per value would store and reload every
// variable of the loop each time.
func (w writer) bytes32s(field string, vals [][]byte, nullable bool) writer {
	le := binary.LittleEndian
	buf := w.buf
	for _, v := range vals {
		n := len(v)
		switch l := len(buf); {
		case v == nil && nullable:
			buf = append(buf, 0xff, 0xff, 0xff, 0xff)
		case n > 16 || cap(buf)-l < 4+n:
			if n > math.MaxInt32 {
				w = w.fail(field, ErrTooLarge)
			}
			buf = binary.BigEndian.AppendUint32(buf, uint32(n))
			buf = append(buf, v...)
		default:
			buf = buf[:l+4+n]
			binary.BigEndian.PutUint32(buf[l:], uint32(n))
			dst := buf[l+4:]
			switch {
			case n >= 8:
				x, y := le.Uint64(v), le.Uint64(v[n-8:])
				le.PutUint64(dst[n-8:], y)
				le.PutUint64(dst, x)
			case n >= 4:
				x, y := le.Uint32(v), le.Uint32(v[n-4:])
				le.PutUint32(dst[n-4:], y)
				le.PutUint32(dst, x)
			case n > 0:
				dst[0], dst[n/2], dst[n-1] = v[0], v[n/2], v[n-1]
			}
		}
	}
	w.buf = buf
	return w
}

// count16 and count32 append the count of an array or group: 16-bit counts
// are unsigned.
func (w writer) count16(field string, n int) writer {
	if n > math.MaxUint16 {
		w = w.fail(field, ErrTooLarge)
	}
	return w.u16(uint16(n))
}

func (w writer) count32(field string, n int) writer {
	if n > math.MaxInt32 {
		w = w.fail(field, ErrTooLarge)
	}
	return w.u32(uint32(n))
}

// choice appends v, which must be one of tags (or 0, meaning absent, when
// optional).
func (w writer) choice(field string, v byte, tags string, optional bool) writer {
	if v == 0 && optional {
		return w
	}
	if strings.IndexByte(tags, v) < 0 || v == 0 {
		return w.fail(field, unknownTag(v, tags))
	}
	return w.u8(v)
}

// absent fails for a field that is set where the layout leaves it off the
// wire; where is what would put it there (Params, another field, a major).
func (w writer) absent(field, where string) writer {
	return w.fail(field, &absentError{where})
}

// nonzero fails when the first value of an element of a zero-terminated list
// is empty: its first byte would read as the list's terminator.
func (w writer) nonzero(field string, empty bool) writer {
	if empty {
		return w.fail(field, ErrZeroByte)
	}
	return w
}

// result returns the message appended to dst, or dst unchanged (its first
// base bytes) and the first error, naming msg.
func (w writer) result(msg string, base int) ([]byte, error) {
	if w.err != nil {
		w.err.Message = msg
		return w.buf[:base], w.err
	}
	return w.buf, nil
}

// bytes appends b as it is.
func (w writer) bytes(b []byte) writer { w.buf = append(w.buf, b...); return w }
