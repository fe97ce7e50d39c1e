//go:build ignore && (!amd64 || purego)

package codec

import (
	"strings"
	"unsafe"
)

// putStr copies s and its terminator to p, which has room for them, and
// reports whether s holds no zero byte: putstr_amd64.s's work in Go, for
// the other architectures and the purego build tag.
func putStr(p *byte, s string) bool {
	b := unsafe.Slice(p, len(s)+1)
	b[copy(b, s)] = 0
	return strings.IndexByte(s, 0) < 0
}
