package codec_test

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/pgspec/pgspec/codec"
)

// TestParameterStatusKeysSurviveTraffic is the case that made strings
// copies: a client keeps ParameterStatus names and values in a map as they
// arrive through a FrameReader, then reads 1 MiB more. The map's keys and
// values must still be what the server sent, and lookups must find them.
func TestParameterStatusKeysSurviveTraffic(t *testing.T) {
	sent := map[string]string{
		"server_version":   "15.18 (Debian 15.18-0+deb12u1)",
		"client_encoding":  "UTF8",
		"application_name": "pgspec",
		"search_path":      `"$user", public, ` + strings.Repeat("a_schema_with_a_long_name, ", 4), // longer than the intern table takes
		"TimeZone":         "Etc/UTC",
	}
	var stream []byte
	for _, name := range []string{"server_version", "client_encoding", "application_name", "search_path", "TimeZone"} {
		stream = appendMsg(t, stream, &codec.ParameterStatus{Name: name, Value: sent[name]})
	}
	// 1 MiB of rows and of other parameter statuses, whose bytes land where
	// the first messages were in the FrameReader's buffer.
	for i := 0; len(stream) < 1<<20+1024; i++ {
		stream = appendMsg(t, stream, &codec.DataRow{Values: [][]byte{[]byte(strconv.Itoa(i)), bytes.Repeat([]byte{'x'}, 100)}})
		if i%100 == 0 {
			stream = appendMsg(t, stream, &codec.ParameterStatus{Name: "xxxxxx_" + strconv.Itoa(i), Value: strings.Repeat("y", i%90)})
		}
	}
	stream = appendMsg(t, stream, &codec.ReadyForQuery{TxStatus: 'I'})

	f := codec.NewFrameReader(iotest.HalfReader(bytes.NewReader(stream)))
	var d codec.Backend
	params := map[string]string{}
	for done := false; !done; {
		frame, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.Decode(frame, codec.Params{})
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *codec.ParameterStatus:
			if !strings.HasPrefix(m.Name, "xxxxxx_") {
				params[m.Name] = m.Value
			}
		case *codec.ReadyForQuery:
			done = true
		}
	}
	if len(params) != len(sent) {
		t.Fatalf("map has %d entries, want %d: %q", len(params), len(sent), params)
	}
	for name, value := range sent {
		if got, ok := params[name]; !ok || got != value {
			t.Errorf("params[%q] = %q, %v after 1 MiB more traffic; want %q", name, got, ok, value)
		}
	}
	for name := range params {
		if _, ok := sent[name]; !ok {
			t.Errorf("map key changed to %q", name)
		}
	}
}

func appendMsg(t *testing.T, dst []byte, m codec.Message) []byte {
	t.Helper()
	out, err := m.Encode(dst, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDecodedStringsOwnNoInput: no string of any decoded message points
// into the bytes it was decoded from, for every hand-written vector and
// every pgproto3 pair, decoded into a new value and into a reused one.
func TestDecodedStringsOwnNoInput(t *testing.T) {
	check := func(name string, msg codec.Message, wire []byte, p codec.Params) {
		src := bytes.Clone(wire)
		m := newLike(msg)
		for round := range 2 { // a new value, then the same value again
			if err := m.Decode(src, p); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			lo, hi := uintptr(unsafe.Pointer(&src[0])), uintptr(unsafe.Pointer(&src[len(src)-1]))
			eachString(reflect.ValueOf(m), func(s string) {
				if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); len(s) > 0 && p >= lo && p <= hi {
					t.Errorf("%s (decode %d): string %q aliases the input", name, round+1, s)
				}
			})
		}
	}
	n := 0
	for _, v := range vectors {
		check(v.name, v.msg, v.wire, v.p)
		n++
	}
	for _, c := range pgproto3Pairs {
		wire, err := c.ours.Encode(nil, c.p)
		if err != nil {
			t.Fatal(err)
		}
		check(c.ours.Slug(), c.ours, wire, c.p)
	}
	if n == 0 {
		t.Fatal("no vectors")
	}
}

// eachString calls f with every string reachable from v.
func eachString(v reflect.Value, f func(string)) {
	switch v.Kind() {
	case reflect.String:
		f(v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			eachString(v.Elem(), f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			eachString(v.Field(i), f)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			eachString(v.Index(i), f)
		}
	}
}

// TestRepeatedStringsAllocateNothing: a session's repeated strings (here
// parameter statuses, column names and command tags of alternating
// messages through one Backend, so that no field keeps its previous value)
// cost nothing after the first time: the intern table hands out the copies
// it made then.
func TestRepeatedStringsAllocateNothing(t *testing.T) {
	rd, _ := rowDescription(10)
	var stream [][]byte
	for _, m := range []codec.Message{
		&codec.ParameterStatus{Name: "client_encoding", Value: "UTF8"},
		&codec.ParameterStatus{Name: "DateStyle", Value: "ISO, MDY"},
		&codec.ParameterStatus{Name: "server_version", Value: "15.18 (Debian 15.18-0+deb12u1)"},
		rd,
		&codec.CommandComplete{CommandTag: "SELECT 10"},
		&codec.RowDescription{Fields: []codec.FieldDescription{{Name: "other", DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1}}},
		&codec.CommandComplete{CommandTag: "INSERT 0 1"},
		&codec.ReadyForQuery{TxStatus: 'I'},
	} {
		stream = append(stream, appendMsg(t, nil, m))
	}
	var d codec.Backend
	decodeAll := func() {
		for _, frame := range stream {
			if _, err := d.Decode(frame, codec.Params{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := testing.AllocsPerRun(20, decodeAll); n != 0 {
		t.Errorf("%v allocations per pass over %d messages", n, len(stream))
	}
}
