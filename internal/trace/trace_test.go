package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgclient"
	"github.com/pgspec/pgspec/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, printTotals)) }

// totals sums every test proxy's counts, for the suite's report (printed with -v).
var (
	totalsMu sync.Mutex
	totals   [2]Counts
)

func addTotals(p *Proxy) {
	totalsMu.Lock()
	defer totalsMu.Unlock()
	for d := range totals {
		c, t := p.Stats(Direction(d)), &totals[d]
		t.Decoded += c.Decoded
		t.Identical += c.Identical
		t.Mismatched += c.Mismatched
		t.Undecodable += c.Undecodable
		t.Layers = addCounts(t.Layers, c.Layers)
		t.Messages = addCounts(t.Messages, c.Messages)
	}
}

// addCounts adds from's counts to sum, making sum when it is nil.
func addCounts(sum, from map[string]int64) map[string]int64 {
	if sum == nil {
		sum = map[string]int64{}
	}
	for k, v := range from {
		sum[k] += v
	}
	return sum
}

func printTotals() {
	for d, c := range totals {
		fmt.Printf("%s: %d decoded, %d identical, %d mismatched, %d undecodable\n", Direction(d), c.Decoded, c.Identical, c.Mismatched, c.Undecodable)
		for _, k := range slices.Sorted(maps.Keys(c.Layers)) {
			fmt.Printf("  layer %-22s %d\n", k, c.Layers[k])
		}
		for _, k := range slices.Sorted(maps.Keys(c.Messages)) {
			fmt.Printf("  %-40s %d\n", k, c.Messages[k])
		}
	}
}

// syncBuffer is a bytes.Buffer several sessions may write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// tracer is a proxy in front of the test server, run in-process.
type tracer struct {
	*Proxy
	addr string
	out  *syncBuffer // decoded lines; nil when discarded
	log  *syncBuffer
}

