package extract

import (
	"reflect"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

func i64(v int64) *int64 { return &v }

func TestParseFormat(t *testing.T) {
	cases := []struct {
		format string
		want   spec.Type
	}{
		{"Int32", spec.Type{Kind: spec.KindInt, Width: 4}},
		{"Int8", spec.Type{Kind: spec.KindInt, Width: 1}},
		{"Int32(8)", spec.Type{Kind: spec.KindInt, Width: 4, Value: i64(8)}},
		{"Int32(196608)", spec.Type{Kind: spec.KindInt, Width: 4, Value: i64(196608)}},
		{"Int32(80877103)", spec.Type{Kind: spec.KindInt, Width: 4, Value: i64(80877103)}},
		{"Int16[C]", spec.Type{Kind: spec.KindInt, Width: 2, Array: "C"}},
		{"Int32[N]", spec.Type{Kind: spec.KindInt, Width: 4, Array: "N"}},
		{"Int32 (TransactionId)", spec.Type{Kind: spec.KindInt, Width: 4, Annotation: "TransactionId"}},
		{"Int64 (XLogRecPtr)", spec.Type{Kind: spec.KindInt, Width: 8, Annotation: "XLogRecPtr"}},
		{"Int64（XLogRecPtr）", spec.Type{Kind: spec.KindInt, Width: 8, Annotation: "XLogRecPtr"}},
		{"Byte1('R')", spec.Type{Kind: spec.KindByte, Width: 1, Tag: "R"}},
		{"Byte1('1')", spec.Type{Kind: spec.KindByte, Width: 1, Tag: "1"}},
		{"Byte1", spec.Type{Kind: spec.KindByte, Width: 1}},
		{"Byte4", spec.Type{Kind: spec.KindBytes, Width: 4}},
		{"Byten", spec.Type{Kind: spec.KindBytes, Length: "n"}},
		{"String", spec.Type{Kind: spec.KindString}},
		{"TupleData", spec.Type{Kind: spec.KindPart, Part: "TupleData"}},
	}
	for _, c := range cases {
		got, err := ParseFormat(c.format)
		if err != nil {
			t.Errorf("ParseFormat(%q): %v", c.format, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseFormat(%q) = %+v, want %+v", c.format, got, c.want)
		}
	}
}

func TestParseFormatRejects(t *testing.T) {
	for _, f := range []string{"", "Int", "Int24", "Int32(x)", "Int32[]", "Byte1('RR')", "Byte", "Float8", "string", "Int32 (Oid", "Int32(99999999999999999999)"} {
		if got, err := ParseFormat(f); err == nil {
			t.Errorf("ParseFormat(%q) = %+v, want an error", f, got)
		}
	}
}

func TestKebab(t *testing.T) {
	cases := map[string]string{
		"AuthenticationOk":             "authentication-ok",
		"AuthenticationMD5Password":    "authentication-md5-password",
		"AuthenticationKerberosV5":     "authentication-kerberos-v5",
		"AuthenticationSCMCredential":  "authentication-scm-credential",
		"AuthenticationSASLContinue":   "authentication-sasl-continue",
		"SASLInitialResponse":          "sasl-initial-response",
		"GSSENCRequest":                "gssenc-request",
		"SSLRequest":                   "ssl-request",
		"CopyData":                     "copy-data",
		"XLogData":                     "xlog-data",
		"WALData":                      "wal-data",
		"Primary keepalive message":    "primary-keepalive-message",
		"Hot Standby feedback message": "hot-standby-feedback-message",
		"Hot standby feedback message": "hot-standby-feedback-message",
		"Stream Prepare":               "stream-prepare",
		"archive or manifest data":     "archive-or-manifest-data",
	}
	for in, want := range cases {
		if got := Kebab(in); got != want {
			t.Errorf("Kebab(%q) = %q, want %q", in, got, want)
		}
	}
}
