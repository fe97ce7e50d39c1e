package codec_test

import (
	"encoding/json"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

func TestLSN(t *testing.T) {
	for _, tc := range []struct {
		lsn codec.LSN
		s   string
	}{
		{0x16_B374D848, "16/B374D848"},
		{0, "0/0"},
		{0x1_00000000, "1/0"},
		{0xFFFFFFFF_FFFFFFFF, "FFFFFFFF/FFFFFFFF"},
		{0x0_0000000A, "0/A"},
	} {
		if got := tc.lsn.String(); got != tc.s {
			t.Errorf("codec.LSN(%#x).String() = %q, want %q", uint64(tc.lsn), got, tc.s)
		}
		if got, err := codec.ParseLSN(tc.s); err != nil || got != tc.lsn {
			t.Errorf("codec.ParseLSN(%q) = %#x, %v", tc.s, uint64(got), err)
		}
	}
	if got, err := codec.ParseLSN("16/b374d848"); err != nil || got != 0x16_B374D848 {
		t.Errorf("lower case: codec.ParseLSN = %#x, %v", uint64(got), err)
	}
	for _, bad := range []string{"", "/", "16", "16/", "/1", "1/2/3", "+1/2", "1/-2", "1_0/2", "123456789/0", "0/123456789", "G/0", "0x1/0", " 1/2"} {
		if got, err := codec.ParseLSN(bad); err == nil {
			t.Errorf("codec.ParseLSN(%q) = %v, want an error", bad, got)
		}
	}
}

func TestLSNText(t *testing.T) {
	in := struct{ Flush codec.LSN }{0x3_0000_0028}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"Flush":"3/28"}` {
		t.Fatalf("json.Marshal = %s, %v", b, err)
	}
	var out struct{ Flush codec.LSN }
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Errorf("json.Unmarshal = %+v, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"Flush":"3-28"}`), &out); err == nil {
		t.Error("json.Unmarshal of 3-28: no error")
	}
}
