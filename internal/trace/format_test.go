package trace

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pgspec/pgspec/codec"
)

var at = time.Date(2026, 11, 30, 13, 20, 1, 123456789, time.FixedZone("CET", 3600))

func line(f Format, chain []Layer) string {
	a := &analyzer{}
	a.init(f, nil)
	x := a.newFormatter()
	return string(x.appendLine(nil, at, 7, Backend, 42, chain, nil))
}

// TestLines renders hand-built messages in both formats; the expected lines
// are written out by hand from the rules in appendLine's and appendBytes's
// comments.
func TestLines(t *testing.T) {
	v1 := codec.Params{Major: 18, LogicalVersion: 1}
	insert := &codec.LogicalInsert{Xid: 99, RelationOID: 16390, New: codec.TupleData{Columns: []codec.TupleDataColumn{
		{Kind: 't', Data: []byte("1")}, {Kind: 'n'}, {Kind: 'b', Data: []byte{0, 0xff}}, {Kind: 'u'}}}}
	chain := []Layer{
		{Msg: &codec.CopyData{Data: []byte("payload, not printed")}, Params: v1},
		{Msg: &codec.XLogData{WALStart: 0x16B3740, ServerWALEnd: 1<<32 | 2, ServerTime: 1_000_000, WALData: []byte("not printed")}, Params: v1},
		{Msg: insert, Params: v1}, // Xid is not on the wire outside a streamed transaction
	}
	long := []Layer{{Msg: &codec.DataRow{Values: [][]byte{[]byte(strings.Repeat("x", 300)), nil, {}}}}}
	salt := []Layer{{Msg: &codec.AuthenticationMD5Password{Salt: [4]byte{1, 2, 3, 0xff}}}}
	copyBinary := []Layer{{Msg: &codec.CopyData{Data: []byte("PGCOPY\n\xff\r\n\x00")}}}
	empty := []Layer{{Msg: &codec.Sync{}}}
	wide := &codec.DataRow{}
	for i := range 70 {
		wide.Values = append(wide.Values, []byte(strconv.Itoa(i)))
	}
	var first64 []string
	for i := range 64 {
		first64 = append(first64, `"`+strconv.Itoa(i)+`"`)
	}
	schema := lineSchema(t)
	for _, c := range []struct {
		json  bool
		chain []Layer
		want  string
	}{
		{false, chain, `2026-11-30T12:20:01.123456Z #7 B @42 CopyData > XLogData WALStart=0/16B3740 ServerWALEnd=1/2 ServerTime=2000-01-01T00:00:01Z > LogicalInsert RelationOID=16390 New={Columns=[{Kind='t' Data="1"} {Kind='n'} {Kind='b' Data=0x00ff} {Kind='u'}]}`},
		{true, chain, `{"time":"2026-11-30T12:20:01.123456Z","session":7,"dir":"B","offset":42,"messages":[{"name":"CopyData","slug":"copy-data","params":{"major":18,"logical_version":1}},{"name":"XLogData","slug":"replication-xlog-data","params":{"major":18,"logical_version":1},"WALStart":"0/16B3740","ServerWALEnd":"1/2","ServerTime":"2000-01-01T00:00:01Z"},{"name":"LogicalInsert","slug":"logical-insert","params":{"major":18,"logical_version":1},"RelationOID":16390,"New":{"Columns":[{"Kind":116,"Data":"1"},{"Kind":110},{"Kind":98,"Data":{"bytes":2,"hex":"00ff"}},{"Kind":117}]}}]}`},
		{false, long, `2026-11-30T12:20:01.123456Z #7 B @42 DataRow Values=["` + strings.Repeat("x", 256) + `"…(300 bytes) NULL ""]`},
		{true, long, `{"time":"2026-11-30T12:20:01.123456Z","session":7,"dir":"B","offset":42,"messages":[{"name":"DataRow","slug":"data-row","params":{"major":0},"Values":[{"bytes":300,"text":"` + strings.Repeat("x", 256) + `"},null,""]}]}`},
		{false, salt, `2026-11-30T12:20:01.123456Z #7 B @42 AuthenticationMD5Password Salt=0x010203ff`},
		{true, salt, `{"time":"2026-11-30T12:20:01.123456Z","session":7,"dir":"B","offset":42,"messages":[{"name":"AuthenticationMD5Password","slug":"authentication-md5-password","params":{"major":0},"Salt":{"bytes":4,"hex":"010203ff"}}]}`},
		{false, copyBinary, `2026-11-30T12:20:01.123456Z #7 B @42 CopyData Data="PGCOPY\n\xff\r\n\x00"`},
		{true, copyBinary, `{"time":"2026-11-30T12:20:01.123456Z","session":7,"dir":"B","offset":42,"messages":[{"name":"CopyData","slug":"copy-data","params":{"major":0},"Data":{"bytes":11,"hex":"5047434f50590aff0d0a00"}}]}`},
		{false, []Layer{{Msg: wide}}, `2026-11-30T12:20:01.123456Z #7 B @42 DataRow Values=[` + strings.Join(first64, " ") + ` …(6 more)]`},
		{true, []Layer{{Msg: wide}}, `{"time":"2026-11-30T12:20:01.123456Z","session":7,"dir":"B","offset":42,"messages":[{"name":"DataRow","slug":"data-row","params":{"major":0},"Values":[` + strings.Join(first64, ",") + `,{"more":6}]}]}`},
		{false, empty, `2026-11-30T12:20:01.123456Z #7 B @42 Sync`},
		{true, empty, `{"time":"2026-11-30T12:20:01.123456Z","session":7,"dir":"B","offset":42,"messages":[{"name":"Sync","slug":"sync","params":{"major":0}}]}`},
	} {
		got := line(Format{JSON: c.json}, c.chain)
		if got != c.want+"\n" {
			t.Errorf("\n got %s\nwant %s", got, c.want)
		}
		if c.json {
			validLine(t, schema, got)
		}
	}
}

