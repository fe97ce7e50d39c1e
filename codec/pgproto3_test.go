package codec_test

import (
	"bytes"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgspec/pgspec/codec"
)

// pgproto3Pair is one message as pgspec and as pgproto3 hold it: the same
// values, in each package's types.
type pgproto3Pair struct {
	ours   codec.Message
	theirs pgproto3.Message
	p      codec.Params
}

// pgproto3Pairs covers every message both packages implement.
var pgproto3Pairs = []pgproto3Pair{
	{&codec.AuthenticationOk{}, &pgproto3.AuthenticationOk{}, codec.Params{}},
	{&codec.AuthenticationCleartextPassword{}, &pgproto3.AuthenticationCleartextPassword{}, codec.Params{}},
	{&codec.AuthenticationMD5Password{Salt: [4]byte{1, 2, 3, 4}}, &pgproto3.AuthenticationMD5Password{Salt: [4]byte{1, 2, 3, 4}}, codec.Params{}},
	{&codec.AuthenticationGSS{}, &pgproto3.AuthenticationGSS{}, codec.Params{}},
	{&codec.AuthenticationGSSContinue{Data: []byte("token")}, &pgproto3.AuthenticationGSSContinue{Data: []byte("token")}, codec.Params{}},
	{&codec.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256", "SCRAM-SHA-256-PLUS"}}, &pgproto3.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256", "SCRAM-SHA-256-PLUS"}}, codec.Params{}},
	{&codec.AuthenticationSASLContinue{Data: []byte("r=abc,s=salt,i=4096")}, &pgproto3.AuthenticationSASLContinue{Data: []byte("r=abc,s=salt,i=4096")}, codec.Params{}},
	{&codec.AuthenticationSASLFinal{Data: []byte("v=sig")}, &pgproto3.AuthenticationSASLFinal{Data: []byte("v=sig")}, codec.Params{}},
	{&codec.BackendKeyData{ProcessID: 4242, SecretKey: []byte{1, 2, 3, 4}}, &pgproto3.BackendKeyData{ProcessID: 4242, SecretKey: []byte{1, 2, 3, 4}}, codec.Params{Major: 17}},
	{&codec.BackendKeyData{ProcessID: 4242, SecretKey: bytes.Repeat([]byte{9}, 32)}, &pgproto3.BackendKeyData{ProcessID: 4242, SecretKey: bytes.Repeat([]byte{9}, 32)}, codec.Params{Major: 18, ProtocolMinor: 2}},
	{&codec.Bind{DestinationPortal: "p1", PreparedStatement: "s1", ParameterFormatCodes: []int16{0, 1}, Parameters: [][]byte{[]byte("1"), nil, {}}, ResultFormatCodes: []int16{1}},
		&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "s1", ParameterFormatCodes: []int16{0, 1}, Parameters: [][]byte{[]byte("1"), nil, {}}, ResultFormatCodes: []int16{1}}, codec.Params{}},
	{&codec.BindComplete{}, &pgproto3.BindComplete{}, codec.Params{}},
	{&codec.CancelRequest{ProcessID: 77, SecretKey: []byte{5, 6, 7, 8}}, &pgproto3.CancelRequest{ProcessID: 77, SecretKey: []byte{5, 6, 7, 8}}, codec.Params{Major: 16}},
	{&codec.Close{ObjectType: 'S', Name: "stmt"}, &pgproto3.Close{ObjectType: 'S', Name: "stmt"}, codec.Params{}},
	{&codec.CloseComplete{}, &pgproto3.CloseComplete{}, codec.Params{}},
	{&codec.CommandComplete{CommandTag: "INSERT 0 1"}, &pgproto3.CommandComplete{CommandTag: []byte("INSERT 0 1")}, codec.Params{}},
	{&codec.CopyBothResponse{OverallFormat: 0, ColumnFormatCodes: []int16{0, 1}}, &pgproto3.CopyBothResponse{OverallFormat: 0, ColumnFormatCodes: []uint16{0, 1}}, codec.Params{}},
	{&codec.CopyData{Data: []byte("1\tx\n")}, &pgproto3.CopyData{Data: []byte("1\tx\n")}, codec.Params{}},
	{&codec.CopyDone{}, &pgproto3.CopyDone{}, codec.Params{}},
	{&codec.CopyFail{Message: "stop"}, &pgproto3.CopyFail{Message: "stop"}, codec.Params{}},
	{&codec.CopyInResponse{OverallFormat: 1, ColumnFormatCodes: []int16{1, 1}}, &pgproto3.CopyInResponse{OverallFormat: 1, ColumnFormatCodes: []uint16{1, 1}}, codec.Params{}},
	{&codec.CopyOutResponse{OverallFormat: 0, ColumnFormatCodes: []int16{0}}, &pgproto3.CopyOutResponse{OverallFormat: 0, ColumnFormatCodes: []uint16{0}}, codec.Params{}},
	{&codec.DataRow{Values: [][]byte{[]byte("42"), nil, {}}}, &pgproto3.DataRow{Values: [][]byte{[]byte("42"), nil, {}}}, codec.Params{}},
	{&codec.Describe{ObjectType: 'P', Name: "portal"}, &pgproto3.Describe{ObjectType: 'P', Name: "portal"}, codec.Params{}},
	{&codec.EmptyQueryResponse{}, &pgproto3.EmptyQueryResponse{}, codec.Params{}},
	{&codec.ErrorResponse{Fields: errorFields}, &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "42P01", Message: "relation \"t\" does not exist",
		Detail: "d", Hint: "h", Position: 15, InternalPosition: 3, InternalQuery: "q", Where: "w", SchemaName: "public", TableName: "t",
		ColumnName: "c", DataTypeName: "int4", ConstraintName: "k", File: "parse_relation.c", Line: 1452, Routine: "parserOpenTable"}, codec.Params{}},
	{&codec.Execute{Portal: "p1", MaxRows: 100}, &pgproto3.Execute{Portal: "p1", MaxRows: 100}, codec.Params{}},
	{&codec.Flush{}, &pgproto3.Flush{}, codec.Params{}},
	{&codec.FunctionCall{Function: 1598, ArgumentFormatCodes: []int16{1}, Arguments: [][]byte{{0, 1}, nil}, ResultFormatCode: 1},
		&pgproto3.FunctionCall{Function: 1598, ArgFormatCodes: []uint16{1}, Arguments: [][]byte{{0, 1}, nil}, ResultFormatCode: 1}, codec.Params{}},
	{&codec.FunctionCallResponse{Result: []byte{0, 0, 0, 7}}, &pgproto3.FunctionCallResponse{Result: []byte{0, 0, 0, 7}}, codec.Params{}},
	{&codec.FunctionCallResponse{}, &pgproto3.FunctionCallResponse{}, codec.Params{}},
	{&codec.GSSEncRequest{}, &pgproto3.GSSEncRequest{}, codec.Params{}},
	{&codec.GSSResponse{Data: []byte("gss")}, &pgproto3.GSSResponse{Data: []byte("gss")}, codec.Params{}},
	{&codec.NegotiateProtocolVersion{NewestProtocolVersion: 2, UnrecognizedOptions: []string{"_pq_.a", "_pq_.b"}}, &pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 2, UnrecognizedOptions: []string{"_pq_.a", "_pq_.b"}}, codec.Params{}},
	{&codec.NoData{}, &pgproto3.NoData{}, codec.Params{}},
	{&codec.NoticeResponse{Fields: []codec.ErrorField{{Code: 'S', Value: "NOTICE"}, {Code: 'C', Value: "00000"}, {Code: 'M', Value: "hi"}}},
		&pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "hi"}, codec.Params{}},
	{&codec.NotificationResponse{ProcessID: 12, Channel: "ch", Payload: "pl"}, &pgproto3.NotificationResponse{PID: 12, Channel: "ch", Payload: "pl"}, codec.Params{}},
	{&codec.ParameterDescription{ParameterOIDs: []uint32{23, 25}}, &pgproto3.ParameterDescription{ParameterOIDs: []uint32{23, 25}}, codec.Params{}},
	{&codec.ParameterStatus{Name: "TimeZone", Value: "UTC"}, &pgproto3.ParameterStatus{Name: "TimeZone", Value: "UTC"}, codec.Params{}},
	{&codec.Parse{Name: "s1", Query: "select $1", ParameterOIDs: []uint32{23}}, &pgproto3.Parse{Name: "s1", Query: "select $1", ParameterOIDs: []uint32{23}}, codec.Params{}},
	{&codec.ParseComplete{}, &pgproto3.ParseComplete{}, codec.Params{}},
	{&codec.PasswordMessage{Password: "md5abc"}, &pgproto3.PasswordMessage{Password: "md5abc"}, codec.Params{}},
	{&codec.PortalSuspended{}, &pgproto3.PortalSuspended{}, codec.Params{}},
	{&codec.Query{String: "select 1"}, &pgproto3.Query{String: "select 1"}, codec.Params{}},
	{&codec.ReadyForQuery{TxStatus: 'I'}, &pgproto3.ReadyForQuery{TxStatus: 'I'}, codec.Params{}},
	{&codec.RowDescription{Fields: []codec.FieldDescription{{Name: "id", TableOID: 16384, TableAttributeNumber: 1, DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1, Format: 1}}},
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("id"), TableOID: 16384, TableAttributeNumber: 1, DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1, Format: 1}}}, codec.Params{}},
	{&codec.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=nonce")}, &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=nonce")}, codec.Params{}},
	{&codec.SASLResponse{Data: []byte("c=biws,r=nonce,p=proof")}, &pgproto3.SASLResponse{Data: []byte("c=biws,r=nonce,p=proof")}, codec.Params{}},
	{&codec.SSLRequest{}, &pgproto3.SSLRequest{}, codec.Params{}},
	{&codec.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: []codec.StartupParameter{{Name: "user", Value: "postgres"}}},
		&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "postgres"}}, codec.Params{}},
	{&codec.Sync{}, &pgproto3.Sync{}, codec.Params{}},
	{&codec.Terminate{}, &pgproto3.Terminate{}, codec.Params{}},
}

