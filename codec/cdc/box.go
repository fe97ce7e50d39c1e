package cdc

import "unsafe"

// boxes makes the interface values Decode returns for a column, where
// pgtype's DecodeValue allocates each one's box (and a string's bytes)
// on its own: a value of a type without pointers, or a short string
// together with its bytes, is copied into a chunk that the column's next
// values share, one allocation for many values. The chunk holds no
// pointer out of itself (a string's points at its own bytes beside it),
// so it is memory the collector need not scan; it is never written again
// where a value was handed out. A value the application keeps keeps its
// chunk alive: at most boxChunk bytes besides the value.
type boxes struct{ free []byte }

const (
	boxChunk = 512
	// boxedString is the longest string put in a chunk; a longer one
	// is allocated as pgtype allocates it.
	boxedString = 64
)

// alloc returns n bytes of the chunk, 8-aligned.
func (b *boxes) alloc(n uintptr) unsafe.Pointer {
	n = (n + 7) &^ 7
	if uintptr(len(b.free)) < n {
		b.free = make([]byte, boxChunk) // 8-aligned: its size class is
	}
	p := unsafe.Pointer(unsafe.SliceData(b.free))
	b.free = b.free[n:]
	return p
}

// eface is the layout of an interface value: its dynamic type and a
// pointer to the value.
type eface struct{ typ, data unsafe.Pointer }

// box returns x as an any whose value lives in a chunk; T has no pointers
// (the scalarPlans' types: integers, floats, bool).
func box[T any](b *boxes, x T) any {
	var zero T
	p := b.alloc(unsafe.Sizeof(x))
	*(*T)(p) = x
	return *(*any)(unsafe.Pointer(&eface{typeOf(zero), p}))
}

// str returns string(src) as an any, the string's header and bytes in a
// chunk when it is short.
func (b *boxes) str(src []byte) any {
	if len(src) == 0 || len(src) > boxedString {
		return string(src)
	}
	p := b.alloc(unsafe.Sizeof("") + uintptr(len(src)))
	data := unsafe.Add(p, unsafe.Sizeof(""))
	copy(unsafe.Slice((*byte)(data), len(src)), src)
	*(*string)(p) = unsafe.String((*byte)(data), len(src))
	return *(*any)(unsafe.Pointer(&eface{typeOf(""), p}))
}
