package cdc

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(crashChild())
	}
	os.Exit(pgtest.Main(m))
}

// dial opens a session to addr as u, a replication one when repl, over
// the connection wrap makes of the TCP one (nil: as it is).
func dial(addr string, u pgtest.User, repl bool, wrap func(net.Conn) net.Conn) (*session.Conn, net.Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	cfg := session.Config{User: u.Name, Password: u.Password, Database: pgtest.Database}
	if repl {
		cfg.Params = map[string]string{"replication": "database"}
	}
	if wrap != nil {
		nc = wrap(nc)
	}
	c := session.NewConn(nc)
	if err := c.Startup(cfg); err != nil {
		nc.Close()
		return nil, nil, err
	}
	return c, nc, nil
}

func connect(t *testing.T, u pgtest.User, repl bool) (*session.Conn, net.Conn) {
	t.Helper()
	c, nc, err := dial(pgtest.Get(t).Addr(), u, repl, nil)
	if err != nil {
		t.Fatalf("connect as %s: %v", u.Name, err)
	}
	nc.SetDeadline(time.Now().Add(2 * time.Minute)) // no test hangs on a silent server
	t.Cleanup(func() { nc.Close() })
	return c, nc
}

func do(t *testing.T, c *session.Conn, sql string) {
	t.Helper()
	if err := c.Exec(sql, nil); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func scalar(t *testing.T, c *session.Conn, sql string) string {
	t.Helper()
	var v []byte
	err := c.Exec(sql, func(m codec.Message) error {
		if d, ok := m.(*codec.DataRow); ok && len(d.Values) == 1 {
			v = append([]byte(nil), d.Values[0]...)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return string(v)
}

// dropSlot drops slot once its walsender has gone.
func dropSlot(t *testing.T, su *session.Conn, slot string) {
	t.Helper()
	for range 250 {
		if scalar(t, su, "select active from pg_replication_slots where slot_name = "+literal(slot)) == "f" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	do(t, su, "select pg_drop_replication_slot("+literal(slot)+")")
}

var setupOnce sync.Once

// setup creates, once per test binary, the tables the live tests change
// (their big columns stored out of line, so unchanged ones are 'u') and
// a publication of them.
func setup(t *testing.T) *session.Conn {
	su, _ := connect(t, pgtest.Superuser, false)
	setupOnce.Do(func() {
		do(t, su, `create table cdc_t(id int primary key, name text, big text);
			alter table cdc_t alter big set storage external;
			create table cdc_full(id int, v text, big text);
			alter table cdc_full replica identity full;
			alter table cdc_full alter big set storage external;
			create table cdc_s(id int, pad text);
			create table cdc_crash(id int primary key, batch int, pad text);
			create publication cdc_pub for table cdc_t, cdc_full, cdc_s;
			create publication cdc_crash_pub for table cdc_crash;
			grant select on all tables in schema public to repl_user`)
	})
	return su
}

// collector renders events for the live tests: positions and xids vary
// by run, so they are left out, long values are [length], and runs of
// inserts into one table are counted.
type collector struct {
	lines []string
	runOf string
	run   int
}

var positions = regexp.MustCompile(` (final|end)=\S+`)

func (c *collector) add(e Event) {
	line := render(e)
	switch e := e.(type) {
	case *Begin:
		line = strings.Replace(positions.ReplaceAllString(line, ""), fmt.Sprintf(" %d", e.Xid), "", 1)
	case *Commit:
		line = "COMMIT"
	case *Prepare, *CommitPrepared, *RollbackPrepared:
		line = positions.ReplaceAllString(line, "")
	case *Insert:
		if e.Relation.Name == "cdc_s" && len(e.New.Values[1].Raw) == 200 {
			if c.runOf == e.Relation.Name {
				c.run++
				c.lines[len(c.lines)-1] = fmt.Sprintf("INSERT cdc_s ×%d", c.run)
				return
			}
			c.runOf, c.run = e.Relation.Name, 1
			c.lines = append(c.lines, "INSERT cdc_s ×1")
			return
		}
	}
	c.runOf = ""
	c.lines = append(c.lines, longValues.ReplaceAllStringFunc(line, func(s string) string { return fmt.Sprintf("[%d]", len(s)) }))
}

var longValues = regexp.MustCompile(`[0-9a-f]{64,}`)

// TestLive runs a workload on PostgreSQL 15 and checks every event the
// consumer delivers: TOAST values left unchanged, REPLICA IDENTITY FULL,
// ADD and DROP COLUMN between and inside transactions (one streamed),
// streamed transactions past logical_decoding_work_mem (64kB) committed,
// aborted and with a subtransaction rolled back, spilled past a 32 kB
// memory limit, two-phase commits, concurrent transactions in commit
// order, logical messages; then that the slot advanced to what the
// application confirmed, and no further.
func TestLive(t *testing.T) {
	su := setup(t)
	other, _ := connect(t, pgtest.Superuser, false)
	repl, replNet := connect(t, pgtest.Replication, true)
	spill := t.TempDir()
	c, err := New(repl, Config{Slot: "cdc_live", Publications: []string{"cdc_pub"}, CreateSlot: true,
		MemoryLimit: 32 << 10, SpillDir: spill, StatusInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replNet.Close(); dropSlot(t, su, "cdc_live") })
	if c.Options != (PluginOptions{ProtoVersion: 3, Streaming: "on", TwoPhase: true, Messages: true}) {
		t.Errorf("options for 15: %+v", c.Options)
	}

	big := strings.Repeat("0123456789abcdef", 600) // 9600 bytes, out of line
	rows := "insert into cdc_s select g, repeat('s', 200) from generate_series(%d, %d) g"
	work := []string{
		"insert into cdc_t values (1, 'a', '" + big + "')",
		"update cdc_t set name = 'b' where id = 1",
		"insert into cdc_full values (1, 'x', '" + big + "')",
		"update cdc_full set v = 'y'",
		"alter table cdc_t add column extra int",
		"insert into cdc_t values (2, 'c', null, 5)",
		"alter table cdc_t drop column name",
		"update cdc_t set extra = 6 where id = 1",
		"begin; " + fmt.Sprintf(rows, 1, 1000) + "; alter table cdc_s add column more int; insert into cdc_s values (0, 'after', 7); commit",
		"begin; " + fmt.Sprintf(rows, 1, 1000) + "; rollback",
		"begin; " + fmt.Sprintf(rows, 1, 1000) + "; savepoint s; " + fmt.Sprintf(rows, 1, 1000) + "; rollback to s; " + fmt.Sprintf(rows, 1, 1) + "; commit",
		"begin; insert into cdc_t values (50, null, 1); prepare transaction 'g1'",
		"commit prepared 'g1'",
		"begin; insert into cdc_t values (51, null, 2); prepare transaction 'g2'",
		"rollback prepared 'g2'",
		"begin; " + fmt.Sprintf(rows, 1, 1000) + "; prepare transaction 'g3'",
		"commit prepared 'g3'",
		"begin; insert into cdc_t values (60, null, 1)",
	}
	for _, sql := range work {
		do(t, su, sql)
	}
	do(t, other, "begin; insert into cdc_t values (61, null, 1); commit")
	do(t, su, "insert into cdc_t values (62, null, 1); commit")
	do(t, su, "select pg_logical_emit_message(true, 'p', 'in'); select pg_logical_emit_message(false, 'p', 'out')")
	do(t, su, "insert into cdc_t values (99, 'end', null)")
	want := []string{
		"BEGIN", "RELATION public.cdc_t *id:23,name:25,big:25", "INSERT cdc_t (t:1 t:a t:[9600])", "COMMIT",
		"BEGIN", "UPDATE cdc_t (t:1 t:b u)", "COMMIT",
		"BEGIN", "RELATION public.cdc_full *id:23,*v:25,*big:25", "INSERT cdc_full (t:1 t:x t:[9600])", "COMMIT",
		"BEGIN", "UPDATE cdc_full O(t:1 t:x t:[9600]) (t:1 t:y u=t:[9600])", "COMMIT",
		"BEGIN", "RELATION public.cdc_t *id:23,name:25,big:25,extra:23 was *id:23,name:25,big:25", "INSERT cdc_t (t:2 t:c n t:5)", "COMMIT",
		"BEGIN", "RELATION public.cdc_t *id:23,big:25,extra:23 was *id:23,name:25,big:25,extra:23", "UPDATE cdc_t (t:1 u t:6)", "COMMIT",
		"BEGIN streamed", "RELATION public.cdc_s id:23,pad:25", "INSERT cdc_s ×1000",
		"RELATION public.cdc_s id:23,pad:25,more:23 was id:23,pad:25", "INSERT cdc_s (t:0 t:after t:7)", "COMMIT",
		"BEGIN streamed", "INSERT cdc_s ×1001", "COMMIT",
		"BEGIN prepared g1", "INSERT cdc_t (t:50 n t:1)", "PREPARE g1", "COMMIT PREPARED g1",
		"BEGIN prepared g2", "INSERT cdc_t (t:51 n t:2)", "PREPARE g2", "ROLLBACK PREPARED g2",
		"BEGIN streamed prepared g3", "INSERT cdc_s ×1000", "PREPARE g3", "COMMIT PREPARED g3",
		"BEGIN", "INSERT cdc_t (t:61 n t:1)", "COMMIT",
		"BEGIN", "INSERT cdc_t (t:60 n t:1)", "INSERT cdc_t (t:62 n t:1)", "COMMIT",
		// One simple query is one transaction: the message outside it comes first.
		`MESSAGE false p "out"`,
		"BEGIN", `MESSAGE true p "in"`, "COMMIT",
		"BEGIN", "INSERT cdc_t (t:99 t:end n)",
	}
	var got collector
	var last LSN
	err = c.Run(func(e Event) error {
		got.add(e)
		if b, ok := e.(Boundary); ok {
			if err := c.Confirm(b.End()); err != nil {
				return err
			}
			last = b.End()
		}
		if ins, ok := e.(*Insert); ok && ins.Relation.Name == "cdc_t" && string(ins.New.Values[0].Raw) == "99" {
			return ErrStop // before its commit: the slot must stay at the one before
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v after %q", err, got.lines)
	}
	if strings.Join(got.lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n got %q\nwant %q", got.lines, want)
	}
	if st := c.Stats(); st.Spilled == 0 || st.Held != 0 {
		t.Errorf("stats %+v: want streamed transactions spilled past 32 kB, none held", st)
	}
	if files, _ := os.ReadDir(spill); len(files) != 0 {
		t.Errorf("spill files left: %v", files)
	}
	// Run reported the confirmed position as it returned.
	var slot string
	for range 250 {
		if slot = scalar(t, su, "select confirmed_flush_lsn from pg_replication_slots where slot_name = 'cdc_live'"); slot == last.String() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if slot != last.String() {
		t.Errorf("slot confirmed at %s, want the last boundary confirmed, %s", slot, last)
	}
}
