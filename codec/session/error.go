package session

import (
	"strconv"

	"github.com/pgspec/pgspec/codec"
)

// Error is an ErrorResponse (or NoticeResponse) as a Go error. Its fields
// are the message's, which are safe to keep: the codec's strings never
// change after Decode.
type Error struct {
	Fields []codec.ErrorField
}

// NewError keeps the fields of an ErrorResponse or NoticeResponse.
func NewError(fields []codec.ErrorField) *Error {
	return &Error{Fields: append([]codec.ErrorField(nil), fields...)}
}

// Field returns the value of the field with the given code
// (codec.ErrorFieldCode, codec.ErrorFieldDetail, …) and whether it was sent.
func Field(fields []codec.ErrorField, code byte) (string, bool) {
	for _, f := range fields {
		if f.Code == code {
			return f.Value, true
		}
	}
	return "", false
}

// Get is the value of the field with the given code, "" when not sent.
func (e *Error) Get(code byte) string {
	v, _ := Field(e.Fields, code)
	return v
}

// SQLState is the five-character SQLSTATE code ("42P01").
func (e *Error) SQLState() string { return e.Get(codec.ErrorFieldCode) }

// Severity is ERROR, FATAL, PANIC, WARNING, NOTICE, DEBUG, INFO or LOG:
// the field that is never localized when the server sends it.
func (e *Error) Severity() string {
	if v, ok := Field(e.Fields, codec.ErrorFieldSeverityNonLocalized); ok {
		return v
	}
	return e.Get(codec.ErrorFieldSeverity)
}

// Message is the primary human-readable message.
func (e *Error) Message() string { return e.Get(codec.ErrorFieldMessage) }

// Error reads like psql's: `ERROR: relation "nope" does not exist (SQLSTATE 42P01)`.
func (e *Error) Error() string {
	return e.Severity() + ": " + e.Message() + " (SQLSTATE " + e.SQLState() + ")"
}

// Detail is the optional secondary message, "" when not sent.
func (e *Error) Detail() string { return e.Get(codec.ErrorFieldDetail) }

// Hint is the optional suggestion what to do about the problem, "" when not sent.
func (e *Error) Hint() string { return e.Get(codec.ErrorFieldHint) }

// Position is the 1-based character (not byte) index into the query where
// the error is, 0 when not sent.
func (e *Error) Position() int {
	n, _ := strconv.Atoi(e.Get(codec.ErrorFieldPosition))
	return n
}

// ServerError is the error a server sends: severity in both the localized
// and the non-localized field ("ERROR", "FATAL", "NOTICE" …), the SQLSTATE
// code, the message and, when not empty, the detail.
func ServerError(severity, code, message, detail string) *Error {
	e := &Error{Fields: []codec.ErrorField{
		{Code: codec.ErrorFieldSeverity, Value: severity},
		{Code: codec.ErrorFieldSeverityNonLocalized, Value: severity},
		{Code: codec.ErrorFieldCode, Value: code},
		{Code: codec.ErrorFieldMessage, Value: message},
	}}
	if detail != "" {
		e.Fields = append(e.Fields, codec.ErrorField{Code: codec.ErrorFieldDetail, Value: detail})
	}
	return e
}