// startTrace runs a proxy in-process until the test ends. Its log is kept
// unless opts.Log is set; its decoded lines only when opts.Out is a
// *syncBuffer (tests of heavy traffic discard them, though every line is
// still formatted).
func startTrace(t *testing.T, opts Options) *tracer {
	t.Helper()
	tr := &tracer{log: &syncBuffer{}}
	tr.out, _ = opts.Out.(*syncBuffer)
	if opts.Log == nil {
		opts.Log = tr.log
	}
	tr.Proxy = New(opts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr.addr = l.Addr().String()
	done := make(chan error, 1)
	go func() { done <- tr.Serve(l) }()
	t.Cleanup(func() {
		l.Close()
		tr.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		addTotals(tr.Proxy)
		if t.Failed() {
			var sum bytes.Buffer
			tr.Summary(&sum)
			t.Logf("proxy log:\n%s\nsummary:\n%s", tr.log, &sum)
		}
	})
	return tr
}

// logged returns the warnings logged so far, once the log's writer has
// written every one logged before the call.
func (tr *tracer) logged() string {
	tr.Proxy.log.flush()
	return tr.log.String()
}

// lines returns the lines printed once every session has ended (a session
// ends a moment after its client, and writes its last lines then).
func (tr *tracer) lines(t *testing.T) string {
	t.Helper()
	waitSessions(t, tr, 0)
	return tr.out.String()
}

// requireClean fails unless every message was decoded and re-encoded
// identically and the proxy logged nothing.
func (tr *tracer) requireClean(t *testing.T) {
	t.Helper()
	if !tr.Clean() || tr.logged() != "" {
		var sum bytes.Buffer
		tr.Summary(&sum)
		t.Errorf("proxy not clean:\n%s%s", tr.log, &sum)
	}
}

// message returns how many messages of m's type one direction decoded.
func (tr *tracer) message(d Direction, m codec.Message) int64 { return tr.Stats(d).Messages[m.Slug()] }

// runClient runs one of PostgreSQL's client programs against addr as u and
// fails the test when it does not exit 0.
func runClient(t *testing.T, addr string, u pgtest.User, stdin string, prog string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgtest.Bin(prog), args...)
	cmd.Env = pgtest.Env(addr, u)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// connect opens a pgclient session to addr as u, closed when the test ends.
func connect(t *testing.T, addr string, u pgtest.User, params map[string]string) *pgclient.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := pgclient.Connect(ctx, pgclient.Config{Addr: addr, User: u.Name, Password: u.Password, Database: pgtest.Database, Params: params})
	if err != nil {
		t.Fatalf("connect to %s as %s: %v", addr, u.Name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// superuser runs SQL directly on the server, not through a proxy.
func superuser(t *testing.T, sql string) string {
	t.Helper()
	s := pgtest.Get(t)
	return strings.TrimSpace(runClient(t, s.Addr(), pgtest.Superuser, "", "psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql))
}

// TestPsql drives psql through the proxy with every authentication method,
// an SSLRequest the server declines, queries, an error, COPY both ways in
// text and binary, large objects (fastpath FunctionCall) and NOTIFY.
func TestPsql(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true, Out: &syncBuffer{}})
	for _, u := range []pgtest.User{pgtest.MD5User, pgtest.PlainUser} {
		if out := runClient(t, tr.addr, u, "", "psql", "-X", "-A", "-t", "-c", "select current_user"); strings.TrimSpace(out) != u.Name {
			t.Errorf("psql as %s printed %q", u.Name, out)
		}
	}
	lo := filepath.Join(t.TempDir(), "lo.bin")
	if err := os.WriteFile(lo, bytes.Repeat([]byte{0, 1, 2, 0xff}, 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `create temp table pt(id int, name text);
copy pt from stdin;
1	one
2	\N
\.
select id, coalesce(name, 'NULL') from pt order by id;
select 1/0;
copy pt to stdout;
copy pt to stdout (format binary);
\lo_import ` + lo + `
select length(lo_get(:LASTOID));
\lo_unlink :LASTOID
listen chan;
notify chan, 'hello';
select 'done';
`
	out := runClient(t, tr.addr, pgtest.SCRAMUser, script, "psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=0", "-f", "-", "sslmode=prefer dbname="+pgtest.Database)
	for _, want := range []string{"1|one\n2|NULL", "division by zero", "1\tone\n2\t\\N", "PGCOPY\n\xff\r\n", "lo_import ", "20000",
		`Asynchronous notification "chan" with payload "hello" received`, "done"} {
		if !strings.Contains(out, want) {
			t.Errorf("psql output lacks %q:\n%s", want, out)
		}
	}
	tr.requireClean(t)
	lines := tr.lines(t)
	for _, want := range []string{"F @0 SSLRequest", "B @0 SSLResponse Answer='N'", "SASLInitialResponse AuthMechanism=\"SCRAM-SHA-256\"",
		"AuthenticationSASLFinal", "PasswordMessage", "AuthenticationMD5Password", "CopyInResponse", "CopyOutResponse",
		"ErrorResponse", "FunctionCall", "FunctionCallResponse", `NotificationResponse`, `Query String="select 'done';"`} {
		if !strings.Contains(lines, want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	// Cleartext and MD5 passwords, SCRAM proofs and signatures, cancel keys: lengths only.
	for _, want := range []string{"PasswordMessage Password=<redacted ", "SASLResponse Data=<redacted ", "AuthenticationSASLContinue Data=<redacted ",
		"AuthenticationSASLFinal Data=<redacted ", "SecretKey=<redacted 4 bytes>"} {
		if !strings.Contains(lines, want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	for _, u := range []pgtest.User{pgtest.MD5User, pgtest.PlainUser, pgtest.SCRAMUser} {
		if strings.Contains(lines, u.Password) {
			t.Errorf("trace prints %s's password", u.Name)
		}
	}
}

// TestPgbench initialises pgbench's tables (COPY of 100000 rows) and runs
// its transactions in the simple, extended and prepared query modes.
func TestPgbench(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true})
	runClient(t, tr.addr, pgtest.SCRAMUser, "", "pgbench", "-i", "-q", "-s", "1")
	for _, mode := range []string{"simple", "extended", "prepared"} {
		before := tr.message(Frontend, &codec.Parse{})
		out := runClient(t, tr.addr, pgtest.SCRAMUser, "", "pgbench", "-n", "-M", mode, "-c", "2", "-j", "2", "-t", "30")
		if !strings.Contains(out, "number of transactions actually processed: 60/60") {
			t.Errorf("pgbench -M %s:\n%s", mode, out)
		}
		parses := tr.message(Frontend, &codec.Parse{}) - before
		// simple sends no Parse; extended one per statement; prepared one per statement and client.
		if (mode == "simple") != (parses == 0) || (mode == "prepared" && parses > 20) {
			t.Errorf("pgbench -M %s sent %d Parse messages", mode, parses)
		}
	}
	if n := tr.message(Frontend, &codec.CopyData{}); n < 100000 {
		t.Errorf("pgbench -i sent %d CopyData, want its 100000 rows", n)
	}
	tr.requireClean(t)
}

var publication sync.Once

// TestPgRecvlogical streams pgoutput through the proxy with protocol
// versions 1 (binary), 2 (streaming a large transaction and a rolled back
// one) and 3 (two-phase), as pg_recvlogical does.
func TestPgRecvlogical(t *testing.T) {
	s := pgtest.Get(t)
	publication.Do(func() {
		superuser(t, "create table recv(id int primary key, pad text); create publication recv_pub for table recv")
	})
	for _, c := range []struct {
		proto   int
		options []string
		work    []string
		want    []codec.Message // types that must have been decoded
	}{
		{1, []string{"binary=true"},
			[]string{"insert into recv values (1, 'a'), (2, 'b')", "update recv set pad = 'c' where id = 1", "delete from recv", "select pg_logical_emit_message(true, 'p', 'm')"},
			[]codec.Message{&codec.LogicalRelation{}, &codec.LogicalInsert{}, &codec.LogicalUpdate{}, &codec.LogicalDelete{}, &codec.LogicalMessage{}, &codec.LogicalCommit{}}},
		{2, []string{"streaming=on"},
			[]string{"insert into recv select g, repeat('s', 200) from generate_series(1, 1000) g",
				"begin; insert into recv select g, repeat('s', 200) from generate_series(1001, 2000) g; rollback", "truncate recv"},
			[]codec.Message{&codec.LogicalStreamStart{}, &codec.LogicalStreamStop{}, &codec.LogicalStreamCommit{}, &codec.LogicalStreamAbort{}, &codec.LogicalTruncate{}}},
		{3, []string{"two_phase=on", "streaming=on"},
			[]string{"begin; insert into recv values (3, 'p'); prepare transaction 'recv1'", "commit prepared 'recv1'",
				"begin; insert into recv values (4, 'p'); prepare transaction 'recv2'", "rollback prepared 'recv2'",
				"begin; insert into recv select g, repeat('s', 200) from generate_series(5000, 6000) g; prepare transaction 'recv3'", "commit prepared 'recv3'"},
			[]codec.Message{&codec.LogicalBeginPrepare{}, &codec.LogicalPrepare{}, &codec.LogicalCommitPrepared{}, &codec.LogicalRollbackPrepared{}, &codec.LogicalStreamPrepare{}}},
	} {
		t.Run(fmt.Sprintf("v%d", c.proto), func(t *testing.T) {
			tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true})
			slot := fmt.Sprintf("recv_v%d", c.proto)
			db := "dbname=" + pgtest.Database
			create := []string{"-d", db, "--slot", slot, "--create-slot", "-P", "pgoutput"}
			if c.proto == 3 {
				create = append(create, "--two-phase")
			}
			runClient(t, tr.addr, pgtest.Replication, "", "pg_recvlogical", create...)
			defer runClient(t, tr.addr, pgtest.Replication, "", "pg_recvlogical", "-d", db, "--slot", slot, "--drop-slot")
			for _, sql := range c.work {
				superuser(t, sql)
			}
			end := superuser(t, "select pg_current_wal_lsn()")
			// pg_recvlogical stops at the first message past -E; without one it waits for a keepalive.
			superuser(t, "select pg_logical_emit_message(false, 'p', 'past the end')")
			args := []string{"-d", db, "--slot", slot, "--start", "--no-loop", "-E", end, "-f", filepath.Join(t.TempDir(), "out"),
				"-o", fmt.Sprintf("proto_version=%d", c.proto), "-o", "publication_names=recv_pub", "-o", "messages=true"}
			for _, o := range c.options {
				args = append(args, "-o", o)
			}
			runClient(t, tr.addr, pgtest.Replication, "", "pg_recvlogical", args...)
			for _, m := range c.want {
				if tr.message(Backend, m) == 0 {
					t.Errorf("no %s decoded", m.Slug())
				}
			}
			if tr.message(Frontend, &codec.StandbyStatusUpdate{}) == 0 {
				t.Error("no standby status update decoded")
			}
			tr.requireClean(t)
		})
	}
}

// TestPgReceivewal streams physical WAL through the proxy up to a position
// past a row the test inserted.
func TestPgReceivewal(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true})
	superuser(t, "create table if not exists wal(v text); insert into wal values ('through the proxy')")
	end := superuser(t, "select pg_current_wal_lsn()")
	// pg_receivewal stops once WAL past -E arrives; without more it waits for a keepalive.
	superuser(t, "insert into wal values ('past the end')")
	dir := t.TempDir()
	runClient(t, tr.addr, pgtest.Replication, "", "pg_receivewal", "-D", dir, "-E", end, "-n", "--no-sync")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Error("pg_receivewal wrote no WAL file")
	}
	if tr.message(Backend, &codec.XLogData{}) == 0 || tr.message(Frontend, &codec.StandbyStatusUpdate{}) == 0 {
		t.Errorf("decoded %v / %v", tr.Stats(Backend).Messages, tr.Stats(Frontend).Messages)
	}
	tr.requireClean(t)
}

// TestJSONFormat checks that every line of a real session is valid against
// line.schema.json and holds the session's messages with their fields.
func TestJSONFormat(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true, Out: &syncBuffer{}, Format: Format{JSON: true}})
	runClient(t, tr.addr, pgtest.SCRAMUser, "", "psql", "-X", "-c", `select 'ü', '\x00ff'::bytea, null, repeat('y', 300)`)
	tr.requireClean(t)
	schema := lineSchema(t)
	type line struct {
		Time     time.Time
		Session  int64
		Dir      string
		Offset   int64
		Messages []map[string]any
	}
	var query, row bool
	for _, text := range strings.Split(strings.TrimSpace(tr.lines(t)), "\n") {
		validLine(t, schema, text)
		var l line
		if err := json.Unmarshal([]byte(text), &l); err != nil || l.Session != 1 || time.Since(l.Time) > time.Minute {
			t.Fatalf("line %s: %v", text, err)
		}
		switch m := l.Messages[0]; m["name"] {
		case "Query":
			query = m["String"] == `select 'ü', '\x00ff'::bytea, null, repeat('y', 300)`
		case "DataRow":
			row = fmt.Sprint(m["Values"]) == `[ü \x00ff <nil> map[bytes:300 text:`+strings.Repeat("y", DefaultMaxValue)+`]]`
		}
	}
	if !query || !row {
		t.Errorf("Query found %v, DataRow found %v in\n%s", query, row, tr.out)
	}
}

