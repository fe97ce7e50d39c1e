package session

import (
	"errors"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

func TestError(t *testing.T) {
	fields := []codec.ErrorField{
		{Code: codec.ErrorFieldSeverity, Value: "FEHLER"}, // localized
		{Code: codec.ErrorFieldSeverityNonLocalized, Value: "ERROR"},
		{Code: codec.ErrorFieldCode, Value: "42P01"},
		{Code: codec.ErrorFieldMessage, Value: `relation "nope" does not exist`},
		{Code: codec.ErrorFieldPosition, Value: "15"},
	}
	e := NewError(fields)
	fields[2].Value = "changed" // NewError keeps its own slice
	if e.SQLState() != "42P01" || e.Severity() != "ERROR" || e.Get(codec.ErrorFieldPosition) != "15" || e.Get(codec.ErrorFieldHint) != "" {
		t.Errorf("%+v", e)
	}
	if got, want := e.Error(), `ERROR: relation "nope" does not exist (SQLSTATE 42P01)`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var target *Error
	if !errors.As(error(e), &target) {
		t.Error("errors.As")
	}
	if v, ok := Field(fields, codec.ErrorFieldDetail); ok || v != "" {
		t.Errorf("absent field: %q, %v", v, ok)
	}
	// Without V (servers before 9.6) the severity is S.
	if s := NewError([]codec.ErrorField{{Code: 'S', Value: "FATAL"}}).Severity(); s != "FATAL" {
		t.Errorf("severity %q", s)
	}
}
