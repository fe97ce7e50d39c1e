package session

import (
	"errors"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

func TestParseServerVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"15.18 (Debian 15.18-1)", 15},
		{"15.18 (Debian 15.18-0+deb12u1)", 15},
		{"10.23", 10},
		{"19rc1", 19},
		{"19beta2", 19},
		{"18devel", 18},
		{"17.0", 17},
		{"21.1", 21}, // newer than the codec: still the server's major
	} {
		got, err := ParseServerVersion(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseServerVersion(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"9.6.24", "8.4", "", "devel", " 15.1", "v15", "99999999999999999999999"} {
		got, err := ParseServerVersion(in)
		if !errors.Is(err, ErrServerVersion) {
			t.Errorf("ParseServerVersion(%q) = %d, %v; want ErrServerVersion", in, got, err)
		}
	}
}

func TestLayout(t *testing.T) {
	for major, want := range map[int]int{
		codec.OldestMajor: codec.OldestMajor, 15: 15, codec.NewestMajor: codec.NewestMajor,
		codec.NewestMajor + 1: 0, 9: 0,
	} {
		if got := Layout(major); got != want {
			t.Errorf("Layout(%d) = %d, want %d", major, got, want)
		}
	}
}

func TestProtocolVersion(t *testing.T) {
	if Protocol30 != 196608 || Protocol32 != 196610 {
		t.Errorf("Protocol30, Protocol32 = %d, %d; want 196608, 196610 (3<<16, 3<<16|2)", Protocol30, Protocol32)
	}
	if s := Protocol32.String(); s != "3.2" {
		t.Errorf("Protocol32.String() = %q", s)
	}
	if Protocol32.Major() != 3 || Protocol32.Minor() != 2 || Protocol30.Minor() != 0 {
		t.Errorf("Major/Minor of 3.2 = %d.%d, minor of 3.0 = %d", Protocol32.Major(), Protocol32.Minor(), Protocol30.Minor())
	}
}
