package trace

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// skewed is a message whose re-encoding differs from what was decoded: the
// codec never produces one on real traffic (its fuzz targets prove decode →
// encode is the identity), so this stands in for a codec bug.
type skewed struct{ codec.CommandComplete }

func (m *skewed) Encode(dst []byte, p codec.Params) ([]byte, error) {
	return m.CommandComplete.Encode(dst, codec.Params{Major: p.Major})
}

// captured is the server side of a session that only records what the
// proxy forwards to it.
type captured struct {
	net.Conn
	got bytes.Buffer
}

func (c *captured) Write(b []byte) (int, error) { return c.got.Write(b) }

func TestReencodingThatDiffersIsCaught(t *testing.T) {
	// CommandComplete "SELECT 1" as received, and the skewed re-encoding of "SELECT 2".
	frame := append([]byte{'C', 0, 0, 0, 13}, "SELECT 1\x00"...)
	for _, strict := range []bool{false, true} {
		var log bytes.Buffer
		var forwarded captured
		p := New(Options{Strict: strict, Log: &log})
		s := newSession(p, 7, nil)
		pump := s.newPump(Backend, nil, &forwarded)
		pump.d.offset = 100
		pump.decode = func(frame []byte) ([]Layer, error) {
			pump.d.offset += int64(len(frame))
			return []Layer{{Name: "frontend-backend", Msg: &skewed{codec.CommandComplete{CommandTag: "SELECT 2"}}}}, nil
		}
		decoded, err := pump.relay(frame)
		if err == nil {
			err = pump.flush()
		}
		if !decoded {
			t.Errorf("strict=%v: relay says the message was not decoded", strict)
		}
		st := p.Stats(Backend)
		if st.Decoded != 1 || st.Mismatched != 1 || st.Identical != 0 {
			t.Errorf("strict=%v: counts %+v", strict, st)
		}
		p.log.flush()
		line := log.String()
		if !strings.Contains(line, "session #7") || !strings.Contains(line, "backend message at byte offset 100") ||
			!strings.Contains(line, "skewed re-encodes differently from byte 12: got 43") {
			t.Errorf("strict=%v: log %q", strict, line)
		}
		if strict {
			if err != errSessionClosed || forwarded.got.Len() != 0 || !strings.Contains(line, "error:") || !strings.Contains(line, "closing the session (--strict)") {
				t.Errorf("strict: err %v, forwarded %q, log %q", err, forwarded.got.Bytes(), line)
			}
		} else if err != nil || !bytes.Equal(forwarded.got.Bytes(), frame) || !strings.Contains(line, "warning:") || !strings.Contains(line, "forwarded as received") {
			t.Errorf("default: err %v, forwarded %q (want the original bytes), log %q", err, forwarded.got.Bytes(), line)
		}
	}
}

// TestKeptFrameIsNotReencodedAgain: a frame the formatter keeps (the second
// time it comes) that re-encoded identically is not re-encoded again, as
// decoding it again gives the same message; one that did not re-encode
// identically (a decoder standing in for a codec bug reads "SELECT 1" as
// "SELECT 2") is re-encoded, and reported, every time it comes.
func TestKeptFrameIsNotReencodedAgain(t *testing.T) {
	frame := append([]byte{'C', 0, 0, 0, 13}, "SELECT 1\x00"...)
	for _, tag := range []string{"SELECT 1", "SELECT 2"} {
		var log bytes.Buffer
		p := New(Options{Out: io.Discard, Log: &log})
		pump := newSession(p, 7, nil).newPump(Backend, nil, &captured{})
		pump.decode = func(frame []byte) ([]Layer, error) {
			pump.d.offset += int64(len(frame))
			return []Layer{{Name: "frontend-backend", Msg: &codec.CommandComplete{CommandTag: tag}}}, nil
		}
		encodes := 0
		for range 4 {
			pump.bufs[0] = nil // the re-encoding's buffer: set again by a re-encoding only
			if _, err := pump.relay(frame); err != nil {
				t.Fatal(err)
			}
			if pump.bufs[0] != nil {
				encodes++
			}
		}
		p.log.flush()
		st := p.Stats(Backend)
		if tag == "SELECT 1" {
			if encodes != 2 || st.Identical != 4 || st.Mismatched != 0 || log.Len() != 0 {
				t.Errorf("identical: %d re-encodings (want 2: not kept, kept), counts %+v, log %q", encodes, st, log.String())
			}
		} else if encodes != 4 || st.Mismatched != 4 || strings.Count(log.String(), "re-encodes differently") != 4 {
			t.Errorf("different: %d re-encodings (want 4), counts %+v, log %q", encodes, st, log.String())
		}
	}
}
