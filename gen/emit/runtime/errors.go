//go:build ignore

package codec

import (
	"errors"
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
	ErrCountTooLarge  = errors.New("count larger than the remaining bytes")
	ErrUnknownTag     = errors.New("unknown tag")
	ErrUnterminated   = errors.New("missing zero terminator")
	ErrZeroByte       = errors.New("zero byte inside a zero-terminated value")
	ErrTooLarge       = errors.New("value too large for its wire field")
	ErrTooLong        = errors.New("message longer than the maximum size")
	// ErrMajorNotGenerated is the cause of a VersionError whose major is not
	// in GeneratedMajors (pgspec gen -majors left it out).
	ErrMajorNotGenerated = errors.New("major not generated")
)

// DecodeError says where decoding failed: the message, the Go field being
// read, and the byte offset in the input at which it failed.
type DecodeError struct {
	Message string
	Field   string
	Offset  int
	Err     error
}

func (e *DecodeError) Error() string {
	s := "codec: decode " + e.Message
	if e.Field != "" {
		s += "." + e.Field
	}
	return s + " at byte " + strconv.Itoa(e.Offset) + ": " + e.Err.Error()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeError says which message and field could not be encoded.
type EncodeError struct {
	Message string
	Field   string
	Err     error
}

func (e *EncodeError) Error() string {
	s := "codec: encode " + e.Message
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
		return "codec: " + e.Message + ": PostgreSQL " + strconv.Itoa(e.Major) +
			" is not one of the majors the codec was generated for (" + strings.Join(majors, ", ") + ")"
	}
	return "codec: " + e.Message + " does not exist in PostgreSQL " + strconv.Itoa(e.Major)
}

func (e *VersionError) Unwrap() error {
	if !GeneratedMajors.Has(e.Major) {
		return ErrMajorNotGenerated
	}
	return nil
}

// FrameError reports a message that framing refused before reading its body.
type FrameError struct {
	// Tag is the message's tag byte, 0 for untagged startup-phase messages.
	Tag byte
	// Length is the length field as read; Max the configured maximum.
	Length, Max int
	Err         error
}

func (e *FrameError) Error() string {
	s := "codec: frame"
	if e.Tag != 0 {
		s += " '" + string(rune(e.Tag)) + "'"
	}
	return s + " length " + strconv.Itoa(e.Length) + " (max " + strconv.Itoa(e.Max) + "): " + e.Err.Error()
}

func (e *FrameError) Unwrap() error { return e.Err }

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
// message has.
func unknownSubtype(got uint32) error {
	return &tagError{"unknown subtype " + strconv.FormatUint(uint64(got), 10)}
}

// errNoAuthState is a frontend 'p' decoded without Frontend.Auth, which
// alone tells its four messages apart.
var errNoAuthState error = &tagError{"Frontend.Auth is not set, and only it tells which message a 'p' is"}
