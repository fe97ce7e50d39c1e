package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The consumer's module, pgspec replaced by this checkout (the test adds
// it as a tool dependency with go get -tool), and two packages generated
// by go generate: wire (14-18, logical and streaming replication) and ins
// (16, Insert alone). "//GENERATE" stands for the go:generate directive,
// which go generate would otherwise find in this file. wire/wire.go is the
// README's example, read from it by TestConsumerModule.
var consumerFiles = map[string]string{
	"go.mod": `module example.com/consumer

go 1.26

require github.com/pgspec/pgspec ` + noVersion + `

replace github.com/pgspec/pgspec => REPO
`,
	"wire/wire_test.go": `package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// One message of each generated layer survives Encode and Decode, directly
// and through its layer's dispatcher.
func TestRoundTrip(t *testing.T) {
	p := Params{Major: 16, LogicalVersion: 2}
	var logical Logical
	var repl ReplicationFrontend
	for _, c := range []struct {
		msg    Message
		size   int
		decode func([]byte, Params) (Message, error)
	}{
		{&LogicalBegin{FinalLSN: 0x16B3748, CommitTime: 1234567, Xid: 42}, 1 + 8 + 8 + 4, logical.Decode},
		{&StandbyStatusUpdate{WALWritePosition: 1, WALFlushPosition: 2, WALApplyPosition: 3, ClientTime: 4, ReplyRequested: 1}, 1 + 4*8 + 1, repl.Decode},
	} {
		b, err := c.msg.Encode(nil, p)
		if err != nil || len(b) != c.size {
			t.Fatalf("%T: encode: %d bytes, %v; want %d", c.msg, len(b), err, c.size)
		}
		got := reflect.New(reflect.TypeOf(c.msg).Elem()).Interface().(Message)
		if err := got.Decode(b, p); err != nil || !reflect.DeepEqual(got, c.msg) {
			t.Errorf("%T: decoded %+v, %v", c.msg, got, err)
		}
		if got, err := c.decode(b, p); err != nil || !reflect.DeepEqual(got, c.msg) {
			t.Errorf("%T: dispatched %+v, %v", c.msg, got, err)
		}
	}
}

// The README's Consume, on a stream of CopyData: the streamed Insert comes
// with its xid, the one of an ordinary transaction without, each at its
// XLogData's position; a keepalive that asks is answered with the position
// applied; a Stream Commit of a transaction never streamed is a flow
// violation, and a command that starts no stream is refused.
func TestConsume(t *testing.T) {
	v2 := Params{Major: 16, LogicalVersion: 2}
	streamed := v2
	streamed.Streaming = Streamed
	var stream []byte
	add := func(m Message, p Params) {
		var err error
		if stream, err = AppendCopyData(stream, m, p); err != nil {
			t.Fatal(err)
		}
	}
	at := uint64(0x16B3700)
	change := func(m Message, p Params) {
		wal, err := m.Encode(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		at += 0x10
		add(&XLogData{WALStart: at, ServerWALEnd: at, WALData: wal}, p)
	}
	row := TupleData{Columns: []TupleDataColumn{{Kind: 't', Data: []byte("1")}}}
	change(&LogicalStreamStart{Xid: 9, FirstSegment: 1}, v2)
	change(&LogicalRelation{Xid: 9, RelationOID: 16390, Namespace: "public", RelationName: "t"}, streamed)
	change(&LogicalInsert{Xid: 9, RelationOID: 16390, New: row}, streamed)
	change(&LogicalStreamStop{}, streamed)
	change(&LogicalStreamCommit{Xid: 9}, v2)
	change(&LogicalBegin{Xid: 10}, v2)
	change(&LogicalInsert{RelationOID: 16390, New: row}, v2)
	add(&PrimaryKeepalive{ServerWALEnd: at, ReplyRequested: 1}, v2)
	change(&LogicalCommit{}, v2)
	ends := len(stream)
	change(&LogicalStreamCommit{Xid: 11}, v2)

	const start = "START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '2', streaming 'on', publication_names 'p')"
	consume := func(in []byte, cmd string) (inserts []string, replies []byte, err error) {
		var out bytes.Buffer
		conn := struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(in), &out}
		err = Consume(conn, 16, cmd, func(m Message, at LSN) error {
			if i, ok := m.(*LogicalInsert); ok {
				inserts = append(inserts, fmt.Sprintf("xid %d at %s", i.Xid, at))
			}
			return nil
		})
		return inserts, out.Bytes(), err
	}
	inserts, replies, err := consume(stream[:ends], start)
	if want := []string{"xid 9 at 0/16B3730", "xid 0 at 0/16B3770"}; err != io.EOF || !reflect.DeepEqual(inserts, want) {
		t.Errorf("inserts %v, %v; want %v and the stream's end", inserts, err, want)
	}
	payload, err := CopyDataPayload(replies)
	var repl ReplicationFrontend
	reply, rerr := repl.Decode(payload, v2)
	if s, ok := reply.(*StandbyStatusUpdate); err != nil || rerr != nil || !ok || s.WALFlushPosition != 0x16B3770 || len(replies) != 1+4+len(payload) {
		t.Errorf("the keepalive answered with %x: %+v, %v, %v", replies, reply, err, rerr)
	}
	_, _, err = consume(stream, start)
	var fe *FlowError
	if !errors.As(err, &fe) || fe.Got != "logical-stream-commit" {
		t.Errorf("a Stream Commit outside a stream: %v", err)
	}
	if _, _, err = consume(stream, "IDENTIFY_SYSTEM"); err == nil || !strings.Contains(err.Error(), "starts no replication stream") {
		t.Errorf("IDENTIFY_SYSTEM: %v", err)
	}
}

// A major outside -majors is a typed error.
func TestMajorsOutsideTheGeneratedOnes(t *testing.T) {
	if GeneratedMajors.Majors()[0] != 14 || NewestMajor != 18 {
		t.Fatalf("generated for %v", GeneratedMajors.Majors())
	}
	for _, major := range []int{13, 19} {
		_, err := (&LogicalBegin{}).Encode(nil, Params{Major: major})
		var ve *VersionError
		if !errors.As(err, &ve) || !errors.Is(err, ErrMajorNotGenerated) || ve.Major != major {
			t.Errorf("major %d: %v", major, err)
		}
	}
}

// XLogData's WAL data carry pgoutput, which wire has; no other message
// carries one (CopyData, which carries XLogData, is not in wire).
func TestPayloads(t *testing.T) {
	for _, m := range NewMessages() {
		d := m.Descriptor()
		f := d.Payload()
		if _, ok := m.(*XLogData); ok != (f >= 0) || ok && (d.Fields[f].Name != "WALData" || d.Fields[f].Carries != LayerLogicalReplication) {
			t.Errorf("%s: payload field %d", d.Name, f)
		}
	}
}
`,
	"wire/ins/ins.go": `// Package ins decodes pgoutput's Insert of PostgreSQL 16, and nothing else.
package ins

//GENERATE go tool pgspec gen -majors 16 -messages logical-insert
`,
	"wire/ins/ins_test.go": `package ins

import (
	"errors"
	"reflect"
	"testing"
)

func TestInsertAlone(t *testing.T) {
	p := Params{LogicalVersion: 1}
	in := &LogicalInsert{RelationOID: 16384, New: TupleData{Columns: []TupleDataColumn{{Kind: 't', Data: []byte("hello")}}}}
	b, err := in.Encode(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	var d Logical
	got, err := d.Decode(b, p)
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Errorf("dispatched %+v, %v", got, err)
	}
	// The dispatcher routes only what was generated: Begin ('B') is unknown,
	// and the error, like every error of the package, starts with its name.
	_, err = d.Decode([]byte{'B', 0}, p)
	if want := "ins: decode logical replication message.tag at byte 0: unknown tag 'B' (want 'I')"; !errors.Is(err, ErrUnknownTag) || err.Error() != want {
		t.Errorf("Begin: %v, want %s", err, want)
	}
}
`,
}