// lineSchema compiles line.schema.json, the documented shape of a JSON line.
func lineSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile("line.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validLine(t *testing.T, schema *jsonschema.Schema, line string) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
	if err == nil {
		err = schema.Validate(doc)
	}
	if err != nil {
		t.Errorf("line %s: %v", line, err)
	}
}

// TestLineSchemaRejects: the schema is a check, not a description only.
func TestLineSchemaRejects(t *testing.T) {
	schema := lineSchema(t)
	for _, bad := range []string{
		`{"time":"now","session":1,"dir":"B","offset":0,"messages":[{"name":"Sync","slug":"sync","params":{"major":0}}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"X","offset":0,"messages":[{"name":"Sync","slug":"sync","params":{"major":0}}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"B","offset":0,"messages":[{"type":"Sync"}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"B","offset":0,"messages":[{"name":"CopyData","slug":"copy-data","params":{"major":0},"Data":{"hex":"00"}}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"B","offset":0,"messages":[{"name":"CopyData","slug":"copy-data","params":{"major":0},"Data":{"bytes":1,"hex":"0"}}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"B","offset":0,"messages":[{"name":"Sync","slug":"sync"}]}`,
		`{"time":"2026-11-30T12:20:01Z","session":1,"dir":"B","offset":0,"messages":[{"name":"Sync","slug":"sync","params":{"major":0,"streaming":4}}]}`,
	} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(doc) == nil {
			t.Errorf("schema accepts %s", bad)
		}
	}
}

