package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/spec"
)

// The tests in this file pin, with bytes written by hand from the manual,
// every condition the generated code tests: the streaming states and
// pgoutput versions that put a field on the wire, the choices and what
// depends on them, the protocol minor that bounds a cancel key, and the
// majors whose layout a message has. make mutate removes or inverts each
// condition in turn; one of these (or another codec test) must then fail.

// xidCarrier is a pgoutput message that carries the xid of a streamed
// transaction right after its tag (PostgreSQL 14 on), and its bytes after
// the xid.
type xidCarrier struct {
	name string
	tag  byte
	new  func() codec.Message
	rest []byte
}

var xidCarriers = []xidCarrier{
	{"Insert", 'I', func() codec.Message { return &codec.LogicalInsert{} },
		cat(be32(16384), 'N', be16(0))}, // relation, Byte1('N'), TupleData of no columns
	{"Update", 'U', func() codec.Message { return &codec.LogicalUpdate{} },
		cat(be32(16384), 'N', be16(0))}, // relation, no old tuple, Byte1('N'), new tuple
	{"Delete", 'D', func() codec.Message { return &codec.LogicalDelete{} },
		cat(be32(16384), 'K', be16(0))}, // relation, Byte1('K'), the key
	{"Truncate", 'T', func() codec.Message { return &codec.LogicalTruncate{} },
		cat(be32(1), byte(0), be32(16384))}, // Int32 relations, Int8 options, Int32[] relation OIDs
	{"Message", 'M', func() codec.Message { return &codec.LogicalMessage{} },
		cat(byte(1), be64(0x10), cstr("p"), be32(1), "x")}, // flags, LSN, prefix, Int32 length, content
	{"Relation", 'R', func() codec.Message { return &codec.LogicalRelation{} },
		cat(be32(16384), cstr("public"), cstr("t"), 'd', be16(0))}, // OID, namespace, name, replica identity, no columns
	{"Type", 'Y', func() codec.Message { return &codec.LogicalType{} },
		cat(be32(25), cstr("pg_catalog"), cstr("text"))}, // OID, namespace, name
}

// TestStreamedXid: the xid is on the wire exactly inside a streamed
// transaction of protocol version 2 or later ("only present for streamed
// transactions", "available since protocol version 2"), from PostgreSQL 14
// on, in every message that has it.
func TestStreamedXid(t *testing.T) {
	const xid = 0x0a0b0c0d
	for _, m := range xidCarriers {
		for _, major := range []int{14, 19} {
			for _, c := range []struct {
				p       codec.Params
				present bool
			}{
				{codec.Params{LogicalVersion: 2, Streaming: codec.Streamed}, true},
				{codec.Params{LogicalVersion: 4, Streaming: codec.Streamed | codec.ParallelStreaming}, true},
				{codec.Params{LogicalVersion: 2}, false},                                     // not inside a streamed transaction
				{codec.Params{LogicalVersion: 1, Streaming: codec.Streamed}, false},          // version 1 has no streaming
				{codec.Params{LogicalVersion: 4, Streaming: codec.ParallelStreaming}, false}, // parallel, but not streamed
			} {
				c.p.Major = major
				wire := cat(m.tag, m.rest)
				if c.present {
					wire = cat(m.tag, be32(xid), m.rest)
				}
				name := fmt.Sprintf("%s %d v%d streaming=%d", m.name, major, c.p.LogicalVersion, c.p.Streaming)
				got := decodeEncode(t, name, m.new(), wire, c.p)
				if got == nil {
					continue
				}
				want := uint64(0)
				if c.present {
					want = xid
				}
				if x := reflect.ValueOf(got).Elem().FieldByName("Xid").Uint(); x != want {
					t.Errorf("%s: Xid %#x, want %#x", name, x, want)
				}
			}
		}
		// Before 14 no message carries it, whatever the state (Message
		// came with 14).
		p := codec.Params{Major: 13, LogicalVersion: 2, Streaming: codec.Streamed}
		if m.name == "Message" {
			continue
		}
		decodeEncode(t, m.name+" 13", m.new(), cat(m.tag, m.rest), p)
		if err := m.new().Decode(cat(m.tag, be32(xid), m.rest), p); err == nil {
			t.Errorf("%s 13: a streamed xid decodes, but 13's layout has none", m.name)
		}
	}
}

