package pgclient

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
)

// TestPhysicalReplication streams WAL from IDENTIFY_SYSTEM's position,
// checks that XLogData messages are contiguous and carry a row the test
// inserted, and that the server applies the standby status update and hot
// standby feedback it is sent.
func TestPhysicalReplication(t *testing.T) {
	su := connect(t, pgtest.Superuser)
	query(t, su, "create table if not exists phys(v text)")
	repl := connect(t, pgtest.Replication, func(c *Config) {
		c.Params = map[string]string{"replication": "true", "application_name": "pgspec_physical"}
	})
	sys := query(t, repl, "IDENTIFY_SYSTEM")[0].Rows[0]
	if sys[3] != nil {
		t.Errorf("physical IDENTIFY_SYSTEM dbname %q, want NULL", sys[3])
	}
	if err := repl.StartReplication(fmt.Sprintf("START_REPLICATION PHYSICAL %s TIMELINE %s", sys[2], sys[1])); err != nil {
		t.Fatal(err)
	}
	start := parseLSN(t, string(sys[2]))

	marker := "pgspec-physical-marker-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	query(t, su, "insert into phys values ('"+marker+"')")

	next := start // where the next XLogData must start
	var wal []byte
	for !bytes.Contains(wal, []byte(marker)) {
		rm, err := repl.ReceiveReplication()
		if err != nil {
			t.Fatalf("after %d WAL bytes: %v", len(wal), err)
		}
		switch m := rm.Msg.(type) {
		case *codec.XLogData:
			if m.WALStart != next {
				t.Fatalf("XLogData starts at %s, want %s", lsn(m.WALStart), lsn(next))
			}
			if m.ServerWALEnd < m.WALStart || m.ServerTime <= 0 {
				t.Errorf("XLogData end %s time %d", lsn(m.ServerWALEnd), m.ServerTime)
			}
			next += uint64(len(m.WALData))
			wal = append(wal, m.WALData...)
		case *codec.PrimaryKeepalive:
		default:
			t.Fatalf("got %s in the replication stream", m.Slug())
		}
	}

	xmin := scalar(t, su, "select txid_snapshot_xmin(txid_current_snapshot())")
	full, err := strconv.ParseUint(xmin, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := repl.SendCopyData(session.StandbyStatus(session.LSN(next), session.LSN(next), session.LSN(start), time.Now(), true)); err != nil {
		t.Fatal(err)
	}
	for { // the requested reply is a keepalive reporting the server's WAL end
		rm, err := repl.ReceiveReplication()
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := rm.Msg.(*codec.PrimaryKeepalive); ok {
			if k.ServerWALEnd < next {
				t.Errorf("keepalive WAL end %s before what was streamed, %s", lsn(k.ServerWALEnd), lsn(next))
			}
			break
		}
	}
	if err := repl.SendCopyData(session.HotStandbyFeedback(time.Now(), full, 0)); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{lsn(next), lsn(next), lsn(start), strconv.FormatUint(uint64(uint32(full)), 10)}, "|")
	got := ""
	for range 250 {
		res := query(t, su, "select write_lsn, flush_lsn, replay_lsn, backend_xmin from pg_stat_replication where application_name = 'pgspec_physical'")[0]
		if len(res.Rows) == 1 {
			got = string(bytes.Join(res.Rows[0], []byte("|")))
			if got == want {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("pg_stat_replication write|flush|replay|xmin = %q, want %q from the status update and feedback", got, want)
}

func parseLSN(t *testing.T, s string) uint64 {
	t.Helper()
	l, err := session.ParseLSN(s)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(l)
}