// TestSecretsRedacted: every message that carries a secret shows its length
// only, in both formats, unless ShowSecrets; a SCRAM client-first message
// (a user name and a nonce) is shown.
func TestSecretsRedacted(t *testing.T) {
	key32 := []byte("0123456789abcdef0123456789ABCDEF")
	for _, c := range []struct {
		msg    codec.Message
		secret string
		n      int
	}{
		{&codec.PasswordMessage{Password: "hunter2"}, "hunter2", 7},
		{&codec.PasswordMessage{Password: "md5f4e1b4bd0ad5a36c17aa08bfb1e16fa2"}, "md5f4e1b4bd0ad5a36c17aa08bfb1e16fa2", 35},
		{&codec.SASLInitialResponse{AuthMechanism: "OAUTHBEARER", Data: []byte("n,,\x01auth=Bearer tok3n\x01\x01")}, "tok3n", 23},
		{&codec.SASLResponse{Data: []byte("c=biws,r=nonce,p=cHJvb2Y=")}, "cHJvb2Y=", 25},
		{&codec.AuthenticationSASLContinue{Data: []byte("r=nonce,s=c2FsdA==,i=4096")}, "c2FsdA==", 25},
		{&codec.AuthenticationSASLFinal{Data: []byte("v=c2lnbmF0dXJl")}, "c2lnbmF0dXJl", 14},
		{&codec.GSSResponse{Data: []byte("gss-client-token")}, "gss-client-token", 16},
		{&codec.AuthenticationGSSContinue{Data: []byte("gss-server-token")}, "gss-server-token", 16},
		{&codec.BackendKeyData{ProcessID: 4242, SecretKey: key32}, "0123456789abcdef", 32},
		{&codec.CancelRequest{ProcessID: 4242, SecretKey: []byte("k3y!")}, "k3y!", 4},
		// The codec cannot tell a mechanism's harmless data from its secrets,
		// so even SCRAM's client-first message (user and nonce) is hidden.
		{&codec.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=nonce")}, "r=nonce", 13},
	} {
		chain := []Layer{{Msg: c.msg}}
		schema := lineSchema(t)
		for _, json := range []bool{false, true} {
			got := line(Format{JSON: json}, chain)
			want := fmt.Sprintf("<redacted %d bytes>", c.n)
			if json {
				want = fmt.Sprintf(`{"bytes":%d,"redacted":true}`, c.n)
				validLine(t, schema, got)
			}
			if strings.Contains(got, c.secret) || !strings.Contains(got, want) {
				t.Errorf("%T json=%v: %s; want %s and no %q", c.msg, json, got, want, c.secret)
			}
			if shown := line(Format{JSON: json, ShowSecrets: true}, chain); !strings.Contains(shown, c.secret) {
				t.Errorf("%T json=%v with ShowSecrets: %s lacks %q", c.msg, json, shown, c.secret)
			}
		}
	}
}

// TestFieldsNotOnTheWire: Stream Abort's LSN and time are printed only with
// parallel streaming on a major that has them, an xid only inside a
// streamed transaction of pgoutput 2 or later, an old tuple only when its
// kind byte was sent.
func TestFieldsNotOnTheWire(t *testing.T) {
	abort := &codec.LogicalStreamAbort{Xid: 7, SubXid: 8, AbortLSN: 0x16B3740, AbortTime: 1_000_000}
	update := &codec.LogicalUpdate{Xid: 7, RelationOID: 1, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 'n'}}}}
	del := &codec.LogicalDelete{RelationOID: 1, OldKind: 'K', Old: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("1")}}}}
	for _, c := range []struct {
		msg  codec.Message
		p    codec.Params
		want string
	}{
		{abort, codec.Params{Major: 18, LogicalVersion: 4, Streaming: codec.ParallelStreaming}, "LogicalStreamAbort Xid=7 SubXid=8 AbortLSN=0/16B3740 AbortTime=2000-01-01T00:00:01Z"},
		{abort, codec.Params{Major: 18, LogicalVersion: 4}, "LogicalStreamAbort Xid=7 SubXid=8"},
		{abort, codec.Params{Major: 18, LogicalVersion: 3, Streaming: codec.ParallelStreaming}, "LogicalStreamAbort Xid=7 SubXid=8"},
		{abort, codec.Params{Major: 15, LogicalVersion: 4, Streaming: codec.ParallelStreaming}, "LogicalStreamAbort Xid=7 SubXid=8"},
		{update, codec.Params{Major: 18, LogicalVersion: 2, Streaming: codec.Streamed}, "LogicalUpdate Xid=7 RelationOID=1 New={Columns=[{Kind='n'}]}"},
		{update, codec.Params{Major: 18, LogicalVersion: 2}, "LogicalUpdate RelationOID=1 New={Columns=[{Kind='n'}]}"},
		{update, codec.Params{Major: 13, LogicalVersion: 1, Streaming: codec.Streamed}, "LogicalUpdate RelationOID=1 New={Columns=[{Kind='n'}]}"},
		{del, codec.Params{Major: 18, LogicalVersion: 1, Streaming: codec.Streamed}, `LogicalDelete RelationOID=1 OldKind='K' Old={Columns=[{Kind='t' Data="1"}]}`},
		{del, codec.Params{Major: 18, LogicalVersion: 2, Streaming: codec.Streamed}, `LogicalDelete Xid=0 RelationOID=1 OldKind='K' Old={Columns=[{Kind='t' Data="1"}]}`},
	} {
		if got := line(Format{}, []Layer{{Msg: c.msg, Params: c.p}}); !strings.HasSuffix(got, " "+c.want+"\n") {
			t.Errorf("%+v:\n got %s\nwant … %s", c.p, got, c.want)
		}
	}
}

