package session_test

import (
	"errors"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
	"github.com/pgspec/pgspec/spec"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// countingConn counts the bytes written to the server.
type countingConn struct {
	net.Conn
	written int
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.written += len(b)
	return c.Conn.Write(b)
}

// replConn opens a replication session (replication=true or database) to
// the test server.
func replConn(t *testing.T, u pgtest.User, mode string) (*session.Conn, *countingConn) {
	t.Helper()
	return replConnTo(t, pgtest.Get(t), u, mode)
}

// replConnTo is replConn to server s.
func replConnTo(t *testing.T, s *pgtest.Server, u pgtest.User, mode string) (*session.Conn, *countingConn) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", s.Addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(2 * time.Minute))
	t.Cleanup(func() { nc.Close() })
	cc := &countingConn{Conn: nc}
	c := session.NewConn(cc)
	if err := c.Startup(session.Config{User: u.Name, Password: u.Password, Database: pgtest.Database, Params: map[string]string{"replication": mode}}); err != nil {
		t.Fatal(err)
	}
	if c.P.Major != 15 {
		t.Fatalf("server major %d, want 15", c.P.Major)
	}
	return c, cc
}

// results runs cmd and returns its result sets.
func results(t *testing.T, c *session.Conn, cmd codec.Command) [][2]any {
	t.Helper()
	var sets [][2]any
	err := c.Command(cmd, func(m codec.Message) error {
		switch m := m.(type) {
		case *codec.RowDescription:
			sets = append(sets, [2]any{m.Clone(), []*codec.DataRow(nil)})
		case *codec.DataRow:
			sets[len(sets)-1][1] = append(sets[len(sets)-1][1].([]*codec.DataRow), m.Clone())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return sets
}

func set(sets [][2]any, i int) (*codec.RowDescription, []*codec.DataRow) {
	return sets[i][0].(*codec.RowDescription), sets[i][1].([]*codec.DataRow)
}

func on() *bool { b := true; return &b }

// Against PostgreSQL 15: every command its manual documents, with every
// option it accepts, built by the generated types, executed, and its
// result read by the generated result types; every option (and command)
// the manual gives other majors only is refused before a byte is sent.
func TestCommandsAgainstPostgreSQL15(t *testing.T) {
	c, _ := replConn(t, pgtest.Replication, "database")
	sys := results(t, c, &codec.IdentifySystem{})
	rows, err := codec.ReadIdentifySystemResult(set(sys, 0))
	if err != nil || len(rows) != 1 || rows[0].Timeline != 1 || rows[0].Xlogpos == 0 || rows[0].Dbname == nil || *rows[0].Dbname != pgtest.Database {
		t.Fatalf("IDENTIFY_SYSTEM: %+v, %v", rows, err)
	}
	if show := results(t, c, &codec.Show{Name: "wal_segment_size"}); len(show) != 1 {
		t.Errorf("SHOW: %d result sets", len(show))
	} else if d, r := set(show, 0); d.Fields[0].Name != "wal_segment_size" || string(r[0].Values[0]) != "16MB" {
		t.Errorf("SHOW wal_segment_size: %+v %q", d, r[0].Values[0])
	}
	// Timeline 1 has no history file: the server says so.
	var se *session.Error
	if err := c.Command(&codec.TimelineHistory{Timeline: 1}, nil); !errors.As(err, &se) || se.SQLState() != "58P01" {
		t.Errorf("TIMELINE_HISTORY 1: %v", err)
	}

	// Slots: logical with every list option of 15, physical, and the
	// keyword form 15 still documents.
	for _, cmd := range []*codec.CreateReplicationSlot{
		{SlotName: "i21_logical", Temporary: true, OutputPlugin: "pgoutput", TwoPhase: on(), Snapshot: "nothing"},
		{SlotName: "i21_physical", ReserveWAL: on()},
		{SlotName: "i21_legacy", Temporary: true, OutputPlugin: "pgoutput", NoexportSnapshot: true},
	} {
		rs := results(t, c, cmd)
		slot, err := codec.ReadCreateReplicationSlotResult(set(rs, 0))
		if err != nil || slot[0].SlotName != cmd.SlotName || slot[0].ConsistentPoint == 0 && cmd.OutputPlugin != "" ||
			(slot[0].OutputPlugin != nil) != (cmd.OutputPlugin != "") || slot[0].SnapshotName != nil {
			t.Errorf("%s: %+v, %v", cmd, slot, err)
		}
	}
	read := results(t, c, &codec.ReadReplicationSlot{SlotName: "i21_physical"})
	if r, err := codec.ReadReadReplicationSlotResult(set(read, 0)); err != nil || r[0].SlotType == nil || *r[0].SlotType != "physical" || r[0].RestartLSN == nil || *r[0].RestartLSN == 0 {
		t.Errorf("READ_REPLICATION_SLOT: %+v, %v", r, err)
	}
	if err := c.Command(&codec.DropReplicationSlot{SlotName: "i21_physical", Wait: true}, nil); err != nil {
		t.Error(err)
	}

	// Refused before anything is sent: options and commands of other majors.
	rc, cc := replConn(t, pgtest.Replication, "database")
	before := cc.written
	refused := map[string]codec.Command{
		"BASE_BACKUP FAST":                 &codec.BaseBackup{Fast: true},
		"BASE_BACKUP NOWAIT":               &codec.BaseBackup{Nowait: true},
		"BASE_BACKUP NOVERIFY_CHECKSUMS":   &codec.BaseBackup{NoverifyChecksums: true},
		"BASE_BACKUP INCREMENTAL":          &codec.BaseBackup{Incremental: true},
		"CREATE_REPLICATION_SLOT FAILOVER": &codec.CreateReplicationSlot{SlotName: "x", OutputPlugin: "pgoutput", Failover: on()},
		"ALTER_REPLICATION_SLOT":           &codec.AlterReplicationSlot{SlotName: "x", Failover: on()},
		"UPLOAD_MANIFEST":                  &codec.UploadManifest{},
	}
	for name, cmd := range refused {
		var ce *codec.CommandError
		err := rc.Command(cmd, nil)
		if !errors.As(err, &ce) || ce.Major != 15 || ce.Majors.Has(15) || ce.Majors == 0 {
			t.Errorf("%s: %v, want a *CommandError naming the majors that have it", name, err)
		}
	}
	for _, o := range []codec.PgoutputOptions{
		{Publications: []string{"p"}, Origin: "none"},
		{Publications: []string{"p"}, ProtoVersion: 4},
		{Publications: []string{"p"}, Streaming: codec.StreamingParallel},
	} {
		if _, err := o.PluginOptions(rc.P); !errors.Is(err, codec.ErrCommand) {
			t.Errorf("pgoutput %+v: %v", o, err)
		}
	}
	if cc.written != before {
		t.Errorf("%d bytes sent for refused commands", cc.written-before)
	}
	// The list above is every option and command the manuals of other
	// majors document and 15's does not.
	specs, err := spec.LoadAll(spec.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	in15 := map[string]bool{}
	for _, s := range specs {
		for _, cmd := range s.Commands {
			if s.Major == 15 {
				in15[cmd.Name] = true
				for _, it := range append(slices.Clone(cmd.Options), cmd.Parameters...) {
					in15[cmd.Name+" "+it.Name] = true
				}
			}
		}
	}
	others := map[string]bool{}
	for _, s := range specs {
		for _, cmd := range s.Commands {
			if !in15[cmd.Name] {
				others[cmd.Name] = true
				continue
			}
			for _, it := range cmd.Options {
				if !in15[cmd.Name+" "+it.Name] {
					others[cmd.Name+" "+it.Name] = true
				}
			}
		}
	}
	if got, want := slices.Sorted(maps.Keys(others)), slices.Sorted(maps.Keys(refused)); !slices.Equal(got, want) {
		t.Errorf("options and commands of other majors only: %v; the test refuses %v", got, want)
	}

	// Logical streaming with every pgoutput parameter 15 documents.
	o := codec.PgoutputOptions{ProtoVersion: 3, Publications: []string{"i21_pub"}, Binary: true, Messages: true, Streaming: codec.StreamingOn, TwoPhase: true}
	su, _ := replConn(t, pgtest.Superuser, "database")
	if err := su.Exec("create publication i21_pub", nil); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	opts, err := o.PluginOptions(c.P)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.StartReplication(&codec.StartReplicationLogical{SlotName: "i21_logical", LSN: rows[0].Xlogpos, Options: opts}); err != nil {
		t.Fatalf("START_REPLICATION … LOGICAL: %v", err)
	}

	// Physical streaming, with a slot and the timeline.
	phys, _ := replConn(t, pgtest.Superuser, "true")
	results(t, phys, &codec.CreateReplicationSlot{SlotName: "i21_stream", Temporary: true, ReserveWAL: on()})
	if err := phys.StartReplication(&codec.StartReplicationPhysical{SlotName: "i21_stream", Physical: true, LSN: rows[0].Xlogpos &^ 0xffffff, Timeline: uint32(rows[0].Timeline)}); err != nil {
		t.Fatalf("START_REPLICATION PHYSICAL: %v", err)
	}

	// BASE_BACKUP with every option of 15: to the server (TARGET_DETAIL
	// needs the server target) and to the client, compressed.
	dir := filepath.Join(pgtest.Get(t).Dir, "i21-backup-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	bc, _ := replConn(t, pgtest.Superuser, "true")
	f := false
	rate := int64(1 << 20)
	bb := &codec.BaseBackup{Label: "i21 'all options'", Target: "server", TargetDetail: dir, Progress: on(), Checkpoint: "fast", WAL: &f, Wait: &f,
		Compression: "gzip", CompressionDetail: "level=1", MaxRate: &rate, TablespaceMap: on(), VerifyChecksums: on(), Manifest: "yes", ManifestChecksums: "SHA256"}
	sets := results(t, bc, bb)
	if len(sets) != 3 {
		t.Fatalf("BASE_BACKUP: %d result sets, want start, tablespaces, end", len(sets))
	}
	if ts, err := codec.ReadBaseBackupResult(set(sets, 1)); err != nil || len(ts) != 1 || ts[0].Spcoid != nil || ts[0].Size == nil || *ts[0].Size <= 0 {
		t.Errorf("BASE_BACKUP tablespaces: %+v, %v", ts, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "backup_manifest")); err != nil {
		t.Errorf("the server target wrote no manifest: %v", err)
	}
	if err := bc.Command(&codec.BaseBackup{Target: "blackhole", WAL: on(), Checkpoint: "spread", Wait: &f}, nil); err != nil {
		t.Errorf("BASE_BACKUP to the blackhole: %v", err)
	}
}

// ParseCommand takes what PostgreSQL 15's replication grammar takes and
// refuses what it refuses, in the cases where case and quoting matter:
// each text is parsed, then sent as it is; the server's answer (a result
// or an error) must agree with the parse's. Temporary slots go with the
// session.
func TestParseCommandAgreesWithPostgreSQL15(t *testing.T) {
	c, _ := replConn(t, pgtest.Replication, "database")
	for _, text := range []string{
		`IDENTIFY_SYSTEM`,
		`identify_system`,
		`Identify_System`,
		`CREATE_REPLICATION_SLOT i21_case1 TEMPORARY PHYSICAL`,
		`CREATE_REPLICATION_SLOT i21_case2 temporary PHYSICAL`,
		`CREATE_REPLICATION_SLOT i21_case3 TEMPORARY physical`,
		`CREATE_REPLICATION_SLOT I21_Case4 TEMPORARY LOGICAL PgOutput (two_phase TRUE, Snapshot NOTHING)`,
		`CREATE_REPLICATION_SLOT i21_case5 TEMPORARY PHYSICAL (Reserve_Wal, "reserve_wal" false)`,
		`CREATE_REPLICATION_SLOT i21_case9 TEMPORARY PHYSICAL (RESERVE_WAL 'On')`,
		// A list option's boolean is defGetBoolean's: the number 1, not the
		// string '1', not yes.
		`CREATE_REPLICATION_SLOT i21_case12 TEMPORARY PHYSICAL (RESERVE_WAL 1)`,
		`CREATE_REPLICATION_SLOT i21_case13 TEMPORARY PHYSICAL (RESERVE_WAL '1')`,
		`CREATE_REPLICATION_SLOT i21_case14 TEMPORARY PHYSICAL (RESERVE_WAL 'yes')`,
		`CREATE_REPLICATION_SLOT i21_case6 TEMPORARY LOGICAL pgoutput noexport_snapshot`,
		`CREATE_REPLICATION_SLOT i21_case7 TEMPORARY LOGICAL pgoutput ("snapshot" 'nothing')`,
		`CREATE_REPLICATION_SLOT i21_case8 TEMPORARY LOGICAL pgoutput ("SNAPSHOT" 'nothing')`,
		// SNAPSHOT's value is compared as written (strcmp): quoted, only in
		// lower case; a word is downcased first (case4's NOTHING).
		`CREATE_REPLICATION_SLOT i21_case10 TEMPORARY LOGICAL pgoutput (SNAPSHOT 'Nothing')`,
		`CREATE_REPLICATION_SLOT i21_case11 TEMPORARY LOGICAL pgoutput (SNAPSHOT 'NOTHING')`,
		`READ_REPLICATION_SLOT I21_CASE4`,
		`read_replication_slot i21_case4`,
		`TIMELINE_HISTORY '1'`,
		`START_REPLICATION slot i21_case1 0/0`,
	} {
		_, perr := codec.ParseCommand(text, c.P)
		err := c.Exec(text, nil)
		var se *session.Error
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("%s: %v", text, err)
		}
		if (perr == nil) != (err == nil) {
			t.Errorf("%s: ParseCommand says %v, the server %v", text, perr, err)
		}
	}
}

// PostgreSQL 15 cuts a slot name of 70 bytes to its first 63, downcased
// (with a NOTICE), and the slot it creates is the one ParseCommand reads:
// its result names it so, and READ_REPLICATION_SLOT of the generated
// command finds it. Append refuses the long name rather than let the
// server use another.
func TestIdentifierLengthAgainstPostgreSQL15(t *testing.T) {
	c, _ := replConn(t, pgtest.Replication, "database")
	text := "CREATE_REPLICATION_SLOT I21_" + strings.Repeat("Long", 17) + "ab TEMPORARY PHYSICAL"
	cmd, err := codec.ParseCommand(text, c.P)
	if err != nil {
		t.Fatal(err)
	}
	name := cmd.(*codec.CreateReplicationSlot).SlotName
	if len(name) != 63 || name != strings.ToLower(text[len("CREATE_REPLICATION_SLOT "):][:63]) {
		t.Fatalf("parsed slot name %q", name)
	}
	var notices []string
	var sets [][2]any
	err = c.Exec(text, func(m codec.Message) error {
		switch m := m.(type) {
		case *codec.NoticeResponse:
			for _, f := range m.Fields {
				if f.Code == 'M' {
					notices = append(notices, f.Value)
				}
			}
		case *codec.RowDescription:
			sets = append(sets, [2]any{m.Clone(), []*codec.DataRow(nil)})
		case *codec.DataRow:
			sets[len(sets)-1][1] = append(sets[len(sets)-1][1].([]*codec.DataRow), m.Clone())
		}
		return nil
	})
	if err != nil || len(sets) != 1 {
		t.Fatalf("%s: %v, %d result sets", text, err, len(sets))
	}
	res, err := codec.ReadCreateReplicationSlotResult(set(sets, 0))
	if err != nil || res[0].SlotName != name {
		t.Errorf("the server's slot %+v, %v; ParseCommand read %q", res, err, name)
	}
	if want := `identifier "` + strings.ToLower(text[len("CREATE_REPLICATION_SLOT "):len(text)-len(" TEMPORARY PHYSICAL")]) + `" will be truncated to "` + name + `"`; !slices.Equal(notices, []string{want}) {
		t.Errorf("notices %q, want %q", notices, want)
	}
	read, err := codec.ReadReadReplicationSlotResult(set(results(t, c, &codec.ReadReplicationSlot{SlotName: name}), 0))
	if err != nil || read[0].SlotType == nil || *read[0].SlotType != "physical" {
		t.Errorf("READ_REPLICATION_SLOT %q: %+v, %v", name, read, err)
	}
	if _, err := (&codec.DropReplicationSlot{SlotName: name + "x"}).Append(nil, c.P); err == nil {
		t.Errorf("a 64-byte slot name written")
	}
}
