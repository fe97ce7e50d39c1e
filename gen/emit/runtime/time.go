//go:build ignore

package codec

import (
	"errors"
	"math"
	"time"
)

// PostgreSQL sends timestamps (XLogData's send time, keepalives, pgoutput's
// commit times, binary timestamptz) as Int64 microseconds since
// 2000-01-01 00:00:00 UTC. The largest and smallest Int64 stand for
// 'infinity' and '-infinity'.
const (
	MicrosInfinity         int64 = math.MaxInt64
	MicrosNegativeInfinity int64 = math.MinInt64
)

// Infinity and NegativeInfinity are the time.Time values TimeFromMicros
// gives 'infinity' and '-infinity': the latest and earliest instants a
// time.Time can hold, so that every other time sorts between them. Compare
// with Equal (or !Before / !After), not ==.
var (
	Infinity         = time.Unix(math.MaxInt64-unixToInternal, 999_999_999).UTC()
	NegativeInfinity = time.Unix(math.MinInt64+unixToInternal, 0).UTC()
)

const (
	// unixToInternal is time's offset between year 1 and 1970 in seconds.
	unixToInternal int64 = 62_135_596_800
	// pgEpochUnix is 2000-01-01 00:00:00 UTC in Unix seconds.
	pgEpochUnix int64 = 946_684_800
	// PostgreSQL's valid timestamps run from 4714-11-24 BC 00:00 UTC
	// (MIN_TIMESTAMP) to just before 294277-01-01 00:00 UTC (END_TIMESTAMP),
	// in microseconds since its epoch.
	minTimestamp int64 = -211_813_488_000_000_000
	endTimestamp int64 = 9_223_371_331_200_000_000
)

// ErrTimestampRange is the cause of MicrosFromTime's error for a time
// PostgreSQL cannot represent.
var ErrTimestampRange = errors.New("outside PostgreSQL's timestamp range (4714-11-24 BC to 294276 AD)")

// TimeFromMicros turns PostgreSQL microseconds into a time.Time in UTC,
// 'infinity' and '-infinity' into Infinity and NegativeInfinity.
func TimeFromMicros(us int64) time.Time {
	switch us {
	case MicrosInfinity:
		return Infinity
	case MicrosNegativeInfinity:
		return NegativeInfinity
	}
	sec, frac := us/1_000_000, us%1_000_000
	if frac < 0 {
		sec, frac = sec-1, frac+1_000_000
	}
	return time.Unix(pgEpochUnix+sec, frac*1000).UTC()
}

// MicrosFromTime turns a time.Time into PostgreSQL microseconds, truncating
// to the microsecond (towards the past); Infinity and NegativeInfinity (or
// anything beyond them) become 'infinity' and '-infinity'. A time outside
// PostgreSQL's range is an error wrapping ErrTimestampRange.
func MicrosFromTime(t time.Time) (int64, error) {
	switch {
	case !t.Before(Infinity):
		return MicrosInfinity, nil
	case !t.After(NegativeInfinity):
		return MicrosNegativeInfinity, nil
	}
	// Seconds first: t.Sub would saturate at 292 years.
	sec := t.Unix() - pgEpochUnix
	if sec < minTimestamp/1_000_000 || sec >= endTimestamp/1_000_000 {
		return 0, &timeError{t}
	}
	return sec*1_000_000 + int64(t.Nanosecond()/1000), nil
}

// timeError is ErrTimestampRange naming the time.
type timeError struct{ t time.Time }

func (e *timeError) Error() string {
	return errorPrefix + "time " + e.t.Format(time.RFC3339Nano) + ": " + ErrTimestampRange.Error()
}

func (e *timeError) Unwrap() error { return ErrTimestampRange }
