package codec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// jsonRoundTrip checks that m, decoded from wire with p, marshals to valid
// JSON that unmarshals into the same message, which encodes to wire again.
// TestRoundTrip runs it over every message, major and state; the fuzz
// targets over every seed of codec/testdata/fuzz.
func jsonRoundTrip(t *testing.T, name string, m codec.Message, wire []byte, p codec.Params) {
	t.Helper()
	data := codec.AppendJSON(nil, m, p, codec.JSONOptions{})
	if !json.Valid(data) {
		t.Fatalf("%s: AppendJSON wrote invalid JSON: %s", name, data)
	}
	back := reflect.New(reflect.TypeOf(m).Elem()).Interface().(codec.Message)
	if err := codec.UnmarshalJSON(data, back, p); err != nil {
		t.Fatalf("%s: UnmarshalJSON(%s): %v", name, data, err)
	}
	if !same(back, m) {
		t.Fatalf("%s: JSON %s reads back as\n%+v\nwant %+v", name, data, back, m)
	}
	enc, err := back.Encode(nil, p)
	if err != nil || !bytes.Equal(enc, wire) {
		t.Fatalf("%s: JSON %s re-encodes to % x (%v), want % x", name, data, enc, err, wire)
	}
}

// TestJSONForms: the JSON of hand-built messages, written out by hand from
// the rules in AppendJSON's comment, and what the options change.
func TestJSONForms(t *testing.T) {
	v4 := codec.Params{Major: 18, LogicalVersion: 4, Streaming: codec.ParallelStreaming}
	for _, c := range []struct {
		m    codec.Message
		p    codec.Params
		o    codec.JSONOptions
		want string
	}{
		{&codec.LogicalStreamAbort{Xid: 7, SubXid: 8, AbortLSN: 0x1_016B3740, AbortTime: 1_000_001}, v4, codec.JSONOptions{},
			`{"Xid":7,"SubXid":8,"AbortLSN":"1/16B3740","AbortTime":"2000-01-01T00:00:01.000001Z"}`},
		{&codec.LogicalStreamAbort{Xid: 7, SubXid: 8, AbortLSN: 1, AbortTime: 1}, codec.Params{Major: 18, LogicalVersion: 4}, codec.JSONOptions{},
			`{"Xid":7,"SubXid":8}`},
		{&codec.PrimaryKeepalive{ServerWALEnd: math.MaxUint64, ServerTime: math.MaxInt64, ReplyRequested: 1}, codec.Params{}, codec.JSONOptions{},
			`{"ServerWALEnd":"FFFFFFFF/FFFFFFFF","ServerTime":"infinity","ReplyRequested":1}`},
		{&codec.PrimaryKeepalive{ServerTime: math.MinInt64}, codec.Params{}, codec.JSONOptions{},
			`{"ServerWALEnd":"0/0","ServerTime":"-infinity","ReplyRequested":0}`},
		{&codec.PrimaryKeepalive{ServerTime: math.MaxInt64 - 1}, codec.Params{}, codec.JSONOptions{},
			`{"ServerWALEnd":"0/0","ServerTime":9223372036854775806,"ReplyRequested":0}`},
		{&codec.LogicalUpdate{RelationOID: 1, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'n'}, {Kind: 't', Data: []byte("é\n")}, {Kind: 'b', Data: []byte{0xff, 0}}}}},
			codec.Params{Major: 18, LogicalVersion: 1, Streaming: codec.Streamed}, codec.JSONOptions{},
			`{"RelationOID":1,"New":{"Columns":[{"Kind":110},{"Kind":116,"Data":"é\n"},{"Kind":98,"Data":{"bytes":2,"hex":"ff00"}}]}}`},
		{&codec.DataRow{Values: [][]byte{nil, {}, []byte("abcdef")}}, codec.Params{}, codec.JSONOptions{MaxValue: 4, MaxElements: 2},
			`{"Values":[null,"",{"more":1}]}`},
		{&codec.DataRow{Values: [][]byte{[]byte("abcdef"), {0xff, 1, 2, 3, 4}}}, codec.Params{}, codec.JSONOptions{MaxValue: 4},
			`{"Values":[{"bytes":6,"text":"abcd"},{"bytes":5,"hex":"ff010203"}]}`},
		{&codec.PasswordMessage{Password: "hunter2"}, codec.Params{}, codec.JSONOptions{Redact: true},
			`{"Password":{"bytes":7,"redacted":true}}`},
		{&codec.PasswordMessage{Password: "hunter2"}, codec.Params{}, codec.JSONOptions{},
			`{"Password":"hunter2"}`},
		{&codec.CopyData{Data: []byte("x")}, codec.Params{}, codec.JSONOptions{OmitPayload: true}, `{}`},
		{&codec.XLogData{WALStart: 1, WALData: []byte("x")}, codec.Params{}, codec.JSONOptions{OmitPayload: true}, `{"WALStart":"0/1","ServerWALEnd":"0/0","ServerTime":"2000-01-01T00:00:00Z"}`},
		{&codec.StandbyStatusUpdate{WALWritePosition: 1}, codec.Params{}, codec.JSONOptions{OmitPayload: true},
			`{"WALWritePosition":"0/1","WALFlushPosition":"0/0","WALApplyPosition":"0/0","ClientTime":"2000-01-01T00:00:00Z","ReplyRequested":0}`},
		{&codec.AuthenticationMD5Password{Salt: [4]byte{'a', 'b', 0xff, 0}}, codec.Params{}, codec.JSONOptions{},
			`{"Salt":{"bytes":4,"hex":"6162ff00"}}`},
	} {
		got := string(codec.AppendJSON(nil, c.m, c.p, c.o))
		if got != c.want {
			t.Errorf("%T %+v %+v:\n got %s\nwant %s", c.m, c.p, c.o, got, c.want)
		}
		if c.o != (codec.JSONOptions{}) {
			continue
		}
		// What the JSON says is a message whose bytes decode to it again.
		fresh := func() codec.Message { return reflect.New(reflect.TypeOf(c.m).Elem()).Interface().(codec.Message) }
		back, decoded := fresh(), fresh()
		if err := codec.UnmarshalJSON([]byte(c.want), back, c.p); err != nil {
			t.Fatalf("%s: %v", c.want, err)
		}
		wire, err := back.Encode(nil, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.want, err)
		}
		if err := decoded.Decode(wire, c.p); err != nil {
			t.Fatal(err)
		}
		jsonRoundTrip(t, got, decoded, wire, c.p)
	}
}

