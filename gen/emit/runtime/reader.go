//go:build ignore

package codec

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// reader is the bounds-checked cursor generated decoders read through:
// rest is the input not read yet, which ends where the message ends. Its
// first error sticks: after it every read returns a zero value, so decoders
// are straight-line code that checks the error once, in done.
//
// Like writer it is two words passed and returned by value
// (m.X, r = r.u32("X")), so that Decode keeps it in registers.
type reader struct {
	rest []byte
	// err is the first error. Until done its Offset counts the bytes that
	// were left at the failure (done turns that into an offset from the
	// start).
	err *DecodeError
}

// failAt records the first error, left bytes before the end, and stops
// reading.
func (r reader) failAt(field string, left int, cause error) reader {
	if r.err == nil {
		r.err = &DecodeError{Field: field, Offset: left, Err: cause}
	}
	r.rest = nil
	return r
}

// fail records the first error at the current offset.
func (r reader) fail(field string, cause error) reader {
	return r.failAt(field, len(r.rest), cause)
}

// take returns the next n bytes as a sub-slice whose capacity ends with it.
func (r reader) take(field string, n int) ([]byte, reader) {
	if len(r.rest) < n {
		return nil, r.fail(field, ErrTruncated)
	}
	return r.rest[:n:n], reader{r.rest[n:], r.err}
}

// fill copies the next len(dst) bytes into dst (a [N]byte field).
func (r reader) fill(field string, dst []byte) reader {
	b, r := r.take(field, len(dst))
	copy(dst, b)
	return r
}

func (r reader) u8(field string) (uint8, reader) {
	if len(r.rest) < 1 {
		return 0, r.fail(field, ErrTruncated)
	}
	return r.rest[0], reader{r.rest[1:], r.err}
}

func (r reader) u16(field string) (uint16, reader) {
	if len(r.rest) < 2 {
		return 0, r.fail(field, ErrTruncated)
	}
	return binary.BigEndian.Uint16(r.rest), reader{r.rest[2:], r.err}
}

func (r reader) u32(field string) (uint32, reader) {
	if len(r.rest) < 4 {
		return 0, r.fail(field, ErrTruncated)
	}
	return binary.BigEndian.Uint32(r.rest), reader{r.rest[4:], r.err}
}

func (r reader) u64(field string) (uint64, reader) {
	if len(r.rest) < 8 {
		return 0, r.fail(field, ErrTruncated)
	}
	return binary.BigEndian.Uint64(r.rest), reader{r.rest[8:], r.err}
}

// signed turns an unsigned read into the signed integer of its width (two's
// complement, as PostgreSQL sends them): m.X, r = signed[int16](r.u16("X")).
func signed[S int8 | int16 | int32 | int64, U uint8 | uint16 | uint32 | uint64, R reader | fastReader](v U, r R) (S, R) {
	return S(v), r
}

// uint reads a big-endian unsigned integer of width 1, 2, 4 or 8 bytes.
func (r reader) uint(field string, width int) (uint64, reader) {
	switch width {
	case 1:
		v, r := r.u8(field)
		return uint64(v), r
	case 2:
		v, r := r.u16(field)
		return uint64(v), r
	case 4:
		v, r := r.u32(field)
		return uint64(v), r
	}
	return r.u64(field)
}

// fixed reads a field whose value the manual fixes (an authentication
// subtype, a request code, Byte1('N')) and fails unless it holds want.
func (r reader) fixed(field string, width int, want int64) reader {
	left := len(r.rest)
	got, r := r.uint(field, width)
	mask := ^uint64(0) >> (64 - 8*width)
	if r.err == nil && got != uint64(want)&mask {
		return r.failAt(field, left, &fixedError{got, uint64(want) & mask, width})
	}
	return r
}

// tag reads the message's leading tag byte, which must be want.
func (r reader) tag(want byte) reader {
	if len(r.rest) > 0 && r.rest[0] == want {
		r.rest = r.rest[1:]
		return r
	}
	cause := ErrTruncated
	if len(r.rest) > 0 {
		cause = &fixedError{uint64(r.rest[0]), uint64(want), 1}
	}
	return r.failAt("tag", len(r.rest), cause)
}