// TestStreamAbortParallel: Stream Abort carries the abort LSN and time from
// PostgreSQL 16 on, only with parallel streaming (protocol version 4).
func TestStreamAbortParallel(t *testing.T) {
	head := cat('A', be32(700), be32(701)) // Byte1('A'), Int32 xid, Int32 subtransaction xid
	full := cat(head, be64(0x1234), be64(99))
	for _, c := range []struct {
		major   int
		p       codec.Params
		present bool
	}{
		{16, codec.Params{LogicalVersion: 4, Streaming: codec.ParallelStreaming}, true},
		{19, codec.Params{LogicalVersion: 4, Streaming: codec.Streamed | codec.ParallelStreaming}, true},
		{16, codec.Params{LogicalVersion: 3, Streaming: codec.ParallelStreaming}, false}, // parallel needs version 4
		{16, codec.Params{LogicalVersion: 4, Streaming: codec.Streamed}, false},          // streamed, not parallel
		{15, codec.Params{LogicalVersion: 4, Streaming: codec.ParallelStreaming}, false}, // 14–15 have no such fields
	} {
		c.p.Major = c.major
		want := &codec.LogicalStreamAbort{Xid: 700, SubXid: 701}
		wire := head
		if c.present {
			want.AbortLSN, want.AbortTime, wire = 0x1234, 99, full
		}
		name := fmt.Sprintf("Stream Abort %d v%d streaming=%d", c.major, c.p.LogicalVersion, c.p.Streaming)
		if got := decodeEncode(t, name, &codec.LogicalStreamAbort{AbortLSN: 5, AbortTime: 6}, wire, c.p); got != nil && !same(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

// TestOldTupleChoice: Update carries a 'K' or an 'O' old tuple or neither,
// Delete exactly one of them; the old tuple follows its byte and only it.
func TestOldTupleChoice(t *testing.T) {
	key := cat(be16(1), 't', be32(1), "k") // TupleData: one text column "k"
	keyTuple := codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("k")}}}
	newTuple := cat('N', be16(0)) // Byte1('N'), TupleData of no columns
	for _, major := range []int{10, 14} {
		for _, kind := range []byte{'K', 'O'} {
			p := codec.Params{Major: major}
			name := fmt.Sprintf("Update %d %c", major, kind)
			want := &codec.LogicalUpdate{RelationOID: 7, OldKind: kind, Old: keyTuple}
			if got := decodeEncode(t, name, &codec.LogicalUpdate{}, cat('U', be32(7), kind, key, newTuple), p); got != nil && !same(got, want) {
				t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
			}
			name = fmt.Sprintf("Delete %d %c", major, kind)
			wantD := &codec.LogicalDelete{RelationOID: 7, OldKind: kind, Old: keyTuple}
			if got := decodeEncode(t, name, &codec.LogicalDelete{}, cat('D', be32(7), kind, key), p); got != nil && !same(got, wantD) {
				t.Errorf("%s:\n got %+v\nwant %+v", name, got, wantD)
			}
		}
		p := codec.Params{Major: major}
		name := fmt.Sprintf("Update %d without old tuple", major)
		reused := &codec.LogicalUpdate{OldKind: 'K', Old: keyTuple}
		if got := decodeEncode(t, name, reused, cat('U', be32(7), newTuple), p); got != nil && !same(got, &codec.LogicalUpdate{RelationOID: 7}) {
			t.Errorf("%s: got %+v", name, got)
		}
		for _, bad := range []struct {
			name string
			msg  codec.Message
			wire []byte
		}{
			{"Update with 'X' for the old tuple", &codec.LogicalUpdate{}, cat('U', be32(7), 'X', key, newTuple)},
			{"Delete without 'K' or 'O'", &codec.LogicalDelete{}, cat('D', be32(7), key)},
			{"Delete with 'N'", &codec.LogicalDelete{}, cat('D', be32(7), 'N', key)},
		} {
			if err := bad.msg.Decode(bad.wire, p); err == nil {
				t.Errorf("%d: %s decodes", major, bad.name)
			}
		}
	}
}

