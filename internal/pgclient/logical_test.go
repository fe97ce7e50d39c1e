package pgclient

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
)

// lsn formats a WAL position as PostgreSQL prints it.
func lsn(p uint64) string { return session.LSN(p).String() }

var replSetup sync.Once

// setupPublication creates, once per test binary, the tables the logical
// replication tests change and a publication of them.
func setupPublication(t *testing.T) *Conn {
	t.Helper()
	su := connect(t, pgtest.Superuser)
	replSetup.Do(func() {
		query(t, su, `create type mood as enum ('sad', 'happy');
			create table rep_default(id int primary key, name text, big text, m mood);
			alter table rep_default alter big set storage external;
			create table rep_full(id int, v text, n int8);
			alter table rep_full replica identity full;
			create table rep_stream(id int, pad text);
			create publication pub for table rep_default, rep_full, rep_stream`)
	})
	return su
}

// variant is one START_REPLICATION configuration of pgoutput.
type variant struct {
	proto             int
	binary, streaming bool
	twoPhase          bool
}

func (v variant) name() string {
	n := "v" + strconv.Itoa(v.proto)
	if v.binary {
		n += "-binary"
	}
	return n
}

// TestLogicalReplication creates a pgoutput slot, runs a workload, streams
// it with START_REPLICATION and checks every decoded pgoutput message
// against the SQL that produced it; then confirms the position with a
// standby status update the server must apply to the slot.
func TestLogicalReplication(t *testing.T) {
	for _, v := range []variant{
		{proto: 1}, {proto: 1, binary: true},
		{proto: 2, streaming: true}, {proto: 2, streaming: true, binary: true},
		{proto: 3, streaming: true, twoPhase: true}, {proto: 3, streaming: true, twoPhase: true, binary: true},
	} {
		t.Run(v.name(), func(t *testing.T) { testLogical(t, v) })
	}
}

