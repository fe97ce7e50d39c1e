package codec_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// bytesPerRun is testing.AllocsPerRun for bytes: the heap bytes f allocates
// on average per call, after one warm-up call, on one P. TotalAlloc counts
// the whole process, so a goroutine an earlier test left behind, or the
// runtime itself, can add to one measurement but never take away: the
// least of three is what f allocates.
func bytesPerRun(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/uint64(runs))
	}
	return least
}

// msg is a tagged message whose length field covers body.
func msg(tag byte, body ...any) []byte {
	b := cat(body...)
	return cat(tag, be32(uint32(4+len(b))), b)
}

// errorSize bounds what a failed decode may allocate: its *DecodeError
// (six words of strings, an int and an error: 96 bytes) and the field path
// it names when the failure is inside a part or group (New.Columns[0].Kind).
const errorSize = 96 + 32

// TestHostileCountsReserveNothing: a count that claims more elements than
// the input can hold (2^31-1, 2^16-1, 2^15-1 over at most 20 bytes) fails
// before anything is reserved for the elements; a count of 2^31 is negative
// as a signed Int32 and fails too.
func TestHostileCountsReserveNothing(t *testing.T) {
	const i16max, u16max = math.MaxInt16, math.MaxUint16
	for _, c := range []struct {
		name string
		msg  codec.Message
		p    codec.Params
		src  []byte
		err  error
	}{
		{"DataRow 65535 values", &codec.DataRow{}, codec.Params{}, msg('D', be16(u16max), be32(4), "abcd"), codec.ErrCountTooLarge},
		{"DataRow 32767 values", &codec.DataRow{}, codec.Params{}, msg('D', be16(i16max), neg1, neg1), codec.ErrCountTooLarge},
		{"RowDescription 32767 fields", &codec.RowDescription{}, codec.Params{}, msg('T', be16(i16max), cstr("a"), make([]byte, 8)), codec.ErrCountTooLarge},
		{"Bind 32767 format codes", &codec.Bind{}, codec.Params{}, msg('B', cstr(""), cstr(""), be16(i16max), be16(0), be16(0)), codec.ErrCountTooLarge},
		{"Bind 65535 parameters", &codec.Bind{}, codec.Params{}, msg('B', cstr(""), cstr(""), be16(0), be16(u16max), be32(1), "x"), codec.ErrCountTooLarge},
		{"ParameterDescription 32767 OIDs", &codec.ParameterDescription{}, codec.Params{}, msg('t', be16(i16max), be32(23), be32(25)), codec.ErrCountTooLarge},
		{"FunctionCall 65535 arguments", &codec.FunctionCall{}, codec.Params{}, msg('F', be32(1598), be16(0), be16(u16max), neg1, be16(0)), codec.ErrCountTooLarge},
		{"CopyInResponse 32767 columns", &codec.CopyInResponse{}, codec.Params{}, msg('G', byte(0), be16(i16max), be16(0)), codec.ErrCountTooLarge},
		{"NegotiateProtocolVersion 2^31-1 options", &codec.NegotiateProtocolVersion{}, codec.Params{}, msg('v', be32(0), be32(math.MaxInt32), cstr("_pq_.a")), codec.ErrCountTooLarge},
		{"NegotiateProtocolVersion 2^31 options", &codec.NegotiateProtocolVersion{}, codec.Params{}, msg('v', be32(0), be32(1<<31), cstr("_pq_.a")), codec.ErrNegativeCount},
		{"Relation 32767 columns", &codec.LogicalRelation{}, codec.Params{Major: 16}, cat('R', be32(16384), cstr("public"), cstr("t"), 'd', be16(i16max), byte(0)), codec.ErrCountTooLarge},
		{"Truncate 2^31-1 relations", &codec.LogicalTruncate{}, codec.Params{Major: 16}, cat('T', be32(math.MaxInt32), byte(0), be32(16384)), codec.ErrCountTooLarge},
		{"Truncate 2^31 relations", &codec.LogicalTruncate{}, codec.Params{Major: 16}, cat('T', be32(1<<31), byte(0), be32(16384)), codec.ErrNegativeCount},
		{"TupleData 32767 columns", &codec.LogicalInsert{}, codec.Params{Major: 16}, cat('I', be32(16384), 'N', be16(i16max), 'n', 'n', 'u'), codec.ErrCountTooLarge},
		{"old TupleData 65535 columns", &codec.LogicalUpdate{}, codec.Params{Major: 16}, cat('U', be32(16384), 'O', be16(u16max), 'n', 'N', be16(0)), codec.ErrCountTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.src) > 20 {
				t.Fatalf("the input has %d bytes, want at most 20", len(c.src))
			}
			var err error
			n := bytesPerRun(100, func() { err = c.msg.Decode(c.src, c.p) })
			if !errors.Is(err, c.err) {
				t.Fatalf("got %v, want %v", err, c.err)
			}
			if n > errorSize {
				t.Errorf("%d bytes allocated per decode of %d bytes", n, len(c.src))
			}
		})
	}
}

