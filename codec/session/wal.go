package session

import "github.com/pgspec/pgspec/codec"

// The LSN, the PostgreSQL time conversions and the CopyData framing are the
// codec's runtime, in every package pgspec generates; session names them
// too, so that a client built on it needs one import.
type LSN = codec.LSN

// Aliases of the codec's helpers (see there).
var (
	ParseLSN         = codec.ParseLSN
	TimeFromMicros   = codec.TimeFromMicros
	MicrosFromTime   = codec.MicrosFromTime
	AppendCopyData   = codec.AppendCopyData
	Infinity         = codec.Infinity
	NegativeInfinity = codec.NegativeInfinity

	ErrTimestampRange = codec.ErrTimestampRange
)

// PostgreSQL's 'infinity' and '-infinity' in microseconds.
const (
	MicrosInfinity         = codec.MicrosInfinity
	MicrosNegativeInfinity = codec.MicrosNegativeInfinity
)
