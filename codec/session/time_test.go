package session

import (
	"errors"
	"testing"
	"time"
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
		{minTimestamp, time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)},
		{endTimestamp - 1, time.Date(294276, 12, 31, 23, 59, 59, 999_999_000, time.UTC)},
	} {
		got := TimeFromMicros(tc.us)
		if !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("TimeFromMicros(%d) = %v, want %v", tc.us, got, tc.want)
		}
		back, err := MicrosFromTime(tc.want)
		if err != nil || back != tc.us {
			t.Errorf("MicrosFromTime(%v) = %d, %v; want %d", tc.want, back, err, tc.us)
		}
	}
}

func TestTimeInfinity(t *testing.T) {
	if got := TimeFromMicros(MicrosInfinity); !got.Equal(Infinity) {
		t.Errorf("TimeFromMicros(infinity) = %v", got)
	}
	if got := TimeFromMicros(MicrosNegativeInfinity); !got.Equal(NegativeInfinity) {
		t.Errorf("TimeFromMicros(-infinity) = %v", got)
	}
	far := time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
	if !Infinity.After(far) || !NegativeInfinity.Before(time.Date(-4714, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Infinity %v and NegativeInfinity %v do not lie beyond PostgreSQL's range", Infinity, NegativeInfinity)
	}
	for in, want := range map[time.Time]int64{
		Infinity: MicrosInfinity, NegativeInfinity: MicrosNegativeInfinity,
		Infinity.In(time.FixedZone("X", 3600)): MicrosInfinity,
	} {
		if got, err := MicrosFromTime(in); err != nil || got != want {
			t.Errorf("MicrosFromTime(%v) = %d, %v; want %d", in, got, err, want)
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
		if got, err := MicrosFromTime(in); err != nil || got != want {
			t.Errorf("MicrosFromTime(%v) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []time.Time{
		time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-4713, 11, 23, 23, 59, 59, 0, time.UTC),
		time.Date(1_000_000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := MicrosFromTime(in); !errors.Is(err, ErrTimestampRange) {
			t.Errorf("MicrosFromTime(%v) = %d, %v; want ErrTimestampRange", in, got, err)
		}
	}
}