// noVersion is the version a replaced module is required at.
const noVersion = "v0.0.0-00010101000000-000000000000"

// TestConsumerModule is the path of a user who adds pgspec to their own
// module: go get -tool, go generate, go vet and the consumer's own tests,
// offline (GOPROXY=off): the module cache already holds what pgspec needs,
// since building and tidying this module put it there (make check runs
// go mod tidy -diff first; a fresh cache filled by go vet ./... and that
// alone was enough).
func TestConsumerModule(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// What the README tells a consumer to run and write.
	readme := readmeBlocks(t, "## A codec in your own package")
	if len(readme) != 2 || readme[0] != "go get -tool github.com/pgspec/pgspec/cmd/pgspec\n" {
		t.Fatalf("README's consumer steps are not the go get -tool line and a Go file: %q", readme)
	}
	files := map[string]string{"go.sum": string(sum), "wire/wire.go": readme[1]}
	for name, src := range consumerFiles {
		files[name] = strings.NewReplacer("REPO", repo, "//GENERATE", "//go:"+"generate").Replace(src)
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("get", "-tool", "github.com/pgspec/pgspec/cmd/pgspec@"+noVersion)
	runtime, err := filepath.Glob(filepath.Join(repo, "gen", "emit", "runtime", "*.[gs]*"))
	if err != nil || len(runtime) == 0 {
		t.Fatalf("runtime sources: %v, %v", runtime, err)
	}
	// ins: Insert, the TupleData it carries, dispatch, constants and the
	// runtime but its trackers (ins has no whole layer to follow) and the
	// files wholly for features it lacks (parsebool.go: the commands or
	// the frontend's tracker).
	insFiles := 4
	for _, f := range runtime {
		src, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(src), "\n//pgspec:machines ") && !strings.Contains(string(src), "package codec\n\n// pgspec:if ") {
			insFiles++
		}
	}
	out := goCmd("generate", "./...")
	if !strings.Contains(out, "pgspec gen: package wire in .: ") || !strings.Contains(out, fmt.Sprintf("pgspec gen: package ins in .: 2 messages of PostgreSQL 16, %d files\n", insFiles)) {
		t.Errorf("go generate said:\n%s", out)
	}
	wire := generated(t, filepath.Join(dir, "wire"))
	for _, name := range []string{"logical_begin_gen.go", "logical_stream_abort_gen.go", "replication_standby_status_update_gen.go", "reader_gen.go", "dispatch_gen.go"} {
		if wire[name] == "" {
			t.Errorf("wire: %s not generated", name)
		}
	}
	// Outside -layers (Bind) and outside -majors (PG 19's primary status update).
	for _, name := range []string{"bind_gen.go", "replication_primary_status_update_gen.go"} {
		if wire[name] != "" {
			t.Errorf("wire: %s generated", name)
		}
	}
	for name, src := range wire {
		want := "// Code generated by pgspec. DO NOT EDIT.\n// Generated by pgspec " + noVersion + ".\n\npackage wire\n"
		if name == "constants_gen.go" {
			want = "// Code generated by pgspec. DO NOT EDIT.\n// Generated by pgspec " + noVersion + ": pgspec gen -majors 14-18 -layers logical,replication\n\npackage wire\n"
		}
		// The runtime's assembly and the files for some builds only have
		// a build constraint after the header; the assembly no package.
		if strings.HasSuffix(name, ".s") {
			want, _, _ = strings.Cut(want, "package")
		} else if header, rest, ok := strings.Cut(src, "\n//go:build "); ok && !strings.Contains(header, "package") {
			_, body, _ := strings.Cut(rest, "\n\n")
			src = header + "\n" + body
		}
		if !strings.HasPrefix(src, want) {
			t.Errorf("wire/%s starts\n%.200s", name, src)
		}
		for _, decl := range []string{"type Bind struct", "type PrimaryStatusUpdate struct", "type Backend struct", "type Frontend struct", "type Conversation struct"} {
			if strings.Contains(src, decl) {
				t.Errorf("wire/%s declares %s", name, decl)
			}
		}
	}
	// wire carries both replication layers whole: it gets their trackers.
	if !strings.Contains(wire["replication_gen.go"], "type ReplicationTracker struct") || !strings.Contains(wire["logical_gen.go"], "type LogicalTracker struct") {
		t.Errorf("wire has no ReplicationTracker and LogicalTracker")
	}
	ins := generated(t, filepath.Join(dir, "wire", "ins"))
	if ins["logical_insert_gen.go"] == "" || ins["logical_tuple_data_gen.go"] == "" || ins["logical_begin_gen.go"] != "" || len(ins) != insFiles {
		t.Errorf("ins: generated %d files, want %d", len(ins), insFiles)
	}
	// The generated packages need nothing but the standard library.
	deps := strings.Fields(goCmd("list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./..."))
	if slices.Sort(deps); !slices.Equal(deps, []string{"example.com/consumer/wire", "example.com/consumer/wire/ins"}) {
		t.Errorf("non-standard packages in the build: %v", deps)
	}
	goCmd("vet", "./...")
	out = goCmd("test", "-count=1", "./...")
	if !strings.Contains(out, "ok  \texample.com/consumer/wire\t") || !strings.Contains(out, "ok  \texample.com/consumer/wire/ins\t") {
		t.Errorf("go test:\n%s", out)
	}

	// Narrowed to Begin, ins loses files that sort after ins.go, whose
	// directive runs: go generate listed them before pgspec ran and still
	// reads them, yet it succeeds (goCmd fails the test otherwise), and the
	// files are gone after the next run.
	os.Remove(filepath.Join(dir, "wire", "ins", "ins_test.go"))
	directive := strings.Replace(files["wire/ins/ins.go"], "-messages logical-insert", "-messages logical-begin", 1)
	if err := os.WriteFile(filepath.Join(dir, "wire", "ins", "ins.go"), []byte(directive), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd("generate", "./wire/ins")
	goCmd("vet", "./wire/ins")
	goCmd("generate", "./wire/ins")
	ins = generated(t, filepath.Join(dir, "wire", "ins"))
	if ins["logical_begin_gen.go"] == "" || ins["logical_insert_gen.go"] != "" || ins["logical_tuple_data_gen.go"] != "" {
		t.Errorf("after narrowing to Begin, ins holds %v", slices.Sorted(maps.Keys(ins)))
	}
}

// generated reads dir's *_gen.go and *_gen.s files by name.
func generated(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*_gen.[gs]*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(src)
	}
	return out
}
