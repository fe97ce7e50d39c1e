package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/traceline"
)

// TestReadLinesBack decodes every committed capture with --format json
// --show-secrets --max-value 0 and reads every line back: the messages
// render to the very same line, encode to as many bytes as the message took
// on the wire (the next line of its direction starts there) and decode
// again. DecodeCapture's own count proves that the decoded messages encode
// to the bytes on the wire, so the line's bytes are the wire's.
func TestReadLinesBack(t *testing.T) {
	files, err := filepath.Glob("../../testdata/captures/pg*.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	total := 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			lines := captureLines(t, path, Format{JSON: true, ShowSecrets: true, MaxValue: -1})
			type stream struct {
				session int64
				dir     Direction
			}
			next := map[stream]int64{} // where the previous line's message ended
			a := &analyzer{}
			a.init(Format{JSON: true, ShowSecrets: true, MaxValue: -1}, nil)
			f := a.newFormatter()
			for i, text := range lines {
				l, err := traceline.Read(text)
				if err != nil {
					t.Fatalf("line %d: %v\n%s", i+1, err, text)
				}
				dir := Backend
				if l.Dir == 'F' {
					dir = Frontend
				}
				chain := make([]Layer, len(l.Messages))
				for j, m := range l.Messages {
					chain[j] = Layer{Msg: m.Msg, Params: m.Params}
				}
				again := f.appendLine(nil, l.Time, l.Session, dir, l.Offset, chain, nil)
				if !bytes.Equal(bytes.TrimSuffix(again, []byte("\n")), text) {
					t.Fatalf("line %d reads back as\n%s\nnot\n%s", i+1, again, text)
				}
				wire, err := l.Wire()
				if err != nil {
					t.Fatalf("line %d: Wire: %v\n%s", i+1, err, text)
				}
				s := stream{l.Session, dir}
				if end, ok := next[s]; ok && end != l.Offset {
					t.Fatalf("line %d starts at %d; the previous message of #%d %v ended at %d", i+1, l.Offset, l.Session, l.Dir, end)
				}
				next[s] = l.Offset + int64(len(wire))
				outer := reflect.New(reflect.TypeOf(l.Messages[0].Msg).Elem()).Interface().(codec.Message)
				if err := outer.Decode(wire, l.Messages[0].Params); err != nil {
					t.Fatalf("line %d: its bytes do not decode: %v", i+1, err)
				}
			}
			total += len(lines)
		})
	}
	if total < 1000 {
		t.Errorf("only %d lines read back", total)
	}
}

// captureLines decodes a capture into its output lines.
func captureLines(t *testing.T, path string, f Format) [][]byte {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	z, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	c, err := DecodeCapture(bufio.NewReader(z), CaptureOptions{Format: f, Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Clean() {
		t.Fatalf("%s does not decode cleanly:\n%s", path, log.String())
	}
	var lines [][]byte
	for line := range bytes.Lines(out.Bytes()) {
		lines = append(lines, bytes.TrimSuffix(line, []byte("\n")))
	}
	return lines
}

// TestRedactedAndCutLinesDoNotReadBack: a line printed without
// --show-secrets, or with a value or a repeated field cut, is refused by
// traceline.Read naming the field, never read back as other bytes.
func TestRedactedAndCutLinesDoNotReadBack(t *testing.T) {
	a := &analyzer{}
	a.init(Format{JSON: true}, nil)
	f := a.newFormatter()
	long := &codec.DataRow{Values: [][]byte{bytes.Repeat([]byte("x"), 300)}}
	wide := &codec.DataRow{Values: make([][]byte, 70)}
	for _, c := range []struct {
		msg  codec.Message
		want string
	}{
		{&codec.PasswordMessage{Password: "hunter2"}, "PasswordMessage.Password: want a string, got {\"bytes\":7,\"redacted\":true}: the value was redacted"},
		{&codec.BackendKeyData{ProcessID: 1, SecretKey: []byte("k3y!")}, "BackendKeyData.SecretKey: want a string, bytes or null, got {\"bytes\":4,\"redacted\":true}: the value was redacted"},
		{long, "DataRow.Values[0]: want a string, bytes or null, got {\"bytes\":300,"},
		{wide, "DataRow.Values: cut after 64 elements"},
	} {
		text := f.appendLine(nil, at, 1, Frontend, 0, []Layer{{Msg: c.msg}}, nil)
		_, err := traceline.Read(text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", text, err, c.want)
		}
	}
	for _, bad := range []string{
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"X","offset":0,"messages":[{"name":"Sync","slug":"sync","params":{"major":0}}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"F","offset":0,"messages":[]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"F","offset":0,"messages":[{"name":"Nope","slug":"nope","params":{"major":0}}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"F","offset":0,"extra":1,"messages":[{"name":"Sync","slug":"sync","params":{"major":0}}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"F","offset":0,"messages":[{"name":"Sync","slug":"sync","params":{"major":0,"minor":2}}]}`,
	} {
		if _, err := traceline.Read([]byte(bad)); err == nil {
			t.Errorf("traceline.Read accepts %s", bad)
		}
	}
}