func testLogical(t *testing.T, v variant) {
	su := setupPublication(t)
	query(t, su, "delete from rep_default; truncate rep_full, rep_stream")
	moodOID := scalar(t, su, "select 'mood'::regtype::oid")

	repl := connect(t, pgtest.Replication, func(c *Config) { c.Params = map[string]string{"replication": "database"} })
	sys := query(t, repl, "IDENTIFY_SYSTEM")[0]
	if got := strings.Join(sys.Columns, ","); got != "systemid,timeline,xlogpos,dbname" || string(sys.Rows[0][3]) != pgtest.Database {
		t.Fatalf("IDENTIFY_SYSTEM %v %q", sys.Columns, sys.Rows)
	}
	slot := "slot_" + strings.ReplaceAll(v.name(), "-", "_")
	created := query(t, repl, fmt.Sprintf("CREATE_REPLICATION_SLOT %s TEMPORARY LOGICAL pgoutput (TWO_PHASE %v)", slot, v.twoPhase))[0]
	if string(created.Rows[0][0]) != slot || string(created.Rows[0][3]) != "pgoutput" {
		t.Fatalf("CREATE_REPLICATION_SLOT gave %q", created.Rows)
	}

	big := strings.Repeat("0123456789abcdef", 600) // 9600 bytes, stored out of line
	want := []string{
		"BEGIN", "TYPE public.mood", "RELATION public.rep_default d id:23:1 name:25:0 big:25:0 m:" + moodOID + ":0",
		"INSERT rep_default (%1 %a [9600] %happy)", "INSERT rep_default (%2 n n n)", "COMMIT",
		"BEGIN", "UPDATE rep_default (%1 %b u %happy)", "COMMIT",
		"BEGIN", "UPDATE rep_default K(%2 n n n) (%3 n n n)", "COMMIT",
		"BEGIN", "DELETE rep_default K(%3 n n n)", "COMMIT",
		"BEGIN", "RELATION public.rep_full f id:23:1 v:25:1 n:20:1", "INSERT rep_full (%1 %x %5)",
		"UPDATE rep_full O(%1 %x %5) (%1 %x %6)", "DELETE rep_full O(%1 %x %6)", "COMMIT",
		// TRUNCATE gives the table a new relfilenode, so pgoutput describes it again.
		"BEGIN", "RELATION public.rep_full f id:23:1 v:25:1 n:20:1", "TRUNCATE 2 rep_full", "COMMIT",
		"BEGIN", `MESSAGE 1 pgspec "transactional ü"`, "COMMIT",
		`MESSAGE 0 pgspec "\x00\xff"`,
	}
	work := []string{
		"insert into rep_default values (1, 'a', '" + big + "', 'happy'), (2, null, null, null)",
		"update rep_default set name = 'b' where id = 1",
		"update rep_default set id = 3 where id = 2",
		"delete from rep_default where id = 3",
		"begin; insert into rep_full values (1, 'x', 5); update rep_full set n = 6; delete from rep_full; commit",
		"truncate rep_full restart identity",
		"select pg_logical_emit_message(true, 'pgspec', 'transactional ü')",
		`select pg_logical_emit_message(false, 'pgspec', '\x00ff'::bytea)`,
	}
	const rows = "insert into rep_stream select g, repeat('s', 200) from generate_series(%d, %d) g"
	if v.streaming {
		// Each is far above logical_decoding_work_mem (64kB), so the server streams it.
		work = append(work,
			// The logical message inside the streamed transaction carries its xid.
			"begin; "+fmt.Sprintf(rows, 1, 1000)+"; select pg_logical_emit_message(true, 'pgspec', 'in stream'); commit",
			"begin; "+fmt.Sprintf(rows, 1, 1000)+"; rollback",
			"begin; "+fmt.Sprintf(rows, 1, 1000)+"; savepoint s; "+fmt.Sprintf(rows, 2001, 3000)+"; rollback to s; "+fmt.Sprintf(rows, 5000, 5000)+"; commit")
		want = append(want,
			"STREAM COMMIT rows=1000 ids=1..1000 messages=1",
			"STREAM ABORT streamed",
			"STREAM ABORT SUBXACT streamed", "STREAM COMMIT rows=1001 ids=1..5000")
	}
	if v.twoPhase {
		work = append(work,
			"begin; insert into rep_default values (50, 'prepared', null, 'sad'); prepare transaction 'gid1'",
			"commit prepared 'gid1'",
			"begin; insert into rep_default values (51, 'rolled back', null, null); prepare transaction 'gid2'",
			"rollback prepared 'gid2'",
			"begin; "+fmt.Sprintf(rows, 1, 1000)+"; prepare transaction 'gid3'",
			"commit prepared 'gid3'")
		want = append(want,
			"BEGIN PREPARE gid1", "INSERT rep_default (%50 %prepared n %sad)", "PREPARE gid1", "COMMIT PREPARED gid1",
			"BEGIN PREPARE gid2", "INSERT rep_default (%51 %rolled back n n)", "PREPARE gid2", "ROLLBACK PREPARED gid2",
			"STREAM PREPARE gid3 rows=1000 ids=1..1000", "COMMIT PREPARED gid3")
	}
	work = append(work, "insert into rep_default values (99, 'end', null, null)")
	want = append(want, "BEGIN", "INSERT rep_default (%99 %end n n)", "COMMIT")
	for _, sql := range work {
		query(t, su, sql)
	}

	opts := fmt.Sprintf("proto_version '%d', publication_names 'pub', messages 'true', binary '%v'", v.proto, v.binary)
	if v.streaming {
		opts += ", streaming 'on'"
	}
	if v.twoPhase {
		opts += ", two_phase 'on'"
	}
	if err := repl.StartReplication(fmt.Sprintf("START_REPLICATION SLOT %s LOGICAL 0/0 (%s)", slot, opts)); err != nil {
		t.Fatal(err)
	}
	lg := newLogicalLog(t, v.binary)
	for !lg.sawEnd() {
		rm, err := repl.ReceiveReplication()
		if err != nil {
			t.Fatalf("after %q: %v", lg.lines, err)
		}
		switch m := rm.Msg.(type) {
		case *codec.XLogData:
			lg.add(rm.Logical)
		case *codec.PrimaryKeepalive:
		default:
			t.Fatalf("got %s in the replication stream", m.Slug())
		}
	}
	kind := "t:"
	if v.binary {
		kind = "b:"
	}
	for i := range want {
		want[i] = strings.ReplaceAll(want[i], "%", kind)
	}
	if !slices.Equal(lg.lines, want) {
		t.Errorf("decoded changes\n got %q\nwant %q", lg.lines, want)
	}
	confirmFlush(t, repl, su, slot, lg.endLSN)
}

