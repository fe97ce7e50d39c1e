//go:build ignore

package codec

import (
	"errors"
	"io"
	"strconv"
	"strings"
)

// Sentinel causes carried by DecodeError, EncodeError and FrameError; test
// for them with errors.Is.
var (
	ErrTruncated      = errors.New("truncated")
	ErrTrailingBytes  = errors.New("trailing bytes")
	ErrBadFixedValue  = errors.New("wrong fixed value")
	ErrBadLength      = errors.New("bad length")
	ErrNegativeLength = errors.New("negative length")
	ErrNegativeCount  = errors.New("negative count")
	ErrUnknownTag     = errors.New("unknown tag")
	// ErrCountTooLarge and ErrUnterminated are input that ran out, as
	// ErrTruncated is: errors.Is(err, ErrTruncated) holds for them too.
	ErrCountTooLarge error = &truncation{"count larger than the remaining bytes"}
	ErrUnterminated  error = &truncation{"missing zero terminator"}
	ErrZeroByte            = errors.New("zero byte inside a zero-terminated value")
	ErrTooLarge            = errors.New("value too large for its wire field")
	ErrTooLong             = errors.New("message longer than the maximum size")
	// ErrNotOnWire is a field set that the layout Encode writes leaves
	// out, such as a field of another major: writing nothing for it would
	// drop it silently.
	// pgspec:if message:logical-stream-start
	// An Xid outside a streamed transaction and Stream Abort's LSN without
	// parallel streaming are others.
	// pgspec:end
	ErrNotOnWire = errors.New("set, but not on the wire")
	// ErrMajorNotGenerated is the cause of a VersionError whose major is not
	// in GeneratedMajors (pgspec gen -majors left it out).
	ErrMajorNotGenerated = errors.New("major not generated")
)

// DecodeError says where decoding failed: the message, the Go field being
// read and the manual's format for it, the byte offset in the input at
// which it failed, and, when the failure is typical of decoding with the
// wrong Params, which setting to check.
type DecodeError struct {
	// Message is the Go type decoded, or what a dispatcher was choosing.
	Message string
	// Field is the Go field being read (Columns.Data inside a group); for
	// ErrTrailingBytes the last field, after which bytes were left.
	Field string
	// Format is the manual's format of Field (Int32, String, Byte1('D')),
	// empty for the tag and length.
	Format string
	Offset int
	Err    error
	// Hint names the Params setting that typically causes this failure
	// for this message, empty when none does.
	Hint string
}