// TestGarbageClient: a client sending garbage is cut off with an error
// naming the byte offset, while another session through the same proxy goes on.
func TestGarbageClient(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true})
	good := connect(t, tr.addr, pgtest.SCRAMUser, nil)

	// Garbage as the very first bytes: no startup message is that long.
	bad := dial(t, tr.addr)
	bad.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	expectClosed(t, bad)
	if want := "frontend byte offset 0: codec: frame length 1195725856 (max 10000)"; !strings.Contains(tr.logged(), want) {
		t.Errorf("log lacks %q:\n%s", want, tr.log)
	}

	// Garbage after a valid startup: an unknown tag at the offset right after it.
	bad, _, sent := startRaw(t, tr.addr)
	bad.Write([]byte{'!', 0, 0, 0, 4})
	expectClosed(t, bad)
	if want := fmt.Sprintf("error: frontend message at byte offset %d: message '!' undecodable: codec: decode frontend message.tag at byte 0: unknown tag '!' (want 'B', 'C', 'D', 'E', 'F', 'H', 'P', 'Q', 'S', 'X', 'c', 'd', 'f', 'p'); closing the session (--strict)", sent); !strings.Contains(tr.logged(), want) {
		t.Errorf("log lacks %q:\n%s", want, tr.log)
	}

	if res, err := good.SimpleQuery("select 'still here'"); err != nil || string(res[0].Rows[0][0]) != "still here" {
		t.Errorf("the good session after the garbage: %v %v", res, err)
	}
	if st := tr.Stats(Frontend); st.Undecodable != 2 || st.Mismatched != 0 {
		t.Errorf("frontend counts %+v, want 2 undecodable", st)
	}
}

