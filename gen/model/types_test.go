package model

import "testing"

// TestReconcile pins how two majors' Go types of one field meet: equal
// types stay, a signed and an unsigned integer of one width become the
// unsigned (annotated) one, anything else is a conflict.
func TestReconcile(t *testing.T) {
	arr := GoType{Kind: KindArray, Len: 4}
	for _, c := range []struct {
		a, b GoType
		want string // "" for a conflict
	}{
		{Int(4), Int(4), "int32"},
		{Int(4), Uint(4), "uint32"},
		{Uint(8), Int(8), "uint64"},
		{SliceOf(Int(4)), SliceOf(Uint(4)), "[]uint32"},
		{Int(4), Int(2), ""},
		{Byte, Uint(1), ""},
		{Bytes, arr, ""},
		{arr, arr, "[4]byte"},
		{GoType{Kind: KindPart, Name: "TupleData"}, GoType{Kind: KindStruct, Name: "TupleData"}, ""},
	} {
		got, ok := reconcile(c.a, c.b)
		if c.want == "" {
			if ok {
				t.Errorf("reconcile(%s, %s) = %s, want a conflict", c.a, c.b, got)
			}
			continue
		}
		if !ok || got.String() != c.want {
			t.Errorf("reconcile(%s, %s) = %s, %t; want %s", c.a, c.b, got, ok, c.want)
		}
	}
}

// TestParseNames: the overlay's names for gates and integer types, and the
// manual's notation for directions, read back what String writes.
func TestParseNames(t *testing.T) {
	for _, g := range []Gate{NoGate, GateStreamed, GateParallel} {
		if got, ok := ParseGate(g.String()); !ok || got != g {
			t.Errorf("ParseGate(%q) = %v, %t", g, got, ok)
		}
	}
	if _, ok := ParseGate("parallel-streaming"); ok {
		t.Error("ParseGate accepted an unknown gate")
	}
	for _, s := range []string{"int8", "uint16", "int32", "uint64"} {
		if got, ok := parseIntType(s); !ok || got.String() != s {
			t.Errorf("parseIntType(%q) = %s, %t", s, got, ok)
		}
	}
	for _, s := range []string{"byte", "int", "uint24", "string"} {
		if _, ok := parseIntType(s); ok {
			t.Errorf("parseIntType(%q) accepted", s)
		}
	}
	for _, s := range []string{"", "F", "B", "F & B"} {
		if d, ok := parseDirection(s); !ok || d.String() != s {
			t.Errorf("parseDirection(%q) = %v, %t", s, d, ok)
		}
	}
	if _, ok := parseDirection("B & F"); ok {
		t.Error(`parseDirection accepted "B & F"`)
	}
}