func (e *DecodeError) Error() string {
	s := errorPrefix + "decode " + e.Message
	field := ""
	if e.Field != "" {
		field = e.Field
		if e.Format != "" {
			field += " (" + e.Format + ")"
		}
	}
	switch {
	case e.Err == ErrTrailingBytes && field != "":
		s += " at byte " + strconv.Itoa(e.Offset) + ": trailing bytes after " + field
	case field != "":
		s += "." + field + " at byte " + strconv.Itoa(e.Offset) + ": " + e.Err.Error()
	default:
		s += " at byte " + strconv.Itoa(e.Offset) + ": " + e.Err.Error()
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// misread reports a failure of bytes read as the wrong field: a tag or a
// fixed value that is not what the layout has there.
func misread(cause error) bool {
	return errors.Is(cause, ErrBadFixedValue) || errors.Is(cause, ErrUnknownTag)
}

// truncation is a way input runs out before the message does.
type truncation struct{ text string }

func (e *truncation) Error() string { return e.text }

func (e *truncation) Is(target error) bool { return target == ErrTruncated }

// fixedError is ErrBadFixedValue saying what was read and what the manual
// fixes there; errors.Is(err, ErrBadFixedValue) holds.
type fixedError struct {
	got, want uint64
	width     int
}

func (e *fixedError) Error() string {
	return ErrBadFixedValue.Error() + ": got " + e.quote(e.got) + " (want " + e.quote(e.want) + ")"
}

// quote shows a value as the manual writes it: a byte as a character
// (Byte1('N'), a tag), a wider value as a number.
func (e *fixedError) quote(v uint64) string {
	if e.width == 1 {
		return strconv.QuoteRuneToASCII(rune(v))
	}
	return strconv.FormatUint(v, 10)
}

func (e *fixedError) Is(target error) bool { return target == ErrBadFixedValue }

// fieldKey finds a field's format: the message's Go name, the field's as
// DecodeError names it, and whether the count of a group is meant.
type fieldKey struct {
	msg, field string
	count      bool
}

// paramsUse says which Params decide a message's layout, and in which
// majors: a hint names a setting only where it changes the layout.
type paramsUse struct {
	streamed, parallel, protocol MajorSet
	// sinceLogical is the lowest pgoutput protocol version that adds a field.
	sinceLogical int
}

// paramsHint says which of p's settings a failure to decode msg typically
// comes from: the bytes shift when a field is expected that is not there,
// or the other way round, so any error may be the symptom. It says nothing
// where no setting would change the layout of p's major, and blames no
// setting for a wrong tag byte (it comes before any field a setting adds)
// or a wrong value inside a part or group (a field that is there or not
// shifts the bytes of the message's own fields first).
func paramsHint(msg, field string, cause error, p Params) string {
	u, ok := paramsUses[msg]
	misread := misread(cause) && field != "tag" && !strings.ContainsAny(field, ".[")
	lv := strconv.Itoa(max(p.LogicalVersion, 1))
	streamed := u.streamed.Has(p.Major)
	switch {
	case !ok:
	// pgspec:if protocol-3.2
	case u.protocol.Has(p.Major) && p.ProtocolMinor < 2 && (errors.Is(cause, ErrBadLength) || cause == ErrTrailingBytes):
		return "decoded under protocol 3.0 (Params.ProtocolMinor 0), where the key is 4 bytes; protocol 3.2 keys are longer"
	// pgspec:end
	case streamed && u.sinceLogical > max(p.LogicalVersion, 1) && p.Streaming != 0:
		return "decoded with Params.Streaming set but Params.LogicalVersion " + lv +
			"; streamed fields need pgoutput protocol version " + strconv.Itoa(u.sinceLogical)
	case u.parallel.Has(p.Major) && p.Streaming&ParallelStreaming == 0 && cause == ErrTrailingBytes:
		return "decoded without Params.Streaming ParallelStreaming; with streaming = parallel it carries the abort LSN and time"
	case u.parallel.Has(p.Major) && p.Streaming&ParallelStreaming != 0 && cause == ErrTruncated:
		return "decoded with Params.Streaming ParallelStreaming; without streaming = parallel it ends after the subtransaction's xid"
	case streamed && p.Streaming&Streamed == 0 && (cause == ErrTrailingBytes || misread):
		if u.sinceLogical > max(p.LogicalVersion, 1) {
			return "decoded with Params.LogicalVersion " + lv + " and without Params.Streaming Streamed; in a streamed transaction (pgoutput protocol version " +
				strconv.Itoa(u.sinceLogical) + " and later) it starts with the transaction's xid"
		}
		return "decoded without Params.Streaming Streamed; between Stream Start and Stream Stop it starts with the transaction's xid"
	case streamed && p.Streaming&Streamed != 0 && (cause == ErrTruncated || misread):
		return "decoded with Params.Streaming Streamed; outside Stream Start and Stream Stop it has no xid"
	case streamed && u.sinceLogical > max(p.LogicalVersion, 1) && cause == ErrTrailingBytes:
		return "decoded with Params.LogicalVersion " + lv + "; pgoutput protocol version " + strconv.Itoa(u.sinceLogical) + " adds fields"
	}
	return ""
}

func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeError says which message and field could not be encoded.
type EncodeError struct {
	Message string
	Field   string
	Err     error
}

func (e *EncodeError) Error() string {
	s := errorPrefix + "encode " + e.Message
	if e.Field != "" {
		s += "." + e.Field
	}
	return s + ": " + e.Err.Error()
}

func (e *EncodeError) Unwrap() error { return e.Err }

// VersionError reports a message used with a PostgreSQL major that does not
// have it, or that the codec was not generated for (then it wraps
// ErrMajorNotGenerated).
type VersionError struct {
	Message string
	Major   int
}

func (e *VersionError) Error() string {
	if e.Unwrap() != nil {
		var majors []string
		for _, m := range GeneratedMajors.Majors() {
			majors = append(majors, strconv.Itoa(m))
		}
		return errorPrefix + e.Message + ": PostgreSQL " + strconv.Itoa(e.Major) +
			" is not one of the majors the codec was generated for (" + strings.Join(majors, ", ") + ")"
	}
	return errorPrefix + e.Message + " does not exist in PostgreSQL " + strconv.Itoa(e.Major)
}

func (e *VersionError) Unwrap() error {
	if !GeneratedMajors.Has(e.Major) {
		return ErrMajorNotGenerated
	}
	return nil
}

// FrameError reports a message that framing refused before reading its
// body, or one the stream ended inside (Err io.ErrUnexpectedEOF).
type FrameError struct {
	// Tag is the message's tag byte, 0 for untagged startup-phase messages.
	Tag byte
	// Length is the length field as read, 0 when the stream ended before
	// it; Max the configured maximum.
	Length, Max int
	// Got and Want are, for a stream that ended inside the message, how
	// many of its bytes arrived and how many its header (Length 0) or the
	// whole message needed.
	Got, Want int
	Err       error
}

func (e *FrameError) Error() string {
	s, max := errorPrefix+"frame", e.Max
	if e.Tag != 0 {
		// The length field does not count the tag: compare like with like.
		s, max = s+" '"+string(rune(e.Tag))+"'", max-1
	}
	switch {
	case e.Err == io.ErrUnexpectedEOF && e.Length == 0:
		return s + ": the stream ended after " + strconv.Itoa(e.Got) + " of the header's " + strconv.Itoa(e.Want) + " bytes: " + e.Err.Error()
	case e.Err == io.ErrUnexpectedEOF:
		return s + " length " + strconv.Itoa(e.Length) + ": the stream ended after " + strconv.Itoa(e.Got) + " of its " + strconv.Itoa(e.Want) + " bytes: " + e.Err.Error()
	}
	return s + " length " + strconv.Itoa(e.Length) + " (max " + strconv.Itoa(max) + "): " + e.Err.Error()
}

func (e *FrameError) Unwrap() error { return e.Err }

// lengthError is ErrBadLength saying how long the value is, how long the
// layout allows, and what a later protocol would allow.
type lengthError struct {
	got, min, max int
	later         string
}

func (e *lengthError) Error() string {
	want := strconv.Itoa(e.min)
	if e.max != e.min {
		want += " to " + strconv.Itoa(e.max)
	}
	s := ErrBadLength.Error() + ": " + strconv.Itoa(e.got) + " bytes (want " + want + ")"
	if e.later != "" {
		s += "; " + e.later
	}
	return s
}

func (e *lengthError) Is(target error) bool { return target == ErrBadLength }

// absentError is ErrNotOnWire saying what would carry the field.
type absentError struct{ where string }

func (e *absentError) Error() string {
	return "set, but it is on the wire only " + e.where
}

func (e *absentError) Is(target error) bool { return target == ErrNotOnWire }

// tagError is ErrUnknownTag saying what was read (and what the layout
// allows), so that the one-line error names the byte; errors.Is(err,
// ErrUnknownTag) holds.
type tagError struct{ text string }

func (e *tagError) Error() string { return e.text }

func (e *tagError) Is(target error) bool { return target == ErrUnknownTag }

// unknownTag reports the byte got where one of want was due.
func unknownTag(got byte, want string) error {
	quoted := make([]string, len(want))
	for i := range len(want) {
		quoted[i] = strconv.QuoteRuneToASCII(rune(want[i]))
	}
	return &tagError{"unknown tag " + strconv.QuoteRuneToASCII(rune(got)) + " (want " + strings.Join(quoted, ", ") + ")"}
}

// unknownSubtype reports an Int32 code (an authentication subtype) no
// message has, and the codes that have one.
func unknownSubtype(got uint32, want string) error {
	return &tagError{"unknown subtype " + strconv.FormatUint(uint64(got), 10) + " (want " + want + ")"}
}

// pgspec:if frontend-backend

// errNoAuthState is a frontend 'p' decoded without Frontend.Auth, which
// alone tells its four messages apart.
var errNoAuthState error = &tagError{"Frontend.Auth is not set, and only it tells which message a 'p' is"}

// pgspec:end
