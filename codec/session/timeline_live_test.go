package session_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/pgtest"
)

// A timeline that ends, on PostgreSQL 15: a standby of the test server is
// promoted (pg_promote), which puts it on timeline 2 with a history file.
// TIMELINE_HISTORY 2 is read by its generated type; START_REPLICATION of
// timeline 1 streams up to the switch point, the server ends the copy, and
// the end-of-timeline result set (next_tli, next_tli_startpos) is read by
// the generated TimelineSwitchResult: the next timeline and the point the
// history gives. Asked to start exactly there, the server skips the copy
// and sends the result set at once.
func TestTimelineSwitchAgainstPostgreSQL15(t *testing.T) {
	primary := pgtest.Get(t)
	st := primary.Standby(t)
	// WAL the standby replays before its promotion, so that the switch
	// point falls inside a segment, after some of timeline 1's records.
	if err := primary.Psql(pgtest.Database, "CREATE TABLE i21_timeline AS SELECT generate_series(1, 1000) AS n"); err != nil {
		t.Fatal(err)
	}
	pc, _ := replConn(t, pgtest.Superuser, "database")
	pid, err := codec.ReadIdentifySystemResult(set(results(t, pc, &codec.IdentifySystem{}), 0))
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := replConnTo(t, st, pgtest.Superuser, "database")
	caughtUp := "SELECT pg_last_wal_replay_lsn() >= '" + pid[0].Xlogpos.String() + "'"
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var done bool
		if err := sc.Exec(caughtUp, func(m codec.Message) error {
			if r, ok := m.(*codec.DataRow); ok {
				done = string(r.Values[0]) == "t"
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not replay up to %v in a minute", pid[0].Xlogpos)
		}
	}
	if err := sc.Exec("SELECT pg_promote(true, 60)", nil); err != nil {
		t.Fatal(err)
	}
	c, _ := replConnTo(t, st, pgtest.Replication, "true")
	sys := results(t, c, &codec.IdentifySystem{})
	id, err := codec.ReadIdentifySystemResult(set(sys, 0))
	if err != nil || id[0].Timeline != 2 {
		t.Fatalf("IDENTIFY_SYSTEM after the promotion: %+v, %v", id, err)
	}
	hist, err := codec.ReadTimelineHistoryResult(set(results(t, c, &codec.TimelineHistory{Timeline: 2}), 0))
	if err != nil || len(hist) != 1 || hist[0].Filename != "00000002.history" {
		t.Fatalf("TIMELINE_HISTORY 2: %+v, %v", hist, err)
	}
	// One line: the parent timeline, the switch point, the reason.
	fields := strings.Fields(string(hist[0].Content))
	if len(fields) < 2 || fields[0] != "1" {
		t.Fatalf("TIMELINE_HISTORY 2's content %q", hist[0].Content)
	}
	switchPoint, err := codec.ParseLSN(fields[1])
	if err != nil {
		t.Fatal(err)
	}

	// From the start of the switch point's segment on timeline 1.
	if err := c.StartReplication(&codec.StartReplicationPhysical{LSN: switchPoint &^ 0xffffff, Timeline: 1}); err != nil {
		t.Fatalf("START_REPLICATION TIMELINE 1: %v", err)
	}
	copies := 0
	for {
		m, err := c.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, done := m.(*codec.CopyDone); done {
			break
		}
		if _, ok := m.(*codec.CopyData); !ok {
			t.Fatalf("timeline 1's stream: %T", m)
		}
		copies++
	}
	if err := c.Send(&codec.CopyDone{}); err != nil {
		t.Fatal(err)
	}
	var desc *codec.RowDescription
	var rows []*codec.DataRow
	var tags []string
	_, err = c.ReadUntilReady(func(m codec.Message) error {
		switch m := m.(type) {
		case *codec.RowDescription:
			desc = m.Clone()
		case *codec.DataRow:
			rows = append(rows, m.Clone())
		case *codec.CommandComplete:
			tags = append(tags, m.CommandTag)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	next, err := codec.ReadTimelineSwitchResult(desc, rows)
	if err != nil || len(next) != 1 || next[0].NextTLI != 2 || next[0].NextTLIStartpos != switchPoint {
		t.Errorf("end of timeline 1: %+v, %v; want timeline 2 from %v", next, err, switchPoint)
	}
	// Two CommandCompletes: StartReplication's own, then the command's
	// ("dupe, but necessary per libpqrcv_endstreaming", walsender.c 15.18
	// lines 920 and 1864-1865).
	if copies == 0 || !slices.Equal(tags, []string{"START_STREAMING", "START_REPLICATION"}) {
		t.Errorf("%d CopyData before the end, then %q", copies, tags)
	}

	// Exactly at the end of timeline 1 the server skips the copy and
	// answers with the result set at once.
	sets := results(t, c, &codec.StartReplicationPhysical{LSN: switchPoint, Timeline: 1})
	if next, err := codec.ReadTimelineSwitchResult(set(sets, 0)); err != nil || len(next) != 1 || next[0].NextTLI != 2 || next[0].NextTLIStartpos != switchPoint {
		t.Errorf("START_REPLICATION at the end of timeline 1: %+v, %v", next, err)
	}
}