// TestTupleDataKinds: a column is 'n', 'u', 't' or (from 14) 'b'; only 't'
// and 'b' carry a length and a value.
func TestTupleDataKinds(t *testing.T) {
	insert := func(tuple []byte) []byte { return cat('I', be32(7), 'N', tuple) }
	text := codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'n'}, {Kind: 'u'}, {Kind: 't', Data: []byte("42")}}}
	textWire := cat(be16(3), 'n', 'u', 't', be32(2), "42")
	for _, major := range []int{10, 13, 14, 19} {
		p := codec.Params{Major: major}
		name := fmt.Sprintf("Insert %d n u t", major)
		if got := decodeEncode(t, name, &codec.LogicalInsert{}, insert(textWire), p); got != nil && !same(got, &codec.LogicalInsert{RelationOID: 7, New: text}) {
			t.Errorf("%s: got %+v", name, got)
		}
		binary := insert(cat(be16(1), 'b', be32(2), []byte{0, 42}))
		if major < 14 {
			if err := new(codec.LogicalInsert).Decode(binary, p); err == nil {
				t.Errorf("%d: a binary column decodes before 14", major)
			}
		} else {
			want := &codec.LogicalInsert{RelationOID: 7, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'b', Data: []byte{0, 42}}}}}
			if got := decodeEncode(t, fmt.Sprintf("Insert %d b", major), &codec.LogicalInsert{}, binary, p); got != nil && !same(got, want) {
				t.Errorf("%d b: got %+v", major, got)
			}
		}
		if err := new(codec.LogicalInsert).Decode(insert(cat(be16(1), 'x')), p); err == nil {
			t.Errorf("%d: a column of kind 'x' decodes", major)
		}
		// NULL is 'n': a text value's length is never -1.
		if err := new(codec.LogicalInsert).Decode(insert(cat(be16(1), 't', neg1)), p); err == nil {
			t.Errorf("%d: a text column of length -1 decodes", major)
		}
	}
}

// TestSecretKeyByProtocol: from PostgreSQL 18 BackendKeyData's cancel key
// runs to the end of the message, 4 bytes under protocol 3.0 and 4 to 256
// under 3.2; up to 17 it is an Int32.
func TestSecretKeyByProtocol(t *testing.T) {
	keyData := func(key []byte) []byte { return cat('K', be32(uint32(8+len(key))), be32(7), key) }
	for _, c := range []struct {
		major, minor, size int
		ok                 bool
	}{
		{17, 2, 4, true}, {17, 2, 8, false}, // an Int32, whatever the protocol
		{18, 0, 4, true}, {18, 0, 8, false}, {18, 0, 3, false},
		{18, 2, 4, true}, {18, 2, 256, true}, {18, 2, 257, false}, {18, 2, 3, false},
		{19, 1, 8, false}, {19, 2, 32, true},
	} {
		p := codec.Params{Major: c.major, ProtocolMinor: c.minor}
		key := bytes.Repeat([]byte{0xab}, c.size)
		name := fmt.Sprintf("BackendKeyData %d 3.%d %d-byte key", c.major, c.minor, c.size)
		if !c.ok {
			if err := new(codec.BackendKeyData).Decode(keyData(key), p); err == nil {
				t.Errorf("%s decodes", name)
			}
			if _, err := (&codec.BackendKeyData{ProcessID: 7, SecretKey: key}).Encode(nil, p); err == nil {
				t.Errorf("%s encodes", name)
			}
			continue
		}
		decodeEncode(t, name, &codec.BackendKeyData{}, keyData(key), p)
	}
}

// TestCancelRequestByLength: the cancel connection negotiates no protocol,
// so PostgreSQL 18 and 19 take a key of 1 to 256 bytes, whatever protocol
// the session it cancels spoke (backend_startup.c); the codec decodes and
// encodes CancelRequest by its length alone. Up to 17 the key is an Int32.
func TestCancelRequestByLength(t *testing.T) {
	cancel := func(key []byte) []byte { return cat(be32(uint32(12+len(key))), be32(80877102), be32(7), key) }
	for _, c := range []struct {
		major, size int
		ok          bool
	}{
		{17, 4, true}, {17, 8, false}, {17, 3, false},
		{18, 1, true}, {18, 4, true}, {18, 32, true}, {18, 256, true}, {18, 0, false}, {18, 257, false},
		{19, 32, true}, {19, 257, false},
	} {
		key := bytes.Repeat([]byte{0xab}, c.size)
		for _, minor := range []int{0, 2} {
			p := codec.Params{Major: c.major, ProtocolMinor: minor}
			name := fmt.Sprintf("CancelRequest %d 3.%d %d-byte key", c.major, minor, c.size)
			if !c.ok {
				if err := new(codec.CancelRequest).Decode(cancel(key), p); err == nil {
					t.Errorf("%s decodes", name)
				}
				if _, err := (&codec.CancelRequest{ProcessID: 7, SecretKey: key}).Encode(nil, p); err == nil {
					t.Errorf("%s encodes", name)
				}
				continue
			}
			var m codec.CancelRequest
			decodeEncode(t, name, &m, cancel(key), p)
			if !bytes.Equal(m.SecretKey, key) {
				t.Errorf("%s: key %x", name, m.SecretKey)
			}
		}
	}
}

