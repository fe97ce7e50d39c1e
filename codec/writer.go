package codec

import (
	"encoding/binary"
	"math"
	"strings"
)

// writer appends a message to buf; like reader, its first error sticks and
// result reports it once.
type writer struct {
	buf  []byte
	base int // len(buf) before the message: result truncates back to it on error
	msg  string
	err  error
}

func (w *writer) fail(field string, cause error) {
	if w.err == nil {
		w.err = &EncodeError{Message: w.msg, Field: field, Err: cause}
	}
}

func (w *writer) u8(v uint8)   { w.buf = append(w.buf, v) }
func (w *writer) u16(v uint16) { w.buf = binary.BigEndian.AppendUint16(w.buf, v) }
func (w *writer) u32(v uint32) { w.buf = binary.BigEndian.AppendUint32(w.buf, v) }
func (w *writer) u64(v uint64) { w.buf = binary.BigEndian.AppendUint64(w.buf, v) }

// uint appends the low width bytes of v, big-endian.
func (w *writer) uint(width int, v uint64) {
	switch width {
	case 1:
		w.u8(uint8(v))
	case 2:
		w.u16(uint16(v))
	case 4:
		w.u32(uint32(v))
	default:
		w.u64(v)
	}
}

// begin appends a placeholder for the Int32 self-inclusive length and
// returns where it starts; finish back-patches it.
func (w *writer) begin() int {
	start := len(w.buf)
	w.buf = append(w.buf, 0, 0, 0, 0)
	return start
}

func (w *writer) finish(start int) {
	n := len(w.buf) - start
	if n > math.MaxInt32 {
		w.fail("length", ErrTooLarge)
		return
	}
	binary.BigEndian.PutUint32(w.buf[start:], uint32(n))
}

// str appends a zero-terminated string; a zero byte inside would end it early.
func (w *writer) str(field, s string) {
	if strings.IndexByte(s, 0) >= 0 {
		w.fail(field, ErrZeroByte)
	}
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, 0)
}

// raw appends bytes whose length the message's length field or the layout
// implies, within the lengths the layout allows.
func (w *writer) raw(field string, b []byte, minLen, maxLen int) {
	if len(b) < minLen || len(b) > maxLen {
		w.fail(field, ErrBadLength)
	}
	w.buf = append(w.buf, b...)
}

// bytes32 appends an Int32 length and b; nil is -1 when the manual says -1
// means NULL.
func (w *writer) bytes32(field string, b []byte, nullable bool) {
	switch {
	case b == nil && nullable:
		w.u32(math.MaxUint32)
		return
	case len(b) > math.MaxInt32:
		w.fail(field, ErrTooLarge)
	}
	w.u32(uint32(len(b)))
	w.buf = append(w.buf, b...)
}

// bytes32s appends each value like bytes32, on a local buffer: the loop
// over DataRow's columns or Bind's parameters.
func (w *writer) bytes32s(field string, vals [][]byte, nullable bool) {
	buf := w.buf
	for _, v := range vals {
		switch {
		case v == nil && nullable:
			buf = append(buf, 0xff, 0xff, 0xff, 0xff)
			continue
		case len(v) > math.MaxInt32:
			w.fail(field, ErrTooLarge)
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
		buf = append(buf, v...)
	}
	w.buf = buf
}

// count appends the count of an array or group: 16-bit counts are unsigned.
func (w *writer) count(field string, width, n int) {
	if width == 2 {
		if n > math.MaxUint16 {
			w.fail(field, ErrTooLarge)
		}
		w.u16(uint16(n))
		return
	}
	if n > math.MaxInt32 {
		w.fail(field, ErrTooLarge)
	}
	w.u32(uint32(n))
}

// choice appends v, which must be one of tags (or 0, meaning absent, when
// optional); it reports whether something was written.
func (w *writer) choice(field string, v byte, tags string, optional bool) bool {
	if v == 0 && optional {
		return false
	}
	if strings.IndexByte(tags, v) < 0 || v == 0 {
		w.fail(field, ErrUnknownTag)
		return false
	}
	w.u8(v)
	return true
}

// nonzero fails when the first value of an element of a zero-terminated list
// is empty: its first byte would read as the list's terminator.
func (w *writer) nonzero(field string, empty bool) {
	if empty {
		w.fail(field, ErrZeroByte)
	}
}

// result returns the appended message, or dst unchanged and the first error.
func (w *writer) result() ([]byte, error) {
	if w.err != nil {
		return w.buf[:w.base], w.err
	}
	return w.buf, nil
}

// bytes appends b as it is.
func (w *writer) bytes(b []byte) { w.buf = append(w.buf, b...) }