// framed reports whether the input starts with the tag byte want and an
// Int32 length that is what is left of the input after the tag, the check
// every message with a length makes; decoders then skip those 5 bytes, or
// read them with tag and length to say what is wrong.
func (r reader) framed(want byte) bool { return framed(r.rest, want) }

// framed reports whether src starts with the tag byte want and an Int32
// length that is the rest of src.
func framed(src []byte, want byte) bool {
	return len(src) >= 5 && src[0] == want && int(int32(binary.BigEndian.Uint32(src[1:5]))) == len(src)-1
}

// body is the body of the message src holds, after its tag and length,
// when src starts with the tag byte want and an Int32 length that is the
// rest of src; nil otherwise (an empty body is not nil).
func body(src []byte, want byte) fastReader {
	if framed(src, want) {
		return fastReader(src[5:])
	}
	return nil
}

// tagged is the body of a message with no length (a replication or
// pgoutput message) after its tag byte want; nil when src does not start
// with it.
func tagged(src []byte, want byte) fastReader {
	if len(src) > 0 && src[0] == want {
		return fastReader(src[1:])
	}
	return nil
}

// sized reports whether src is a message with the tag byte want and the
// Int32 length n, n+1 bytes in all.
func sized(src []byte, want byte, n int) bool {
	return len(src) == n+1 && src[0] == want && binary.BigEndian.Uint32(src[1:5]) == uint32(n)
}

// fastReader reads a message on Decode's fast path, the one a well-formed
// message of a layout that Params do not change takes: no field names, no
// offsets, no error values, so that its methods inline and Decode keeps
// what it reads in registers. It is the input not read yet; nil once a read
// did not fit, after which every read fails too. Decode then decodes again
// with reader, which checks the same and says what is wrong.
type fastReader []byte

func (f fastReader) u8() (uint8, fastReader) {
	if len(f) < 1 {
		return 0, nil
	}
	return f[0], f[1:]
}

func (f fastReader) u16() (uint16, fastReader) {
	if len(f) < 2 {
		return 0, nil
	}
	return binary.BigEndian.Uint16(f), f[2:]
}

func (f fastReader) u32() (uint32, fastReader) {
	if len(f) < 4 {
		return 0, nil
	}
	return binary.BigEndian.Uint32(f), f[4:]
}

func (f fastReader) u64() (uint64, fastReader) {
	if len(f) < 8 {
		return 0, nil
	}
	return binary.BigEndian.Uint64(f), f[8:]
}

// fixed reads a value the manual fixes, which must be want (see reader.fixed).
func (f fastReader) fixed(width int, want int64) fastReader {
	if len(f) < width {
		return nil
	}
	var got uint64
	switch width {
	case 1:
		got = uint64(f[0])
	case 2:
		got = uint64(binary.BigEndian.Uint16(f))
	case 4:
		got = uint64(binary.BigEndian.Uint32(f))
	default:
		got = binary.BigEndian.Uint64(f)
	}
	if got != uint64(want)&(^uint64(0)>>(64-8*width)) {
		return nil
	}
	return f[width:]
}

// fill copies the next len(dst) bytes into dst (a [N]byte field).
func (f fastReader) fill(dst []byte) fastReader {
	if len(f) < len(dst) {
		return nil
	}
	copy(dst, f)
	return f[len(dst):]
}

// str and secret read a zero-terminated string as reader's do: a string
// with no terminator, which the fast path then leaves to reader to report,
// costs its error value once more.
func (f fastReader) str(old string) (string, fastReader) {
	s, r := reader{rest: f}.cstr("", old, true)
	return s, fastReader(r.rest)
}

func (f fastReader) secret(old string) (string, fastReader) {
	s, r := reader{rest: f}.cstr("", old, false)
	return s, fastReader(r.rest)
}

// remaining returns the bytes up to the end of the message.
func (f fastReader) remaining() ([]byte, fastReader) {
	return f[:len(f):len(f)], f[len(f):]
}

// ended reports whether every read fitted and the message ends here.
func (f fastReader) ended() bool { return f != nil && len(f) == 0 }

// length reads the Int32 "length of message contents in bytes, including
// self", which must be what is left of the input: a length beyond it is
// ErrTruncated, one short of it ErrTrailingBytes.
func (r reader) length() reader {
	if b := r.rest; len(b) >= 4 && int(int32(binary.BigEndian.Uint32(b))) == len(b) {
		return reader{b[4:], r.err}
	}
	return r.badLength()
}

