package session

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pgspec/pgspec/codec"
)

// ProtocolVersion is a frontend/backend protocol version as StartupMessage
// and NegotiateProtocolVersion carry it: the major in the high 16 bits, the
// minor in the low 16.
type ProtocolVersion uint32

// The protocol versions PostgreSQL speaks: 3.0 (every supported major) and
// 3.2 (PostgreSQL 18 on: variable-length cancel keys). There is no 3.1.
const (
	Protocol30 ProtocolVersion = 3 << 16
	Protocol32 ProtocolVersion = 3<<16 | 2
)

// Major is the version's major number (3).
func (v ProtocolVersion) Major() int { return int(v >> 16) }

// Minor is the version's minor number, what codec.Params.ProtocolMinor holds.
func (v ProtocolVersion) Minor() int { return int(v & 0xffff) }

func (v ProtocolVersion) String() string {
	return strconv.Itoa(v.Major()) + "." + strconv.Itoa(v.Minor())
}

// ErrServerVersion is the cause of every error ParseServerVersion returns.
var ErrServerVersion = errors.New("not a PostgreSQL 10 or later server_version")

// ParseServerVersion returns the major of a server_version parameter as
// PostgreSQL reports it: "15.18 (Debian 15.18-1.pgdg120+1)" → 15, "10.23" →
// 10, "19rc1" and "19beta2" → 19, "18devel" → 18. Versions before 10 had a
// two-part major ("9.6.24") and are an error, as is anything that does not
// start with a number. A major newer than codec.NewestMajor is returned as
// is; see Layout for the codec.Params.Major to decode its messages with.
func ParseServerVersion(v string) (int, error) {
	end := 0
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	major, err := strconv.Atoi(v[:end])
	if err != nil || major < 10 {
		return 0, fmt.Errorf("session: server_version %q: %w", v, ErrServerVersion)
	}
	return major, nil
}

// Layout is the codec.Params.Major to use with a server of the given major:
// the major itself when the codec was generated for it, else 0 (the codec's
// newest layout, the best guess for a server newer than the codec).
func Layout(major int) int {
	if major < codec.OldestMajor || major > codec.NewestMajor {
		return 0
	}
	return major
}