// errorFields is an error with every field pgproto3 names, in the order
// pgproto3 writes them.
var errorFields = []codec.ErrorField{
	{Code: codec.ErrorFieldSeverity, Value: "ERROR"}, {Code: codec.ErrorFieldSeverityNonLocalized, Value: "ERROR"},
	{Code: codec.ErrorFieldCode, Value: "42P01"}, {Code: codec.ErrorFieldMessage, Value: "relation \"t\" does not exist"},
	{Code: codec.ErrorFieldDetail, Value: "d"}, {Code: codec.ErrorFieldHint, Value: "h"}, {Code: codec.ErrorFieldPosition, Value: "15"},
	{Code: codec.ErrorFieldInternalPosition, Value: "3"}, {Code: codec.ErrorFieldInternalQuery, Value: "q"}, {Code: codec.ErrorFieldWhere, Value: "w"},
	{Code: codec.ErrorFieldSchemaName, Value: "public"}, {Code: codec.ErrorFieldTableName, Value: "t"}, {Code: codec.ErrorFieldColumnName, Value: "c"},
	{Code: codec.ErrorFieldDataTypeName, Value: "int4"}, {Code: codec.ErrorFieldConstraintName, Value: "k"}, {Code: codec.ErrorFieldFile, Value: "parse_relation.c"},
	{Code: codec.ErrorFieldLine, Value: "1452"}, {Code: codec.ErrorFieldRoutine, Value: "parserOpenTable"},
}

