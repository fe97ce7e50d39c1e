package codec_test

import (
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// seed adds every vector and pgproto3 pair that the filter accepts.
func seed(f *testing.F, accept func(codec.Message) bool) {
	for _, v := range vectors {
		if accept(v.msg) {
			f.Add(v.wire, uint8(v.p.Major), uint8(v.p.ProtocolMinor), uint8(v.p.Streaming))
		}
	}
	for _, c := range pgproto3Pairs {
		if accept(c.ours) {
			wire, _ := c.ours.Encode(nil, c.p)
			f.Add(wire, uint8(c.p.Major), uint8(c.p.ProtocolMinor), uint8(0))
		}
	}
}

// params spreads fuzzed bytes (fuzzParams packs them into one; these
// targets take them apart) over the majors and states.
func params(major, minor, fl uint8) codec.Params {
	return codec.Params{Major: codec.OldestMajor + int(major)%(codec.NewestMajor-codec.OldestMajor+1), ProtocolMinor: int(minor % 3),
		LogicalVersion: 4, Streaming: codec.Streaming(fl & 3)}
}

func layer(slugPrefix string, in bool) func(codec.Message) bool {
	return func(m codec.Message) bool {
		return (len(m.Slug()) >= len(slugPrefix) && m.Slug()[:len(slugPrefix)] == slugPrefix) == in
	}
}

func FuzzBackend(f *testing.F) {
	seed(f, func(m codec.Message) bool {
		_, err := (&codec.Backend{}).Decode(mustEncode(m), codec.Params{Major: 18, ProtocolMinor: 2})
		return err == nil
	})
	var d, again codec.Backend
	f.Fuzz(func(t *testing.T, data []byte, major, minor, fl uint8) {
		fixpoint(t, &d, &again, data, params(major, minor, fl))
	})
}

func FuzzFrontend(f *testing.F) {
	seed(f, layer("logical-", false))
	f.Fuzz(func(t *testing.T, data []byte, major, minor, fl uint8) {
		p := params(major, minor, fl)
		auth := codec.AuthState(fl % 5)
		fixpoint(t, &codec.Frontend{Auth: auth}, &codec.Frontend{Auth: auth}, data, p)
		fixpoint(t, &codec.Startup{}, &codec.Startup{}, data, p)
	})
}

func FuzzLogical(f *testing.F) {
	seed(f, layer("logical-", true))
	var d, again codec.Logical
	f.Fuzz(func(t *testing.T, data []byte, major, minor, fl uint8) {
		fixpoint(t, &d, &again, data, params(major, minor, fl))
	})
}

func FuzzReplication(f *testing.F) {
	seed(f, layer("replication-", true))
	var b, b2 codec.ReplicationBackend
	var fr, fr2 codec.ReplicationFrontend
	f.Fuzz(func(t *testing.T, data []byte, major, minor, fl uint8) {
		p := params(major, minor, fl)
		fixpoint(t, &b, &b2, data, p)
		fixpoint(t, &fr, &fr2, data, p)
	})
}

// mustEncode encodes m with the newest layout, for seeding.
func mustEncode(m codec.Message) []byte {
	b, _ := m.Encode(nil, codec.Params{Major: 18, ProtocolMinor: 2})
	return b
}