// TestCancelRequestByLength: a CancelRequest on a connection of its own
// decodes and re-encodes identically with a 3.0 key (4 bytes) and a 3.2 key
// (32 bytes) alike, though nothing but its length says which it is.
func TestCancelRequestByLength(t *testing.T) {
	for _, key := range [][]byte{[]byte("k3y!"), []byte("0123456789abcdef0123456789ABCDEF")} {
		frame, err := (&codec.CancelRequest{ProcessID: 4242, SecretKey: key}).Encode(nil, codec.Params{ProtocolMinor: 2})
		if err != nil {
			t.Fatal(err)
		}
		a := &analyzer{}
		a.init(Format{}, nil)
		x := newExaminer(a, &newConn(1).dirs[Frontend])
		lines, decoded, problem := x.examine(frame, at, nil)
		if !decoded || problem != "" || a.Stats(Frontend).Identical != 1 {
			t.Errorf("%d-byte key: decoded %v, problem %q", len(key), decoded, problem)
		}
		if want := fmt.Sprintf("CancelRequest ProcessID=4242 SecretKey=<redacted %d bytes>\n", len(key)); !strings.HasSuffix(string(lines), want) {
			t.Errorf("%d-byte key: %s", len(key), lines)
		}
	}
}

// TestNamesPerMajor: a message is named as the server's major names it.
func TestNamesPerMajor(t *testing.T) {
	x := &codec.XLogData{WALStart: 1}
	for major, want := range map[int]string{10: "XLogData", 18: "XLogData", 19: "WALData", 0: "WALData"} {
		if got := line(Format{}, []Layer{{Msg: x, Params: codec.Params{Major: major}}}); !strings.Contains(got, " B @42 "+want+" WALStart=0/1 ") {
			t.Errorf("major %d: %s", major, got)
		}
	}
	if got := messageName(&codec.HotStandbyFeedback{}, 10); got != "HotStandbyFeedback" {
		t.Errorf("a change of case only is no rename: %s", got)
	}
}

