package codec_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// decoder is what every generated dispatcher offers.
type decoder interface {
	Decode(src []byte, p codec.Params) (codec.Message, error)
}

func TestDispatchVectors(t *testing.T) {
	dispatchers := map[string]decoder{
		"Backend": &codec.Backend{}, "Frontend": &codec.Frontend{Auth: codec.AuthSASLInitial}, "Startup": &codec.Startup{},
		"Logical": &codec.Logical{}, "ReplicationBackend": &codec.ReplicationBackend{}, "ReplicationFrontend": &codec.ReplicationFrontend{},
	}
	for _, v := range vectors {
		if _, ok := v.msg.(*codec.TupleData); ok {
			continue
		}
		found := 0
		for name, d := range dispatchers {
			m, err := d.Decode(v.wire, v.p)
			if err != nil || reflect.TypeOf(m) != reflect.TypeOf(v.msg) {
				continue
			}
			found++
			if !same(m, v.msg) {
				t.Errorf("%s via %s: got %+v", v.name, name, m)
			}
		}
		if found != 1 {
			t.Errorf("%s: %d dispatchers decode it as %T, want 1", v.name, found, v.msg)
		}
	}
}

func TestBackendAuthenticationSubtypes(t *testing.T) {
	var d codec.Backend
	for code, want := range map[uint32]codec.Message{
		0: &codec.AuthenticationOk{}, 2: &codec.AuthenticationKerberosV5{}, 3: &codec.AuthenticationCleartextPassword{},
		7: &codec.AuthenticationGSS{}, 9: &codec.AuthenticationSSPI{},
	} {
		m, err := d.Decode(cat('R', be32(8), be32(code)), codec.Params{})
		if err != nil || reflect.TypeOf(m) != reflect.TypeOf(want) {
			t.Errorf("subtype %d: got %T, %v", code, m, err)
		}
	}
	m, err := d.Decode(cat('R', be32(8), be32(6)), codec.Params{Major: 15})
	if _, ok := m.(*codec.AuthenticationSCMCredential); !ok || err != nil {
		t.Errorf("SCM credential in 15: %T %v", m, err)
	}
	var ve *codec.VersionError
	if _, err := d.Decode(cat('R', be32(8), be32(6)), codec.Params{Major: 16}); !errors.As(err, &ve) {
		t.Errorf("SCM credential in 16: %v, want a VersionError", err)
	}
	for _, c := range []struct {
		src    []byte
		err    error
		field  string
		offset int
	}{
		{cat('R', be32(8), be32(99)), codec.ErrUnknownTag, "subtype", 5},
		{cat('R', be32(8)), codec.ErrTruncated, "subtype", 5}, // the subtype starts after tag and length
		{cat('Q', be32(4)), codec.ErrUnknownTag, "tag", 0},
		{nil, codec.ErrTruncated, "tag", 0},
	} {
		_, err := d.Decode(c.src, codec.Params{})
		var de *codec.DecodeError
		if !errors.As(err, &de) || !errors.Is(err, c.err) || de.Field != c.field || de.Offset != c.offset {
			t.Errorf("% x: got %v", c.src, err)
		}
	}
}

func TestFrontendPasswordByAuthState(t *testing.T) {
	src := cat('p', be32(4+4), "abc", byte(0))
	for state, want := range map[codec.AuthState]codec.Message{
		codec.AuthPassword: &codec.PasswordMessage{Password: "abc"},
		codec.AuthSASL:     &codec.SASLResponse{Data: []byte("abc\x00")},
		codec.AuthGSS:      &codec.GSSResponse{Data: []byte("abc\x00")},
	} {
		d := codec.Frontend{Auth: state}
		m, err := d.Decode(src, codec.Params{})
		if err != nil || !same(m, want) {
			t.Errorf("state %d: got %#v, %v", state, m, err)
		}
	}
	d := codec.Frontend{Auth: codec.AuthSASLInitial}
	m, err := d.Decode(cat('p', be32(4+6+4+1), cstr("SCRAM"), be32(1), "x"), codec.Params{})
	if want := (&codec.SASLInitialResponse{AuthMechanism: "SCRAM", Data: []byte("x")}); err != nil || !same(m, want) {
		t.Errorf("SASL initial: got %#v, %v", m, err)
	}
	if _, err := (&codec.Frontend{}).Decode(src, codec.Params{}); !errors.Is(err, codec.ErrUnknownTag) {
		t.Errorf("no state: got %v", err)
	}
}

func TestStartupByRequestCode(t *testing.T) {
	var d codec.Startup
	for _, c := range []struct {
		src  []byte
		want codec.Message
	}{
		{cat(be32(8), be32(80877103)), &codec.SSLRequest{}},
		{cat(be32(8), be32(80877104)), &codec.GSSEncRequest{}},
		{cat(be32(16), be32(80877102), be32(1), be32(2)), &codec.CancelRequest{ProcessID: 1, SecretKey: be32(2)}},
		{cat(be32(4+4+1), be32(196608), byte(0)), &codec.StartupMessage{ProtocolVersion: 196608}},
	} {
		m, err := d.Decode(c.src, codec.Params{})
		if err != nil || !same(m, c.want) {
			t.Errorf("% x: got %#v, %v", c.src, m, err)
		}
	}
	if _, err := d.Decode(be32(8), codec.Params{}); !errors.Is(err, codec.ErrTruncated) {
		t.Errorf("short startup: %v", err)
	}
}

// TestReplicationDirection: 19 uses 'p' from the server (base backup
// progress) and from the client (primary status request).
func TestReplicationDirection(t *testing.T) {
	p := codec.Params{Major: 19}
	m, err := (&codec.ReplicationBackend{}).Decode(cat('p', be64(5)), p)
	if want := (&codec.BackupProgress{BytesDone: 5}); err != nil || !same(m, want) {
		t.Errorf("backend 'p': %#v %v", m, err)
	}
	m, err = (&codec.ReplicationFrontend{}).Decode(cat('p', be64(5)), p)
	if want := (&codec.RequestPrimaryStatusUpdate{ClientTime: 5}); err != nil || !same(m, want) {
		t.Errorf("frontend 'p': %#v %v", m, err)
	}
}

func TestDispatchReusesValues(t *testing.T) {
	var d codec.Backend
	src := cat('D', be32(4+2+5+4), be16(2), be32(1), "x", neg1)
	first, _ := d.Decode(src, codec.Params{})
	allocs := testing.AllocsPerRun(100, func() {
		m, err := d.Decode(src, codec.Params{})
		if err != nil || m != first {
			t.Fatal("not the same value", err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per decode", allocs)
	}
}