// TestDefaultForwardsUndecodable: without --strict a message the codec
// cannot decode is forwarded as received with a warning naming its offset,
// and the server's answer comes back through the proxy.
func TestDefaultForwardsUndecodable(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr()})
	c, fr, sent := startRaw(t, tr.addr)
	var be codec.Backend
	c.Write([]byte{'!', 0, 0, 0, 4})
	frame, err := fr.Next()
	if err != nil {
		t.Fatal(err)
	}
	m, err := be.Decode(frame, codec.Params{})
	e, ok := m.(*codec.ErrorResponse)
	if err != nil || !ok || session.NewError(e.Fields).SQLState() != "08P01" {
		t.Fatalf("server answered %v %v, want its protocol violation error", m, err)
	}
	if msg := session.NewError(e.Fields).Get(codec.ErrorFieldMessage); msg != "invalid frontend message type 33" {
		t.Errorf("server saw %q", msg)
	}
	if want := fmt.Sprintf("warning: frontend message at byte offset %d: message '!' undecodable: codec: decode frontend message.tag at byte 0: unknown tag '!' (want 'B', 'C', 'D', 'E', 'F', 'H', 'P', 'Q', 'S', 'X', 'c', 'd', 'f', 'p'); forwarded as received", sent); !strings.Contains(tr.logged(), want) {
		t.Errorf("log lacks %q:\n%s", want, tr.log)
	}
}