func (r reader) badLength() reader {
	left := len(r.rest)
	v, r := r.u32("length")
	n := int(int32(v))
	switch {
	case r.err != nil:
	case n < 4:
		r = r.failAt("length", left, ErrBadLength)
	case n > left:
		r = r.failAt("length", left, ErrTruncated)
	default: // n < left
		r = r.failAt("length", left-n, ErrTrailingBytes)
	}
	return r
}

// str reads a zero-terminated string (cstr).
func (r reader) str(field string, old string) (string, reader) {
	return r.cstr(field, old, true)
}

// secret reads a zero-terminated string that is a secret (a password),
// which must not sit in intern's table, shared by the whole process, after
// the message is gone: it is copied each time it is new to the field.
func (r reader) secret(field string, old string) (string, reader) {
	return r.cstr(field, old, false)
}

// cstr reads the zero-terminated string the input starts with; the call a
// string new to the field costs, since str and secret inline. The string never
// aliases the input: it is old (what the field held) when that has the
// same bytes, so that decoding into a value again costs no copy, else
// intern's copy (shared) or a copy of its own. The decoders call it only
// when kept did not find old's bytes again.
func (r reader) cstr(field string, old string, shared bool) (string, reader) {
	b := r.rest
	end := bytes.IndexByte(b, 0)
	if end < 0 {
		return "", r.fail(field, ErrUnterminated)
	}
	switch s := b[:end]; {
	case old == string(s): // longer than kept looks, or empty
	case shared:
		old = intern(s)
	default:
		old = string(s)
	}
	return old, reader{b[end+1:], r.err}
}

// kept reports whether b starts with old's bytes and a zero and old holds
// no zero byte, that is whether old is the string b starts with: a field
// that holds its bytes again (a reused value: the same command tag, column
// names, parameter names) keeps its string, and the decoders step over
// len(old)+1 bytes without calling cstr. It looks at strings of up to
// keptMaxLen bytes, with overlapping word loads of the first and last
// bytes (as appendStr) and a word at a time beyond 16, and calls nothing,
// so that it needs no stack frame; a word v holds a zero byte when
// (v - 0x01…01) &^ v & 0x80…80 is not zero. Longer strings (query texts)
// are for cstr, whose IndexByte and memequal are faster there.
func kept(b []byte, old string) bool {
	const keptMaxLen = 128
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := len(old)
	if n >= len(b) || b[n] != 0 {
		return false
	}
	// b[:n+1] and old[:n] are in range: loads with no bounds checks, which
	// would call the panics and so need a frame; through encoding/binary,
	// which is one load where the machine allows it at any alignment.
	p, o := unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.StringData(old))
	le := binary.LittleEndian
	u64 := func(p unsafe.Pointer, i int) uint64 { return le.Uint64((*[8]byte)(unsafe.Add(p, i))[:]) }
	u32 := func(p unsafe.Pointer, i int) uint32 { return le.Uint32((*[4]byte)(unsafe.Add(p, i))[:]) }
	u8 := func(p unsafe.Pointer, i int) byte { return *(*byte)(unsafe.Add(p, i)) }
	switch {
	case n >= 8 && n <= 16:
		x, y := u64(p, 0), u64(p, n-8)
		return x == u64(o, 0) && y == u64(o, n-8) && ((x-ones)&^x|(y-ones)&^y)&highs == 0
	case n >= 4 && n < 8:
		x, y := u32(p, 0), u32(p, n-4)
		return x == u32(o, 0) && y == u32(o, n-4) && ((x-ones&0xffffffff)&^x|(y-ones&0xffffffff)&^y)&(highs&0xffffffff) == 0
	case n > 16 && n <= keptMaxLen:
		var diff, zero uint64
		for i := 0; i < n-16; i += 16 {
			x, y := u64(p, i), u64(p, i+8)
			diff |= (x ^ u64(o, i)) | (y ^ u64(o, i+8))
			zero |= (x-ones)&^x | (y-ones)&^y
		}
		x, y := u64(p, n-16), u64(p, n-8)
		return diff|(x^u64(o, n-16))|(y^u64(o, n-8))|(zero|(x-ones)&^x|(y-ones)&^y)&highs == 0
	case n > 0 && n < 4:
		x, y, z := u8(p, 0), u8(p, n/2), u8(p, n-1)
		return x == u8(o, 0) && y == u8(o, n/2) && z == u8(o, n-1) && x != 0 && y != 0 && z != 0
	}
	return n == 0
}

