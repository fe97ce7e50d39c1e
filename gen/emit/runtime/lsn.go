//go:build ignore

package codec

import (
	"errors"
	"strconv"
	"strings"
)

// LSN is a position in the write-ahead log (XLogRecPtr), the Int64 the
// manual annotates (XLogRecPtr) in replication and pgoutput messages.
// PostgreSQL writes it as two hexadecimal halves: 16/B374D848.
type LSN uint64

// String is the LSN as PostgreSQL prints it (pg_lsn's output format).
func (l LSN) String() string {
	return string(appendLSN(make([]byte, 0, 17), l))
}

func appendLSN(b []byte, l LSN) []byte {
	start := len(b)
	b = strconv.AppendUint(b, uint64(l>>32), 16)
	b = append(b, '/')
	b = strconv.AppendUint(b, uint64(uint32(l)), 16)
	bytesToUpper(b[start:])
	return b
}

// ParseLSN reads an LSN as PostgreSQL prints it: two hexadecimal numbers of
// at most 8 digits each, separated by '/' (either case).
func ParseLSN(s string) (LSN, error) {
	if l, ok := parseLSN(s); ok {
		return l, nil
	}
	return 0, errors.New(errorPrefix + "LSN " + strconv.Quote(s) + ": want two hexadecimal numbers of at most 8 digits like 16/B374D848")
}

// parseLSN is ParseLSN with no error to make, for the command tokenizer,
// which asks it of every word, and JSON's own errors.
func parseLSN(s string) (LSN, bool) {
	hi, lo, ok := strings.Cut(s, "/")
	if ok && hex32(hi) && hex32(lo) {
		h, err1 := strconv.ParseUint(hi, 16, 32)
		l, err2 := strconv.ParseUint(lo, 16, 32)
		if err1 == nil && err2 == nil {
			return LSN(h<<32 | l), true
		}
	}
	return 0, false
}

// hex32 reports whether s is 1 to 8 hexadecimal digits (ParseUint alone
// would accept a sign or an underscore).
func hex32(s string) bool {
	if len(s) == 0 || len(s) > 8 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// MarshalText writes the LSN as String does, for encoding/json and flags.
func (l LSN) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads an LSN as ParseLSN does.
func (l *LSN) UnmarshalText(b []byte) error {
	v, err := ParseLSN(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// bytesToUpper upper-cases hexadecimal digits in place.
func bytesToUpper(b []byte) []byte {
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return b
}
