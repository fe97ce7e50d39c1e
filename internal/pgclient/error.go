package pgclient

import (
	"strings"

	"github.com/pgspec/pgspec/codec"
)

// Error is an ErrorResponse (or NoticeResponse) with its fields copied out of
// the receive buffer, keyed by field code (codec.ErrorField*).
type Error struct {
	Fields map[byte]string
}

// NewError copies the fields of an ErrorResponse or NoticeResponse.
func NewError(fields []codec.ErrorField) *Error {
	e := &Error{Fields: make(map[byte]string, len(fields))}
	for _, f := range fields {
		e.Fields[f.Code] = strings.Clone(f.Value)
	}
	return e
}

// SQLState is the error's code field.
func (e *Error) SQLState() string { return e.Fields[codec.ErrorFieldCode] }

func (e *Error) Error() string {
	return e.Fields[codec.ErrorFieldSeverity] + ": " + e.Fields[codec.ErrorFieldMessage] + " (SQLSTATE " + e.SQLState() + ")"
}
