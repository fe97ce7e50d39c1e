package codec_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgspec/pgspec/codec"
)

// serverStream is what the server sent on one recorded connection, and what
// a client knows when it reads it: the Params to decode with and how many
// one-byte answers (to SSLRequest, GSSENCRequest) open the stream.
type serverStream struct {
	p       codec.Params
	answers int
	bytes   []byte
}

// sessionStreams reads testdata/sessions.bin, the server streams of the
// committed session captures of PostgreSQL 13, 15, 17, 18 and 19 (written
// and kept equal to the captures by internal/trace's TestSessionsFixture,
// which describes the format).
func sessionStreams(tb testing.TB) []serverStream {
	b, err := os.ReadFile("testdata/sessions.bin")
	if err != nil {
		tb.Fatal(err)
	}
	var streams []serverStream
	for len(b) > 0 {
		if len(b) < 10 || len(b)-10 < int(binary.BigEndian.Uint32(b[6:])) {
			tb.Fatalf("sessions.bin: a record is cut short at %d bytes", len(b))
		}
		n := int(binary.BigEndian.Uint32(b[6:]))
		streams = append(streams, serverStream{
			p:       codec.Params{Major: int(binary.BigEndian.Uint16(b)), ProtocolMinor: int(binary.BigEndian.Uint16(b[2:]))},
			answers: int(binary.BigEndian.Uint16(b[4:])),
			bytes:   b[10 : 10+n : 10+n],
		})
		b = b[10+n:]
	}
	return streams
}

// readSessionPgspec reads one connection's server stream as a pgspec client
// does, with a FrameReader and a Backend of its own, and returns how many
// tagged messages it decoded.
func readSessionPgspec(tb testing.TB, src io.Reader, s serverStream) (n int) {
	f := codec.NewFrameReader(src)
	var d codec.Backend
	for range s.answers {
		if b, err := f.NextByte(); err != nil || b[0] != 'N' {
			tb.Fatalf("the answer to SSLRequest: %q, %v", b, err)
		}
	}
	for {
		frame, err := f.Next()
		if err == io.EOF {
			return n
		} else if err != nil {
			tb.Fatal(err)
		}
		if _, err := d.Decode(frame, s.p); err != nil {
			tb.Fatal(err)
		}
		n++
	}
}

// readSessionPgproto3 reads it as pgx does: the one-byte answers straight
// from the connection, then a Frontend of its own. Its Receive reports
// any end of stream as io.ErrUnexpectedEOF; BenchmarkSessions checks that
// it read as many messages as pgspec, whose io.EOF is a clean end.
func readSessionPgproto3(tb testing.TB, src io.Reader, s serverStream) (n int) {
	var answer [1]byte
	for range s.answers {
		if _, err := io.ReadFull(src, answer[:]); err != nil || answer[0] != 'N' {
			tb.Fatalf("the answer to SSLRequest: %q, %v", answer, err)
		}
	}
	f := pgproto3.NewFrontend(src, io.Discard)
	for {
		if _, err := f.Receive(); err == io.ErrUnexpectedEOF {
			return n
		} else if err != nil {
			tb.Fatal(err)
		}
		n++
	}
}

// BenchmarkSessions is real traffic: every server stream of the committed
// session captures (authentication, ParameterStatus, simple and extended
// queries, COPY, errors; about 70 short connections), each read from an
// io.Reader through a new reader and decoder, as each connection of a
// client has them. Both implementations must read the same messages.
func BenchmarkSessions(b *testing.B) {
	streams := sessionStreams(b)
	total, messages := 0, 0
	for _, s := range streams {
		total += len(s.bytes)
		ours := readSessionPgspec(b, bytes.NewReader(s.bytes), s)
		if theirs := readSessionPgproto3(b, bytes.NewReader(s.bytes), s); ours != theirs {
			b.Fatalf("pgspec reads %d messages, pgproto3 %d", ours, theirs)
		}
		messages += ours
	}
	for _, impl := range []struct {
		name string
		read func(testing.TB, io.Reader, serverStream) int
	}{{"pgspec", readSessionPgspec}, {"pgproto3", readSessionPgproto3}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var src bytes.Reader
			b.ReportAllocs()
			b.SetBytes(int64(total))
			for b.Loop() {
				for _, s := range streams {
					src.Reset(s.bytes)
					impl.read(b, &src, s)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*messages), "ns/msg")
		})
	}
}

// TestSessionsAllocateNothing: over the real traffic of the session
// captures, in steady state (a Backend that has seen the traffic once, as
// a pool's decoders or a long connection have), a new FrameReader per
// connection and every message decoded cost no allocation at all: the
// FrameReader's buffer comes from a pool and goes back at the end of its
// stream, strings come from the intern table (checked to be copies by
// TestDecodedStringsOwnNoInput), slices are reused.
func TestSessionsAllocateNothing(t *testing.T) {
	streams := sessionStreams(t)
	var src bytes.Reader
	var d codec.Backend
	pass := func() {
		for _, s := range streams {
			src.Reset(s.bytes)
			f := codec.NewFrameReader(&src)
			for range s.answers {
				f.NextByte()
			}
			for {
				frame, err := f.Next()
				if err == io.EOF {
					break
				}
				if _, err := d.Decode(frame, s.p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if n := testing.AllocsPerRun(10, pass); n != 0 {
		t.Errorf("%v allocations per pass over %d connections", n, len(streams))
	}
}