// maxBytesPerInputByte is the most a decode into a new value may allocate
// per input byte: the densest element is a TupleData column, a 32-byte Go
// value that a 1-byte 'n' or 'u' on the wire fills, and the allocator
// rounds a large slice up to its size class by at most an eighth.
const maxBytesPerInputByte = 32 * 9 / 8

// denseInputs pack as many elements as their message allows into a few
// kilobytes: the worst case for what a decoder allocates per input byte.
func denseInputs() []vector {
	const n = 1000
	var nulls, kinds, fields, options, mechanisms, params []byte
	for i := range n {
		nulls = append(nulls, neg1...)
		kinds = append(kinds, "nu"[i%2])
		fields = append(fields, cat(cstr("a"), be32(0), be16(0), be32(0), be16(0), be32(0), be16(0))...)
		options = append(options, 'o', 0)
		mechanisms = append(mechanisms, 'm', 0)
		params = append(params, 'k', 0, 0)
	}
	return []vector{
		{"DataRow of NULLs", codec.Params{}, &codec.DataRow{}, msg('D', be16(n), nulls)},
		{"RowDescription", codec.Params{}, &codec.RowDescription{}, msg('T', be16(n), fields)},
		{"Insert of NULL and unchanged columns", codec.Params{Major: 16}, &codec.LogicalInsert{}, cat('I', be32(1), 'N', be16(n), kinds)},
		{"NegotiateProtocolVersion", codec.Params{}, &codec.NegotiateProtocolVersion{}, msg('v', be32(0), be32(n), options)},
		{"AuthenticationSASL", codec.Params{}, &codec.AuthenticationSASL{}, msg('R', be32(10), mechanisms, byte(0))},
		{"StartupMessage", codec.Params{}, &codec.StartupMessage{}, untagged(be32(196608), params, byte(0))},
		{"ErrorResponse", codec.Params{}, &codec.ErrorResponse{}, msg('E', options, byte(0))},
	}
}

// TestDecodeAllocationIsProportional: decoding into a new value allocates
// at most maxBytesPerInputByte per input byte, for the densest inputs and
// for every hand-written vector.
func TestDecodeAllocationIsProportional(t *testing.T) {
	for _, v := range append(denseInputs(), vectors...) {
		if err := newLike(v.msg).Decode(v.wire, v.p); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		n := bytesPerRun(20, func() { _ = newLike(v.msg).Decode(v.wire, v.p) })
		// The new value itself is allocated too.
		if limit := maxBytesPerInputByte*uint64(len(v.wire)) + 256; n > limit {
			t.Errorf("%s: %d bytes allocated for %d input bytes (limit %d)", v.name, n, len(v.wire), limit)
		}
	}
}

// TestReusedValuesAllocateNothing: decoding into a value that already
// decoded the message once (its slices grown), and encoding into a buffer
// with room, allocate nothing: for every hand-written vector and every
// message pgproto3 shares (the benchmarked set).
func TestReusedValuesAllocateNothing(t *testing.T) {
	for _, v := range vectors {
		noAllocs(t, v.name, v.msg, v.wire, v.p)
	}
	for _, c := range pgproto3Pairs {
		wire, err := c.ours.Encode(nil, c.p)
		if err != nil {
			t.Fatal(err)
		}
		noAllocs(t, c.ours.Slug(), c.ours, wire, c.p)
	}
}

// noAllocs decodes wire into a fresh value like msg once, then checks that
// decoding it again and encoding it back into a buffer with room allocate
// nothing and give wire back.
func noAllocs(t *testing.T, name string, msg codec.Message, wire []byte, p codec.Params) {
	t.Helper()
	m := newLike(msg)
	if err := m.Decode(wire, p); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if n := testing.AllocsPerRun(50, func() { _ = m.Decode(wire, p) }); n != 0 {
		t.Errorf("%s: %v allocations per decode into a reused value", name, n)
	}
	buf := make([]byte, 0, 2*len(wire))
	if n := testing.AllocsPerRun(50, func() {
		out, err := m.Encode(buf[:0], p)
		if err != nil || !bytes.Equal(out, wire) {
			t.Fatalf("%s: % x, %v", name, out, err)
		}
	}); n != 0 {
		t.Errorf("%s: %v allocations per encode into a buffer with room", name, n)
	}
}

// countingReader serves a header and then as many body bytes as asked
// for, counting what it hands out.
type countingReader struct {
	header []byte
	read   int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n := copy(p, c.header[min(c.read, len(c.header)):])
	if n == 0 {
		clear(p) // the body: zeros, without end
		n = len(p)
	}
	c.read += n
	return n, nil
}

