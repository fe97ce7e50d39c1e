//go:build ignore && amd64 && !purego

package codec

// putStr copies s and its terminator to p, which has room for them, and
// reports whether s holds no zero byte (putstr_amd64.s).
//
//go:noescape
func putStr(p *byte, s string) bool