// TestUnmarshalJSONRefuses: what UnmarshalJSON cannot read back as the
// message AppendJSON wrote is an error naming the field and the reason.
func TestUnmarshalJSONRefuses(t *testing.T) {
	v1 := codec.Params{Major: 18, LogicalVersion: 1}
	for _, c := range []struct {
		m    codec.Message
		p    codec.Params
		data string
		want string
	}{
		{&codec.LogicalDelete{}, v1, `{"Xid":5,"RelationOID":1,"OldKind":75,"Old":{"Columns":[]}}`,
			"codec: json LogicalDelete.Xid: is not on the wire with"},
		{&codec.LogicalUpdate{}, v1, `{"RelationOID":1,"OldKind":0,"Old":{"Columns":[]},"New":{"Columns":[]}}`,
			"LogicalUpdate.OldKind: is not on the wire with the values given"},
		{&codec.LogicalUpdate{}, v1, `{"RelationOID":1,"Old":{"Columns":[]},"New":{"Columns":[]}}`,
			"LogicalUpdate.Old: is not on the wire with the values given"},
		{&codec.LogicalInsert{}, v1, `{"RelationOID":1,"New":{"Columns":[{"Kind":110,"Data":"x"}]}}`,
			"LogicalInsert.New.Columns[0].Data: is not on the wire with the values given"},
		{&codec.Query{}, codec.Params{}, `{"String":"select 1","Extra":1}`, `Query has no field "Extra"`},
		{&codec.Query{}, codec.Params{}, `["select 1"]`, "codec: json Query: want an object of Query's fields"},
		{&codec.Query{}, codec.Params{}, `{"String":5}`, "Query.String: want a string, got 5"},
		{&codec.CopyData{}, codec.Params{}, `{"Data":{"bytes":300,"text":"abc"}}`, "CopyData.Data: want a string, bytes or null, got {\"bytes\":300,\"text\":\"abc\"}: the value was cut to 3 of its 300 bytes"},
		{&codec.CopyData{}, codec.Params{}, `{"Data":{"bytes":2,"hex":"0g"}}`, "CopyData.Data: want a string, bytes or null"},
		{&codec.PasswordMessage{}, codec.Params{}, `{"Password":{"bytes":7,"redacted":true}}`, "PasswordMessage.Password: want a string, got {\"bytes\":7,\"redacted\":true}: the value was redacted"},
		{&codec.DataRow{}, codec.Params{}, `{"Values":["a",{"more":3}]}`, "DataRow.Values: cut after 1 elements"},
		{&codec.ParameterDescription{}, codec.Params{}, `{"ParameterOIDs":[1,4294967296]}`, "ParameterDescription.ParameterOIDs[1]: want an integer 0…4294967295, got 4294967296"},
		{&codec.ReadyForQuery{}, codec.Params{}, `{"TxStatus":73.0}`, "ReadyForQuery.TxStatus: want an integer 0…255, got 73.0"},
		{&codec.PrimaryKeepalive{}, codec.Params{}, `{"ServerWALEnd":"1/100000000"}`, `PrimaryKeepalive.ServerWALEnd: want an LSN X/X, got "1/100000000"`},
		{&codec.PrimaryKeepalive{}, codec.Params{}, `{"ServerTime":"yesterday"}`, `PrimaryKeepalive.ServerTime: want an RFC 3339 time, infinity or -infinity, got "yesterday"`},
		{&codec.PrimaryKeepalive{}, codec.Params{}, `{"ServerTime":"2026-01-01T00:00:00.0000001Z"}`, "is finer than the microseconds PostgreSQL keeps"},
		{&codec.AuthenticationMD5Password{}, codec.Params{}, `{"Salt":"abc"}`, "AuthenticationMD5Password.Salt: want 4 bytes, got \"abc\""},
	} {
		err := codec.UnmarshalJSON([]byte(c.data), c.m, c.p)
		var je *codec.JSONError
		if err == nil || !errors.As(err, &je) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T %s: got %v, want a *JSONError with %q", c.m, c.data, err, c.want)
		}
	}
}
