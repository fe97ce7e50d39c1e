package codec_test

import (
	"errors"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

func TestTimeFromMicros(t *testing.T) {
	for _, tc := range []struct {
		us   int64
		want time.Time
	}{
		{0, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{1, time.Date(2000, 1, 1, 0, 0, 0, 1000, time.UTC)},
		{-1, time.Date(1999, 12, 31, 23, 59, 59, 999_999_000, time.UTC)},
		// Python: (datetime(2026,11,30,13,5,7,123456) - datetime(2000,1,1)) in µs.
		{849_359_107_123_456, time.Date(2026, 11, 30, 13, 5, 7, 123_456_000, time.UTC)},
		{-946_684_800_000_000, time.Unix(0, 0).UTC()},
		// PostgreSQL's extremes: 4714-11-24 BC (year -4713) and 294276-12-31 23:59:59.999999.
		{-211_813_488_000_000_000, time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)},
		{9_223_371_331_200_000_000 - 1, time.Date(294276, 12, 31, 23, 59, 59, 999_999_000, time.UTC)},
	} {
		got := codec.TimeFromMicros(tc.us)
		if !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("codec.TimeFromMicros(%d) = %v, want %v", tc.us, got, tc.want)
		}
		back, err := codec.MicrosFromTime(tc.want)
		if err != nil || back != tc.us {
			t.Errorf("codec.MicrosFromTime(%v) = %d, %v; want %d", tc.want, back, err, tc.us)
		}
	}
}

func TestTimeInfinity(t *testing.T) {
	if got := codec.TimeFromMicros(codec.MicrosInfinity); !got.Equal(codec.Infinity) {
		t.Errorf("codec.TimeFromMicros(infinity) = %v", got)
	}
	if got := codec.TimeFromMicros(codec.MicrosNegativeInfinity); !got.Equal(codec.NegativeInfinity) {
		t.Errorf("codec.TimeFromMicros(-infinity) = %v", got)
	}
	far := time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
	if !codec.Infinity.After(far) || !codec.NegativeInfinity.Before(time.Date(-4714, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("codec.Infinity %v and codec.NegativeInfinity %v do not lie beyond PostgreSQL's range", codec.Infinity, codec.NegativeInfinity)
	}
	for in, want := range map[time.Time]int64{
		codec.Infinity: codec.MicrosInfinity, codec.NegativeInfinity: codec.MicrosNegativeInfinity,
		codec.Infinity.In(time.FixedZone("X", 3600)): codec.MicrosInfinity,
	} {
		if got, err := codec.MicrosFromTime(in); err != nil || got != want {
			t.Errorf("codec.MicrosFromTime(%v) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestMicrosFromTimeTruncatesAndRejects(t *testing.T) {
	// Nanoseconds are dropped towards the past, also before the epoch.
	for in, want := range map[time.Time]int64{
		time.Date(2000, 1, 1, 0, 0, 0, 1999, time.UTC):                 1,
		time.Date(1999, 12, 31, 23, 59, 59, 999_999_999, time.UTC):     -1,
		time.Date(2000, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)): 0,
	} {
		if got, err := codec.MicrosFromTime(in); err != nil || got != want {
			t.Errorf("codec.MicrosFromTime(%v) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []time.Time{
		time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-4713, 11, 23, 23, 59, 59, 0, time.UTC),
		time.Date(1_000_000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := codec.MicrosFromTime(in); !errors.Is(err, codec.ErrTimestampRange) {
			t.Errorf("codec.MicrosFromTime(%v) = %d, %v; want codec.ErrTimestampRange", in, got, err)
		}
	}
}
