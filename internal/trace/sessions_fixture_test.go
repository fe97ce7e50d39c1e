package trace

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"testing"

	"github.com/pgspec/pgspec/internal/atomicfile"
)

var update = flag.Bool("update", false, "rewrite codec/testdata/sessions.bin from the committed session captures")

// sessionsFixture is codec's real-traffic benchmark input (BenchmarkSessions):
// what the server sent on each connection of the session captures.
const sessionsFixture = "../../codec/testdata/sessions.bin"

// serverStreams is the sessions fixture's content: for each connection of
// the pg*-sessions captures on which the server said anything, in capture
// order, a header of four big-endian integers — Int16 major, Int16 the
// protocol minor the connection ended with, Int16 how many one-byte
// answers (to SSLRequest, GSSENCRequest) open the stream, Int32 the
// stream's length — and then every byte the server sent, as a client reads
// it from its socket.
func serverStreams(tb testing.TB) []byte {
	var out []byte
	for _, c := range capturedConversations(tb, "pg*-sessions.pcapng.gz") {
		var stream []byte
		answers := 0
		for _, r := range c.frames {
			if r.dir != Backend {
				continue
			}
			if len(r.frame) == 1 {
				answers++
			}
			stream = append(stream, r.frame...)
		}
		if len(stream) == 0 {
			continue // a CancelRequest's connection: the server answers nothing
		}
		last := c.frames[len(c.frames)-1].p
		out = binary.BigEndian.AppendUint16(out, uint16(c.major))
		out = binary.BigEndian.AppendUint16(out, uint16(last.ProtocolMinor))
		out = binary.BigEndian.AppendUint16(out, uint16(answers))
		out = binary.BigEndian.AppendUint32(out, uint32(len(stream)))
		out = append(out, stream...)
	}
	return out
}

// TestSessionsFixture: codec/testdata/sessions.bin holds exactly the
// server streams of the committed session captures (go test -update
// rewrites it).
func TestSessionsFixture(t *testing.T) {
	want := serverStreams(t)
	if *update {
		if err := atomicfile.WriteFile(sessionsFixture, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(sessionsFixture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s (%d bytes) is not the server streams of the session captures (%d bytes): go test ./internal/trace -run TestSessionsFixture -update", sessionsFixture, len(got), len(want))
	}
	if len(want) < 50<<10 {
		t.Errorf("the session captures' server streams are only %d bytes", len(want))
	}
}