// remaining returns the bytes up to the end of the message.
func (r reader) remaining(field string, minLen, maxLen int) ([]byte, reader) {
	if n := len(r.rest); n < minLen || n > maxLen {
		return nil, r.fail(field, &lengthError{n, minLen, maxLen, ""})
	}
	return r.rest[:len(r.rest):len(r.rest)], reader{nil, r.err}
}

// bytes32 reads an Int32 length and that many bytes; -1 gives nil when the
// manual says -1 means NULL, and is an error otherwise.
func (r reader) bytes32(field string, nullable bool) ([]byte, reader) {
	left := len(r.rest)
	v, r := r.u32(field)
	switch n := int32(v); {
	case n >= 0:
		return r.take(field, int(n))
	case n == -1 && nullable:
		return nil, r
	}
	return nil, r.failAt(field, left, ErrNegativeLength)
}

// bytes32At is the Int32-length value at b[off:] for a loop that reads
// straight from the input (a tagged group's, see gen/emit/tagged.go): the
// value, capped as take caps it, and the offset after it; next is -1 when
// the length is negative or the value does not fit, for the reader to
// report.
func bytes32At(b []byte, off int) (v []byte, next int) {
	if len(b)-off >= 4 {
		if l := int(int32(binary.BigEndian.Uint32(b[off : off+4]))); uint(l) <= uint(len(b)-off-4) {
			return b[off+4 : off+4+l : off+4+l], off + 4 + l
		}
	}
	return nil, -1
}

// bytes32s reads len(dst) values like bytes32 into dst in one loop:
// DataRow's columns, Bind's parameters. The first value that is not plain
// (NULL where not allowed, a bad length, short input) and those after it go
// through bytes32, so errors are the same.
func (r reader) bytes32s(field string, dst [][]byte, nullable bool) reader {
	rest, off := r.rest, 0 // an index rather than re-slicing rest: one register, not three
	for i := range dst {
		if len(rest)-off >= 4 {
			// rest[off:off+4], not rest[off:]: a slice that may be empty
			// gets its pointer masked, three more steps on the path from one
			// length to the next.
			switch l := int(int32(binary.BigEndian.Uint32(rest[off : off+4]))); {
			case uint(l) <= uint(len(rest)-off-4):
				dst[i] = rest[off+4 : off+4+l : off+4+l]
				off += 4 + l
				continue
			case l == -1 && nullable:
				dst[i] = nil
				off += 4
				continue
			}
		}
		r.rest = rest[off:]
		for ; i < len(dst); i++ {
			if dst[i], r = r.bytes32(field, nullable); r.err != nil {
				return r.at(field, i)
			}
		}
		return r
	}
	r.rest = rest[off:]
	return r
}

// count reads the count of a following array or group and checks that that
// many elements of at least minElem bytes each fit in the remaining input,
// so no caller ever reserves room for elements that are not there. 16-bit
// counts are unsigned (PostgreSQL reads them with pq_getmsgint), 32-bit
// counts signed.
func (r reader) count(field string, width, minElem int) (int, reader) {
	left := len(r.rest)
	var n int
	if width == 2 {
		var v uint16
		v, r = r.u16(field)
		n = int(v)
	} else {
		var v uint32
		v, r = r.u32(field)
		n = int(int32(v))
	}
	switch {
	case r.err != nil:
		return 0, r
	case n < 0:
		return 0, r.failAt(field, left, ErrNegativeCount)
	case n > len(r.rest)/minElem:
		return 0, r.failAt(field, left, ErrCountTooLarge)
	}
	return n, r
}

// count16 is count for the Int16 counts (nearly all of them), small enough
// to inline.
func (r reader) count16(field string, minElem int) (int, reader) {
	b, cause := r.rest, ErrTruncated
	if len(b) >= 2 {
		if n := int(binary.BigEndian.Uint16(b)); n <= (len(b)-2)/minElem {
			return n, reader{b[2:], r.err}
		}
		cause = ErrCountTooLarge
	}
	return 0, r.failAt(field, len(b), cause)
}