// confirmFlush sends a standby status update for pos and checks that the
// server moved the slot's confirmed_flush_lsn there.
func confirmFlush(t *testing.T, repl, su *Conn, slot string, pos uint64) {
	t.Helper()
	if err := repl.SendCopyData(session.StandbyStatus(session.LSN(pos), session.LSN(pos), session.LSN(pos), time.Now(), true)); err != nil {
		t.Fatal(err)
	}
	// The server answers a requested reply with a keepalive.
	for {
		rm, err := repl.ReceiveReplication()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rm.Msg.(*codec.PrimaryKeepalive); ok {
			break
		}
	}
	// That keepalive may have left before the update was applied: poll.
	got := ""
	for range 250 {
		if got = scalar(t, su, "select confirmed_flush_lsn from pg_replication_slots where slot_name = '"+slot+"'"); got == lsn(pos) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("slot %s confirmed_flush_lsn %s, want %s from the standby status update", slot, got, lsn(pos))
}

// logicalLog turns decoded pgoutput messages into lines to compare with
// what the test's SQL must produce. Changes inside streamed transactions are
// gathered per transaction and summarised when it commits, aborts or prepares.
type logicalLog struct {
	t      *testing.T
	binary bool
	lines  []string
	rels   map[uint32]relation
	// beginLSN is the open transaction's final LSN, checked against its commit.
	beginLSN uint64
	// stream is the top-level xid of the open stream segment, 0 outside one.
	stream uint32
	// topOf maps a streamed (sub)transaction to its top-level xid; ids holds
	// the first column of the rows each inserted.
	topOf map[uint32]uint32
	ids   map[uint32][]int64
	// messages counts the logical messages streamed per top-level xid.
	messages map[uint32]int
	endLSN   uint64
}

type relation struct {
	name  string
	types []uint32
}

func newLogicalLog(t *testing.T, binary bool) *logicalLog {
	return &logicalLog{t: t, binary: binary, rels: map[uint32]relation{}, topOf: map[uint32]uint32{}, ids: map[uint32][]int64{}, messages: map[uint32]int{}}
}

// sawEnd reports whether the workload's last transaction has been committed.
func (l *logicalLog) sawEnd() bool {
	n := len(l.lines)
	return n >= 2 && strings.HasPrefix(l.lines[n-2], "INSERT rep_default (") && strings.Contains(l.lines[n-2], ":99 ") && l.lines[n-1] == "COMMIT"
}

func (l *logicalLog) add(m codec.Message) {
	t := l.t
	t.Helper()
	inStream := l.stream != 0
	line := ""
	switch m := m.(type) {
	case *codec.LogicalBegin:
		l.beginLSN = m.FinalLSN
		if m.Xid == 0 || m.CommitTime == 0 {
			t.Errorf("Begin %+v", m)
		}
		line = "BEGIN"
	case *codec.LogicalCommit:
		if m.CommitLSN != l.beginLSN || m.TransactionEndLSN <= m.CommitLSN {
			t.Errorf("Commit LSN %s end %s, Begin said %s", lsn(m.CommitLSN), lsn(m.TransactionEndLSN), lsn(l.beginLSN))
		}
		l.endLSN = m.TransactionEndLSN
		line = "COMMIT"
	case *codec.LogicalType:
		l.checkXid(m.Xid)
		line = "TYPE " + m.Namespace + "." + m.Name
	case *codec.LogicalRelation:
		l.checkXid(m.Xid)
		rel := relation{name: strings.Clone(m.RelationName)}
		line = fmt.Sprintf("RELATION %s.%s %c", m.Namespace, m.RelationName, m.ReplicaIdentity)
		for _, c := range m.Columns {
			rel.types = append(rel.types, c.DataType)
			line += fmt.Sprintf(" %s:%d:%d", c.Name, c.DataType, c.Flags)
		}
		l.rels[m.RelationOID] = rel
	case *codec.LogicalInsert:
		l.checkXid(m.Xid)
		if inStream {
			l.ids[m.Xid] = append(l.ids[m.Xid], l.firstInt(m.RelationOID, m.New))
		}
		line = "INSERT " + l.rels[m.RelationOID].name + " " + l.tuple(m.RelationOID, m.New)
	case *codec.LogicalUpdate:
		l.checkXid(m.Xid)
		line = "UPDATE " + l.rels[m.RelationOID].name + " "
		if m.OldKind != 0 {
			line += string(m.OldKind) + l.tuple(m.RelationOID, m.Old) + " "
		}
		line += l.tuple(m.RelationOID, m.New)
	case *codec.LogicalDelete:
		l.checkXid(m.Xid)
		line = "DELETE " + l.rels[m.RelationOID].name + " " + string(m.OldKind) + l.tuple(m.RelationOID, m.Old)
	case *codec.LogicalTruncate:
		l.checkXid(m.Xid)
		line = fmt.Sprintf("TRUNCATE %d", m.Options)
		for _, oid := range m.RelationOIDs {
			line += " " + l.rels[oid].name
		}
	case *codec.LogicalMessage:
		l.checkXid(m.Xid)
		if inStream {
			l.messages[l.topOf[m.Xid]]++
		}
		line = fmt.Sprintf("MESSAGE %d %s %q", m.Flags, m.Prefix, m.Content)
	case *codec.LogicalStreamStart:
		if inStream || (m.FirstSegment == 1) == (l.topOf[m.Xid] == m.Xid) {
			t.Errorf("Stream Start %+v: in stream %v, first segment seen before %v", m, inStream, l.topOf[m.Xid] == m.Xid)
		}
		l.stream, l.topOf[m.Xid] = m.Xid, m.Xid
	case *codec.LogicalStreamStop:
		if !inStream {
			t.Error("Stream Stop outside a stream")
		}
		l.stream = 0
	case *codec.LogicalStreamCommit:
		line = "STREAM COMMIT " + l.summary(l.take(m.Xid, true))
		if n := l.messages[m.Xid]; n > 0 {
			line += fmt.Sprintf(" messages=%d", n)
			delete(l.messages, m.Xid)
		}
	case *codec.LogicalStreamAbort:
		// What was still in memory at the abort is dropped unsent, so only
		// some of the aborted rows were streamed.
		line = "STREAM ABORT SUBXACT"
		rows := l.take(m.SubXid, false)
		if m.SubXid == m.Xid {
			line = "STREAM ABORT"
			rows = append(rows, l.take(m.Xid, true)...)
		}
		if len(rows) == 0 {
			t.Errorf("%s for %d/%d that streamed no rows", line, m.Xid, m.SubXid)
		}
		line += " streamed"
	case *codec.LogicalBeginPrepare:
		l.beginLSN = m.PrepareLSN
		line = "BEGIN PREPARE " + m.GID
	case *codec.LogicalPrepare:
		if m.PrepareLSN != l.beginLSN {
			t.Errorf("Prepare LSN %s, Begin Prepare said %s", lsn(m.PrepareLSN), lsn(l.beginLSN))
		}
		line = "PREPARE " + m.GID
	case *codec.LogicalStreamPrepare:
		line = "STREAM PREPARE " + m.GID + " " + l.summary(l.take(m.Xid, true))
	case *codec.LogicalCommitPrepared:
		line = "COMMIT PREPARED " + m.GID
	case *codec.LogicalRollbackPrepared:
		line = "ROLLBACK PREPARED " + m.GID
	default:
		t.Errorf("unexpected pgoutput %s", m.Slug())
	}
	// Streamed changes are summarised at the end of their transaction.
	if line != "" && !inStream {
		l.lines = append(l.lines, line)
	}
}

// checkXid checks a change's xid: inside a stream it names the streamed
// transaction or one of its subtransactions; outside it is absent (0).
func (l *logicalLog) checkXid(xid uint32) {
	l.t.Helper()
	switch {
	case l.stream == 0 && xid != 0:
		l.t.Errorf("xid %d outside a streamed transaction", xid)
	case l.stream != 0 && xid == 0:
		l.t.Errorf("no xid inside the stream of %d", l.stream)
	case l.stream != 0 && xid != l.stream:
		if top, ok := l.topOf[xid]; ok && top != l.stream {
			l.t.Errorf("subtransaction %d of %d appears in the stream of %d", xid, top, l.stream)
		}
		l.topOf[xid] = l.stream
	}
}

// take removes and returns the ids inserted by xid and, with subs, by its subtransactions.
func (l *logicalLog) take(xid uint32, subs bool) []int64 {
	var ids []int64
	for x, top := range l.topOf {
		if x == xid || (subs && top == xid) {
			ids = append(ids, l.ids[x]...)
			delete(l.ids, x)
			delete(l.topOf, x)
		}
	}
	return ids
}

func (l *logicalLog) summary(ids []int64) string {
	if len(ids) == 0 {
		return "rows=0"
	}
	return fmt.Sprintf("rows=%d ids=%d..%d", len(ids), slices.Min(ids), slices.Max(ids))
}

// tuple renders TupleData columns: n (NULL), u (unchanged TOAST), t:text or
// b:binary values decoded by column type, [len] for long values.
func (l *logicalLog) tuple(rel uint32, td codec.TupleData) string {
	l.t.Helper()
	types := l.rels[rel].types
	if len(td.Columns) != len(types) {
		l.t.Errorf("tuple of %d columns for a relation of %d", len(td.Columns), len(types))
		return "(?)"
	}
	parts := make([]string, len(td.Columns))
	for i, c := range td.Columns {
		switch c.Kind {
		case 'n', 'u':
			parts[i] = string(c.Kind)
		case 't', 'b':
			if c.Kind == 'b' != l.binary {
				l.t.Errorf("column kind %q with binary=%v", c.Kind, l.binary)
			}
			parts[i] = string(c.Kind) + ":" + l.value(c, types[i])
			if len(c.Data) > 100 {
				parts[i] = fmt.Sprintf("[%d]", len(c.Data))
			}
		default:
			l.t.Errorf("column kind %q", c.Kind)
		}
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// value is a column's value as text: binary int4/int8 are converted, text
// and enum labels are the same bytes in both formats.
func (l *logicalLog) value(c codec.TupleDataColumn, typ uint32) string {
	if c.Kind == 'b' {
		switch typ {
		case 23:
			return strconv.Itoa(int(int32(binary.BigEndian.Uint32(c.Data))))
		case 20:
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(c.Data)), 10)
		}
	}
	return string(c.Data)
}

func (l *logicalLog) firstInt(rel uint32, td codec.TupleData) int64 {
	n, err := strconv.ParseInt(l.value(td.Columns[0], l.rels[rel].types[0]), 10, 64)
	if err != nil {
		l.t.Errorf("first column: %v", err)
	}
	return n
}