// startRaw logs in as the superuser on a bare connection, reads up to the
// first ReadyForQuery and returns how many bytes the client sent.
func startRaw(t *testing.T, addr string) (net.Conn, *codec.FrameReader, int) {
	t.Helper()
	c := dial(t, addr)
	startup, err := (&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{
		{Name: "user", Value: pgtest.Superuser.Name}, {Name: "database", Value: pgtest.Database}}}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	c.Write(startup)
	fr := codec.NewFrameReader(c)
	for {
		frame, err := fr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if frame[0] == 'Z' {
			return c, fr, len(startup)
		}
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// expectClosed reads until the proxy closes the connection.
func expectClosed(t *testing.T, c net.Conn) {
	t.Helper()
	buf := make([]byte, 1024)
	for {
		if _, err := c.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the proxy kept a garbage client's connection open")
			}
			return
		}
	}
}

// TestUnreachableUpstream: the check at start names the address, and a
// client of a proxy whose upstream went away is disconnected with a log line.
func TestUnreachableUpstream(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	tr := startTrace(t, Options{Upstream: closed, Strict: true})
	if err := tr.CheckUpstream(); err == nil || !strings.Contains(err.Error(), "upstream "+closed+" unreachable") {
		t.Errorf("CheckUpstream: %v", err)
	}
	c := dial(t, tr.addr)
	expectClosed(t, c)
	if want := "session #1: upstream " + closed + " unreachable"; !strings.Contains(tr.logged(), want) {
		t.Errorf("log lacks %q:\n%s", want, tr.log)
	}
}

