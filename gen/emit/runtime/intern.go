//go:build ignore

package codec

import (
	"encoding/binary"
	"math/bits"
	"sync/atomic"
)

// Decoded strings are never views of the input: Go code assumes a string
// never changes, and the input is usually a FrameReader's buffer that the
// next message overwrites. Copying every string would cost an allocation
// per column name, command tag or parameter status, so short strings go
// through intern: a fixed table that hands out the same immutable copy
// every time the same bytes come again. It is shared by every decoder (a
// message's Decode needs no decoder value to benefit), safe for concurrent
// use (a slot is an atomic pointer and an atomic hash), and bounded:
// internSlots strings of at most internMaxLen bytes, about 600 KiB when
// full. Slots pair up: a string may sit in either slot of its pair, so
// that two strings a session alternates between (a user name and a column
// name) do not keep evicting each other; a new string takes the pair's
// first slot and moves what was there to the second. A string that still
// misses costs one copy, and longer strings (query text, long error
// messages) are always copied.
const (
	internBits  = 12
	internSlots = 1 << internBits
	// internMaxLen covers every identifier (NAMEDATALEN is 64, names are
	// at most 63 bytes), command tags, SQLSTATEs, the usual parameter
	// status values and most error and notice texts, which a session
	// repeats (a deprecation warning at every connection).
	internMaxLen = 128
)

var internTable [internSlots]internSlot

// internSlot is a string of the table and its hash, which a lookup
// compares first: a miss (a query text, new every time) reads no string.
// The two are stored one after the other, not at once; a reader that sees
// one's new value and the other's old compares a string that differs, and
// at worst copies once more.
type internSlot struct {
	hash atomic.Uint64
	s    atomic.Pointer[string]
}

// lookup is the slot's string when it holds b's bytes (hashed h).
func (slot *internSlot) lookup(b []byte, h uint64) (string, bool) {
	if slot.hash.Load() == h {
		if p := slot.s.Load(); p != nil && *p == string(b) {
			return *p, true
		}
	}
	return "", false
}

// intern returns a string holding b's bytes that shares nothing with b.
func intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > internMaxLen {
		return string(b)
	}
	h := internHash(b)
	i := h >> (64 - internBits)
	first, second := &internTable[i], &internTable[i^1]
	if s, ok := first.lookup(b, h); ok {
		return s
	}
	if s, ok := second.lookup(b, h); ok {
		return s
	}
	s := string(b)
	if p := first.s.Load(); p != nil {
		second.s.Store(p)
		second.hash.Store(first.hash.Load())
	}
	first.s.Store(&s)
	first.hash.Store(h)
	return s
}

// internHash mixes all of b (1 to internMaxLen bytes) into 64 bits with a
// few overlapping word loads: a slot's choice needs spreading, not
// resistance to chosen collisions, which cost a copy and nothing else.
func internHash(b []byte) uint64 {
	const k0, k1 = 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9
	n := len(b)
	var h uint64
	switch {
	case n >= 8:
		for i := 0; i+8 < n; i += 8 {
			h = (h ^ binary.LittleEndian.Uint64(b[i:])) * k0
		}
		h ^= binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		h = uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[n-4:]))
	default:
		h = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	}
	hi, lo := bits.Mul64(h^uint64(n)*k1, k0)
	return hi ^ lo
}