// TestRenderingCache: a frame seen again prints as it did, unless what
// decides its rendering changed: here the server's major, which renames
// XLogData; a frame seen once is not kept.
func TestRenderingCache(t *testing.T) {
	a := &analyzer{}
	a.init(Format{}, nil)
	c := newConn(1)
	streaming(t, c, "START_REPLICATION 0/0")
	x := newExaminer(a, &c.dirs[Backend])
	frame, err := (&codec.CopyData{Data: wire(t, codec.Params{}, &codec.XLogData{WALStart: 1, WALData: []byte("w")})}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []byte
	for _, major := range []int{18, 18, 19, 19, 18} {
		c.conv.P.Major, c.conv.Replication.P.Major = major, major
		lines, _, _ = x.examine(frame, at, lines)
	}
	got := strings.Split(strings.TrimSpace(string(lines)), "\n")
	for i, want := range []string{"XLogData", "XLogData", "WALData", "WALData", "XLogData"} {
		if !strings.Contains(got[i], "CopyData > "+want+" WALStart=0/1 ") {
			t.Errorf("line %d: %s", i, got[i])
		}
	}
	if len(x.f.bodies) != 1 {
		t.Errorf("%d cached frames", len(x.f.bodies))
	}
	// A frame is kept the second time it comes, not the first.
	other, err := (&codec.CopyData{Data: wire(t, codec.Params{}, &codec.XLogData{WALStart: 2, WALData: []byte("w")})}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 2} {
		lines, _, _ = x.examine(other, at, lines)
		if len(x.f.bodies) != want {
			t.Errorf("after the other frame %d times: %d cached frames, want %d", i+1, len(x.f.bodies), want)
		}
	}
}

// TestAppendQuoted: the ASCII fast path writes what strconv.AppendQuote
// writes, for text with and without what needs escaping, and takes text
// as plain exactly when each byte is printable ASCII other than " and \:
// every byte value at every place of texts of 1 to 17 bytes (the words
// plainText reads and the bytes after them), among the lowest and the
// highest plain bytes, next to which a borrow or a carry would show.
func TestAppendQuoted(t *testing.T) {
	for _, s := range []string{"", "SELECT abalance FROM pgbench_accounts WHERE aid = 1;", `say "hi"`, `a\b`, "tab\there", "ü", "\x7f", "~ !"} {
		if got, want := string(appendQuoted(nil, []byte(s), plainText([]byte(s)))), strconv.Quote(s); got != want {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	for _, fill := range []string{" ", "~"} {
		for n := 1; n <= 17; n++ {
			for at := range n {
				for c := range 256 {
					data := []byte(strings.Repeat(fill, n))
					data[at] = byte(c)
					plain := c >= ' ' && c <= '~' && c != '"' && c != '\\'
					if plainText(data) != plain {
						t.Fatalf("plainText(%q) = %v", data, !plain)
					}
					if got, want := string(appendQuoted(nil, data, plainText(data))), strconv.Quote(string(data)); got != want {
						t.Fatalf("%q: got %s, want %s", data, got, want)
					}
				}
			}
		}
	}
}

// TestAppendHeader: a header changed in place from the last one's (the
// offset's digits added to across carries into new digits, after a jump
// back and one too far to add; the time written over, in the same second
// and the next, and past year 9999, where it is wider; another session or
// direction) is the one a new formatter writes, text and JSON.
func TestAppendHeader(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 3, 4, 5, 123456789, time.UTC)
	times := []time.Time{t0, t0.Add(time.Microsecond), t0.Add(time.Second), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), t0}
	for _, json := range []bool{false, true} {
		f := formatter{style: style{json: json}}
		for i, off := range []int64{0, 0, 5, 9, 10, 99, 100, 101, 999, 1000, 99999, 100000, 100007, 3, 3, 1 << 40, 1<<40 + 1<<20, 1<<40 + 1<<20 + 1} {
			at, id, d := times[i%len(times)], int64(1+i/7), Direction(i/5%2)
			fresh := formatter{style: style{json: json}}
			if got, want := string(f.appendHeader([]byte("x"), at, id, d, off)), string(fresh.appendHeader([]byte("x"), at, id, d, off)); got != want {
				t.Errorf("json %v, offset %d, %s, #%d %s: got %s, want %s", json, off, at, id, d, got, want)
			}
		}
	}
	f := formatter{}
	if got, want := string(f.appendHeader(nil, t0, 3, Backend, 1234)), "2026-12-02T03:04:05.123456Z #3 B @1234"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