// TestPgproto3 checks both ways: the same values encode to identical bytes,
// and those bytes decode to the same values in each package.
func TestPgproto3(t *testing.T) {
	for _, c := range pgproto3Pairs {
		name := c.ours.Slug()
		ours, err := c.ours.Encode(nil, c.p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		theirs, err := c.theirs.Encode(nil)
		if err != nil {
			t.Fatalf("%s: pgproto3: %v", name, err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s: encodings differ\npgspec   % x\npgproto3 % x", name, ours, theirs)
			continue
		}
		got := newLike(c.ours)
		if err := got.Decode(theirs, c.p); err != nil || !same(got, c.ours) {
			t.Errorf("%s: pgspec decodes pgproto3's bytes to %+v, %v", name, got, err)
		}
		back := newLike(c.theirs)
		if err := back.Decode(ours[bodyStart(c.ours):]); err != nil || !same(back, c.theirs) {
			t.Errorf("%s: pgproto3 decodes pgspec's bytes to %+v, %v", name, back, err)
		}
	}
}

// bodyStart is where pgproto3's Decode starts: after the tag and length.
func bodyStart(m codec.Message) int {
	switch m.(type) {
	case *codec.StartupMessage, *codec.SSLRequest, *codec.GSSEncRequest, *codec.CancelRequest:
		return 4
	}
	return 5
}

// TestPgproto3SASLInitialResponseWithoutData records where pgproto3 and the
// manual part: "-1 if there is no Initial Response". pgproto3 writes 0 and
// reads -1 as empty data; pgspec writes -1 and reads it as nil.
func TestPgproto3SASLInitialResponseWithoutData(t *testing.T) {
	theirs, _ := (&pgproto3.SASLInitialResponse{AuthMechanism: "M"}).Encode(nil)
	ours, _ := (&codec.SASLInitialResponse{AuthMechanism: "M"}).Encode(nil, codec.Params{})
	if want := cat('p', be32(4+2+4), cstr("M"), be32(0)); !bytes.Equal(theirs, want) {
		t.Errorf("pgproto3 now writes % x", theirs)
	}
	if want := cat('p', be32(4+2+4), cstr("M"), neg1); !bytes.Equal(ours, want) {
		t.Errorf("pgspec writes % x", ours)
	}
	var m codec.SASLInitialResponse
	if err := m.Decode(theirs, codec.Params{}); err != nil || m.Data == nil || len(m.Data) != 0 {
		t.Errorf("length 0 must decode to empty, not nil: %#v %v", m.Data, err)
	}
}