// TestProtocolNegotiation: a client asking for protocol 3.2 with an unknown
// option gets NegotiateProtocolVersion from PostgreSQL 15; the proxy follows
// it, and under --strict the GSSAPI encryption a server accepts ('G') ends
// the session with an error naming the offset.
func TestProtocolNegotiation(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := pgclient.Config{Addr: tr.addr, User: pgtest.SCRAMUser.Name, Password: pgtest.SCRAMUser.Password, Database: pgtest.Database,
		ProtocolMinor: 2, ProtocolOptions: map[string]string{"_pq_.pgspec": "1"}}
	c, err := pgclient.Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SimpleQuery("select 1"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if tr.message(Backend, &codec.NegotiateProtocolVersion{}) != 1 || tr.message(Backend, &codec.BackendKeyData{}) != 1 {
		t.Errorf("decoded %v", tr.Stats(Backend).Messages)
	}
	tr.requireClean(t)

	cfg.GSSEncRequest = true
	if _, err := pgclient.Connect(ctx, cfg); err == nil || !strings.Contains(err.Error(), "answered 'G'") {
		t.Errorf("GSSENCRequest through the proxy: %v", err)
	}
	// The client has the relayed 'G' before the proxy logs and closes.
	waitSessions(t, tr, 0)
	if want := "server accepted encryption ('G') at backend offset 0; cannot decode, closing (--strict)"; !strings.Contains(tr.logged(), want) {
		t.Errorf("log lacks %q:\n%s", want, tr.log)
	}
}

// TestPgBasebackup takes a base backup with a manifest and progress
// reports through the proxy: the CopyData of BASE_BACKUP carry new-archive,
// data, progress and manifest messages.
func TestPgBasebackup(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true})
	runClient(t, tr.addr, pgtest.Replication, "", "pg_basebackup", "-D", filepath.Join(t.TempDir(), "backup"), "-X", "none", "--no-sync", "-P", "-c", "fast")
	for _, m := range []codec.Message{&codec.BackupNewArchive{}, &codec.BackupData{}, &codec.BackupProgress{}, &codec.BackupManifest{}} {
		if tr.message(Backend, m) == 0 {
			t.Errorf("no %s decoded: %v", m.Slug(), tr.Stats(Backend).Messages)
		}
	}
	tr.requireClean(t)
}

// TestCancelAndFeedback sends what no PostgreSQL client program sends
// through the proxy: a CancelRequest (decoded in the startup phase of its own
// session) and hot standby feedback on a physical stream.
func TestCancelAndFeedback(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Strict: true})
	c := connect(t, tr.addr, pgtest.SCRAMUser, nil)
	if err := c.Send(&codec.Query{String: "select pg_sleep(30)"}); err != nil {
		t.Fatal(err)
	}
	// A cancel that arrives before the query runs is ignored, and a repeated
	// one could outlive the query: wait until the backend sleeps, cancel once.
	watcher := connect(t, s.Addr(), pgtest.Superuser, nil)
	sleeping := fmt.Sprintf("select count(*) from pg_stat_activity where pid = %d and wait_event = 'PgSleep'", c.ProcessID)
	for i := 0; ; i++ {
		res, err := watcher.SimpleQuery(sleeping)
		if err != nil {
			t.Fatal(err)
		}
		if string(res[0].Rows[0][0]) == "1" {
			break
		}
		if i == 500 {
			t.Fatal("the backend never started sleeping")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Cancel(tr.addr); err != nil {
		t.Fatal(err)
	}
	_, err := c.ReadUntilReady(nil)
	if e, ok := err.(*session.Error); !ok || e.SQLState() != "57014" {
		t.Errorf("query cancelled through the proxy: %v", err)
	}

	repl := connect(t, tr.addr, pgtest.Replication, map[string]string{"replication": "true"})
	sys, err := repl.SimpleQuery("IDENTIFY_SYSTEM")
	if err != nil {
		t.Fatal(err)
	}
	start, err := codec.ParseLSN(string(sys[0].Rows[0][2]))
	if err != nil {
		t.Fatal(err)
	}
	if err := repl.StartReplication(&codec.StartReplicationPhysical{Physical: true, LSN: start}); err != nil {
		t.Fatal(err)
	}
	if err := repl.SendCopyData(&codec.HotStandbyFeedback{ClientTime: 1}); err != nil { // 0 xmins: feedback off
		t.Fatal(err)
	}
	if err := repl.SendCopyData(&codec.StandbyStatusUpdate{ClientTime: 1, ReplyRequested: 1}); err != nil {
		t.Fatal(err)
	}
	for {
		rm, err := repl.ReceiveReplication()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rm.Msg.(*codec.PrimaryKeepalive); ok {
			break
		}
	}
	for _, m := range []codec.Message{&codec.CancelRequest{}, &codec.HotStandbyFeedback{}, &codec.StandbyStatusUpdate{}} {
		if tr.message(Frontend, m) == 0 {
			t.Errorf("no %s decoded: %v", m.Slug(), tr.Stats(Frontend).Messages)
		}
	}
	tr.requireClean(t)
}