// TestVersionGates: a message decodes and encodes in exactly the majors
// whose manual documents it (spec/pgNN.json, read here independently of the
// generator); in the others both return a *VersionError.
func TestVersionGates(t *testing.T) {
	answers := map[string]string{"ssl-response": "ssl-request", "gssenc-response": "gssenc-request"}
	in := map[string]map[int]bool{}
	specs, err := spec.LoadAll(os.DirFS("../spec"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		for _, m := range s.Messages {
			if in[m.Slug] == nil {
				in[m.Slug] = map[int]bool{}
			}
			in[m.Slug][s.Major] = true
		}
	}
	for _, msg := range codec.NewMessages() {
		for _, s := range specs {
			p := codec.Params{Major: s.Major}
			var ve *codec.VersionError
			_, encErr := msg.Encode(nil, p)
			decErr := msg.Decode(nil, p)
			documented := in[msg.Slug()][s.Major]
			if req, ok := answers[msg.Slug()]; ok { // no table of its own: it comes with its request
				documented = in[req][s.Major]
			}
			if documented == errors.As(encErr, &ve) || documented == errors.As(decErr, &ve) {
				t.Errorf("%s in PostgreSQL %d: documented %t, but Encode says %v and Decode %v", msg.Slug(), s.Major, documented, encErr, decErr)
			}
		}
	}
}

// decodeEncode decodes wire into into (a value that may hold other data),
// checks that encoding the result gives wire back, and returns it; nil
// after reporting a failure.
func decodeEncode(t *testing.T, name string, into codec.Message, wire []byte, p codec.Params) codec.Message {
	t.Helper()
	if err := into.Decode(wire, p); err != nil {
		t.Errorf("%s: Decode: %v", name, err)
		return nil
	}
	enc, err := into.Encode(nil, p)
	if err != nil {
		t.Errorf("%s: Encode: %v", name, err)
		return nil
	}
	if !bytes.Equal(enc, wire) {
		t.Errorf("%s: Encode:\n got % x\nwant % x", name, enc, wire)
		return nil
	}
	return into
}

// TestZeroMajorIsNewestRelease: Params{} means the newest major whose
// manual is a release, as pgspec's --version does, not a release candidate
// (19rc1 while 18.6 is the newest release), read here from the spec
// independently of the generator: a message that major lacks is refused
// naming it, the others encode as under Params{Major: DefaultMajor}.
func TestZeroMajorIsNewestRelease(t *testing.T) {
	specs, err := spec.LoadAll(os.DirFS("../spec"))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range specs {
		if s.Released() {
			want = max(want, s.Major)
		}
	}
	if codec.DefaultMajor != want {
		t.Fatalf("DefaultMajor %d, newest released %d", codec.DefaultMajor, want)
	}
	for _, m := range codec.NewMessages() {
		zero, zeroErr := m.Encode(nil, codec.Params{})
		if !m.Majors().Has(want) {
			if ve := (*codec.VersionError)(nil); !errors.As(zeroErr, &ve) || ve.Major != want {
				t.Errorf("%s (not in %d) under Params{}: %v", m.Slug(), want, zeroErr)
			}
			continue
		}
		def, defErr := m.Encode(nil, codec.Params{Major: want})
		if !bytes.Equal(zero, def) || fmt.Sprint(zeroErr) != fmt.Sprint(defErr) {
			t.Errorf("%s: Params{} gives % x, %v; Params{Major: %d} % x, %v", m.Slug(), zero, zeroErr, want, def, defErr)
		}
	}
	if !(codec.MajorSet(1) << want).Has(0) || (codec.GeneratedMajors &^ (1 << want)).Has(0) {
		t.Error("MajorSet.Has(0) is not DefaultMajor")
	}
	all := ^codec.MajorSet(0) // every bit: only the bounds refuse
	for _, major := range []int{-1, -64, 64, 65, 1 << 40} {
		if all.Has(major) {
			t.Errorf("MajorSet.Has(%d) is true", major)
		}
	}
	if !all.Has(63) || codec.GeneratedMajors.Has(9) {
		t.Error("MajorSet.Has is wrong at 63 or 9")
	}
}