// TestFrameRefusesOversizeBeforeBody: a length above MaxSize is refused
// from the header, with a typed error, having read nothing past the header
// and allocated only the frame reader's buffer.
func TestFrameRefusesOversizeBeforeBody(t *testing.T) {
	const maxSize = 1 << 20
	for _, c := range []struct {
		name     string
		header   []byte
		untagged bool
		tag      byte
		length   int
	}{
		{"DataRow of 1 GiB", cat('D', be32(1<<30)), false, 'D', 1 << 30},
		{"CopyData one byte over", cat('d', be32(maxSize)), false, 'd', maxSize},
		{"StartupMessage of 512 MiB", be32(1 << 29), true, 0, 1 << 29},
	} {
		t.Run(c.name, func(t *testing.T) {
			var src *countingReader
			var err error
			allocated := bytesPerRun(10, func() {
				src = &countingReader{header: c.header}
				f := codec.NewFrameReader(src)
				f.MaxSize = maxSize
				if c.untagged {
					_, err = f.NextUntagged()
				} else {
					_, err = f.Next()
				}
			})
			var fe *codec.FrameError
			if !errors.As(err, &fe) || !errors.Is(err, codec.ErrTooLong) || fe.Tag != c.tag || fe.Length != c.length || fe.Max != maxSize {
				t.Fatalf("got %#v", err)
			}
			if src.read != len(c.header) {
				t.Errorf("read %d bytes past the header before refusing", src.read-len(c.header))
			}
			if allocated > 16<<10 {
				t.Errorf("allocated %d bytes before refusing", allocated)
			}
		})
	}
}

// TestFrameBufferFollowsArrivals: a length within MaxSize but far beyond
// what arrives grows the buffer only as bytes arrive.
func TestFrameBufferFollowsArrivals(t *testing.T) {
	stream := cat('D', be32(512<<20), be16(1), be32(10)) // 512 MiB announced, 11 bytes sent
	var err error
	allocated := bytesPerRun(10, func() {
		_, err = codec.NewFrameReader(bytes.NewReader(stream)).Next()
	})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	if allocated > 16<<10 {
		t.Errorf("allocated %d bytes for an 11-byte stream", allocated)
	}
}

// TestFrameRefusesBufferedOversize: a message above MaxSize is refused even
// when all of it arrived in one read with the messages before it.
func TestFrameRefusesBufferedOversize(t *testing.T) {
	small := msg('Z', byte('I'))
	big := msg('d', bytes.Repeat([]byte{'x'}, 100))
	f := codec.NewFrameReader(bytes.NewReader(cat(small, big)))
	f.MaxSize = 64
	if got, err := f.Next(); err != nil || !bytes.Equal(got, small) {
		t.Fatalf("first message: % x, %v", got, err)
	}
	_, err := f.Next()
	var fe *codec.FrameError
	if !errors.As(err, &fe) || !errors.Is(err, codec.ErrTooLong) || fe.Tag != 'd' || fe.Length != 104 {
		t.Fatalf("got %v", err)
	}
}

// heapAfterGC is the heap in use after two collections (sync.Pool keeps
// what it holds through one).
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return s.HeapInuse
}

// TestTerminatedListsAllocateOnce: a zero-terminated list without a count
// (ErrorResponse's fields, StartupMessage's parameters, SASL mechanisms)
// is sized once, so decoding it into a new value allocates its elements
// and little more: an element's Go size per element, rounded up to the
// allocator's size class (at most an eighth more), plus the value.
func TestTerminatedListsAllocateOnce(t *testing.T) {
	const n = 1000
	var fields, params, mechs []byte
	for range n {
		fields = append(fields, 'o', 0)
		params = append(params, 'k', 0, 0)
		mechs = append(mechs, 'm', 0)
	}
	for _, c := range []struct {
		name     string
		msg      codec.Message
		src      []byte
		elemSize int
	}{
		{"ErrorResponse", &codec.ErrorResponse{}, msg('E', fields, byte(0)), 24},
		{"NoticeResponse", &codec.NoticeResponse{}, msg('N', fields, byte(0)), 24},
		{"StartupMessage", &codec.StartupMessage{}, cat(be32(uint32(9+len(params))), be32(196608), params, byte(0)), 32},
		{"AuthenticationSASL", &codec.AuthenticationSASL{}, msg('R', be32(10), mechs, byte(0)), 16},
	} {
		if err := newLike(c.msg).Decode(c.src, codec.Params{}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := bytesPerRun(20, func() { _ = newLike(c.msg).Decode(c.src, codec.Params{}) })
		if limit := uint64(n*c.elemSize*9/8) + 256; got > limit {
			t.Errorf("%s: %d bytes allocated for %d elements (%d input bytes), want at most %d", c.name, got, n, len(c.src), limit)
		}
	}
}