// choice reads a byte that must be one of tags. When optional and the next
// byte is not one of them (or the message ends), nothing is read and 0 returned.
func (r reader) choice(field string, tags string, optional bool) (byte, reader) {
	if len(r.rest) > 0 {
		b := r.rest[0]
		for i := 0; i < len(tags); i++ {
			if tags[i] == b {
				r.rest = r.rest[1:]
				return b, r
			}
		}
	}
	switch {
	case optional:
		return 0, r
	case len(r.rest) == 0:
		return 0, r.fail(field, ErrTruncated)
	}
	return 0, r.fail(field, unknownTag(r.rest[0], tags))
}

// ended reports whether a zero-terminated list ends here (or the input
// does); terminate then consumes the zero byte.
func (r reader) ended() bool { return len(r.rest) == 0 || r.rest[0] == 0 }

// terminate consumes a zero-terminated list's terminator; a list that runs
// out of input fails with ErrUnterminated.
func (r reader) terminate(field string) reader {
	if len(r.rest) == 0 {
		return r.fail(field, ErrUnterminated)
	}
	r.rest = r.rest[1:]
	return r
}

// terminated counts the elements left in a zero-terminated list, each
// fixed bytes then strs zero-terminated strings, so that the decoder makes
// room for them at once (room); an element cut short counts too, for the
// decoder to report.
// Every element takes at least one byte, so the count is bounded by the
// input.
func (r reader) terminated(fixed, strs int) int {
	b, n := r.rest, 0
	for len(b) > 0 && b[0] != 0 {
		n++
		if len(b) < fixed {
			break
		}
		b = b[fixed:]
		for range strs {
			i := bytes.IndexByte(b, 0)
			if i < 0 {
				return n
			}
			b = b[i+1:]
		}
	}
	return n
}

// at names element i of group in the error, when it failed inside the
// group: Columns.Data becomes Columns[2].Data, Values Values[2], and an
// enclosing group adds its index in turn (Outer[1].Inner[2].X).
func (r reader) at(group string, i int) reader {
	if f := r.err.Field; strings.HasPrefix(f, group) && (len(f) == len(group) || f[len(group)] == '.') {
		r.err.Field = group + "[" + strconv.Itoa(i) + "]" + f[len(group):]
	}
	return r
}

// in names the part field of the message that failed inside it
// (Old.Columns[2].Data); the caller reads the part only while there is no
// error yet.
func (r reader) in(part string) reader {
	if r.err != nil {
		r.err.Field = part + "." + r.err.Field
	}
	return r
}

// end fails with ErrTrailingBytes when input is left after last, the
// message's last field.
func (r reader) end(last string) reader {
	if len(r.rest) != 0 {
		return r.fail(last, ErrTrailingBytes)
	}
	return r
}

// done returns the first error, completed by finish.
func (r reader) done(msg string, total int, p Params) error {
	if r.err == nil {
		return nil
	}
	return r.err.finish(msg, total, p)
}

// finish names msg, counts the offset from the start of the total bytes
// decoded, and adds the field's format and a hint about p.
func (e *DecodeError) finish(msg string, total int, p Params) error {
	e.Message = msg
	e.Offset = total - e.Offset
	e.Format = fieldFormats[fieldKey{msg, withoutIndexes(e.Field), e.Err == ErrNegativeCount || e.Err == ErrCountTooLarge}]
	e.Hint = paramsHint(msg, e.Field, e.Err, p)
	return e
}

// withoutIndexes is a field path without its elements' indexes, as
// fieldFormats knows it: Old.Columns[2].Data is Old.Columns.Data.
func withoutIndexes(path string) string {
	for {
		i := strings.IndexByte(path, '[')
		if i < 0 {
			return path
		}
		j := strings.IndexByte(path[i:], ']')
		if j < 0 {
			return path
		}
		path = path[:i] + path[i+j+1:]
	}
}

// room extends the full slice s by n elements in one allocation.
func room[S ~[]E, E any](s S, n int) S {
	return slices.Grow(s, n)[:len(s)+n]
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

// decoded is a dispatcher's result: m, or no message when its Decode failed.
func decoded(m Message, err error) (Message, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}

// dispatchError reports a message a dispatcher cannot choose a type for.
func dispatchError(what, field string, off int, cause error) error {
	return &DecodeError{Message: what, Field: field, Offset: off, Err: cause}
}
