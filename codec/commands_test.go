package codec_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

func yes() *bool         { b := true; return &b }
func no() *bool          { b := false; return &b }
func num(n int64) *int64 { return &n }

// exported is a command's exported fields, for comparing a parsed command
// with the one that was written.
func exported(c codec.Command) []any {
	v := reflect.ValueOf(c).Elem()
	var out []any
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			out = append(out, v.Field(i).Interface())
		}
	}
	return out
}

// Commands built in Go are written in each major's syntax as its manual
// gives it (expected texts written from the synopses by hand), read back
// by ParseCommand to the same fields; what a major lacks is refused
// before anything is written, naming the majors that have it.
func TestCommandsInEachMajorsSyntax(t *testing.T) {
	for _, c := range []struct {
		major int
		cmd   codec.Command
		want  string // the text, or the error
	}{
		{13, &codec.BaseBackup{Label: "nightly", Progress: yes(), Fast: true, MaxRate: num(32768), Manifest: "yes"},
			`BASE_BACKUP LABEL 'nightly' PROGRESS FAST MAX_RATE 32768 MANIFEST 'yes'`},
		{15, &codec.BaseBackup{Label: "it's", Progress: yes(), Checkpoint: "fast", Wait: no(), Manifest: "yes"},
			`BASE_BACKUP (LABEL 'it''s', PROGRESS, CHECKPOINT 'fast', WAIT false, MANIFEST 'yes')`},
		{15, &codec.BaseBackup{Fast: true}, `error: BASE_BACKUP FAST: not in PostgreSQL 15 (it is in PostgreSQL 10–14)`},
		{13, &codec.BaseBackup{Checkpoint: "fast"}, `error: BASE_BACKUP CHECKPOINT: not in PostgreSQL 13 (it is in PostgreSQL 15 and later)`},
		{15, &codec.BaseBackup{Checkpoint: "slow"}, `error: BASE_BACKUP CHECKPOINT: value "slow" is not one of fast, spread`},
		// MANIFEST's and MANIFEST_CHECKSUMS's values are in their prose only.
		{13, &codec.BaseBackup{Manifest: "force-encode", ManifestChecksums: "SHA256"}, `BASE_BACKUP MANIFEST 'force-encode' MANIFEST_CHECKSUMS 'SHA256'`},
		{17, &codec.BaseBackup{Manifest: "maybe"}, `error: BASE_BACKUP MANIFEST: value "maybe" is not one of yes, force-encode, no`},
		{15, &codec.BaseBackup{Manifest: "yes", ManifestChecksums: "MD5"}, `error: BASE_BACKUP MANIFEST_CHECKSUMS: value "MD5" is not one of NONE, CRC32C, SHA224, SHA256, SHA384, SHA512`},
		{16, &codec.BaseBackup{Incremental: true}, `error: BASE_BACKUP INCREMENTAL: not in PostgreSQL 16 (it is in PostgreSQL 17 and later)`},
		{17, &codec.BaseBackup{Incremental: true, WAL: yes()}, `BASE_BACKUP (WAL, INCREMENTAL)`},
		{10, &codec.BaseBackup{NoverifyChecksums: true}, `error: BASE_BACKUP NOVERIFY_CHECKSUMS: not in PostgreSQL 10 (it is in PostgreSQL 11–14)`},
		{13, &codec.CreateReplicationSlot{SlotName: "s", OutputPlugin: "pgoutput", NoexportSnapshot: true},
			`CREATE_REPLICATION_SLOT "s" LOGICAL "pgoutput" NOEXPORT_SNAPSHOT`},
		{15, &codec.CreateReplicationSlot{SlotName: "s", OutputPlugin: "pgoutput", Snapshot: "nothing", TwoPhase: yes()},
			`CREATE_REPLICATION_SLOT "s" LOGICAL "pgoutput" (TWO_PHASE, SNAPSHOT 'nothing')`},
		// 15 still documents the keyword form: an option only it holds is written in it.
		{15, &codec.CreateReplicationSlot{SlotName: "s", OutputPlugin: "pgoutput", NoexportSnapshot: true},
			`CREATE_REPLICATION_SLOT "s" LOGICAL "pgoutput" NOEXPORT_SNAPSHOT`},
		{13, &codec.CreateReplicationSlot{SlotName: "s", OutputPlugin: "pgoutput", Snapshot: "nothing"},
			`error: CREATE_REPLICATION_SLOT SNAPSHOT: not in PostgreSQL 13 (it is in PostgreSQL 15 and later)`},
		{16, &codec.CreateReplicationSlot{SlotName: "s", OutputPlugin: "pgoutput", Failover: yes()},
			`error: CREATE_REPLICATION_SLOT FAILOVER: not in PostgreSQL 16 (it is in PostgreSQL 17 and later)`},
		{13, &codec.CreateReplicationSlot{SlotName: "p", Temporary: true, ReserveWAL: yes()}, `CREATE_REPLICATION_SLOT "p" TEMPORARY PHYSICAL RESERVE_WAL`},
		{17, &codec.CreateReplicationSlot{SlotName: "p", ReserveWAL: yes(), Failover: no()}, `CREATE_REPLICATION_SLOT "p" PHYSICAL (RESERVE_WAL, FAILOVER false)`},
		{15, &codec.CreateReplicationSlot{OutputPlugin: "pgoutput"}, `error: CREATE_REPLICATION_SLOT slot_name: is required`},
		{17, &codec.AlterReplicationSlot{SlotName: "s", Failover: yes()}, `ALTER_REPLICATION_SLOT "s" (FAILOVER)`},
		{17, &codec.AlterReplicationSlot{SlotName: "s", TwoPhase: yes()}, `error: ALTER_REPLICATION_SLOT TWO_PHASE: not in PostgreSQL 17 (it is in PostgreSQL 18 and later)`},
		{16, &codec.AlterReplicationSlot{SlotName: "s"}, `error: ALTER_REPLICATION_SLOT: not in PostgreSQL 16 (it is in PostgreSQL 17 and later)`},
		{14, &codec.ReadReplicationSlot{SlotName: "s"}, `error: READ_REPLICATION_SLOT: not in PostgreSQL 14 (it is in PostgreSQL 15 and later)`},
		{15, &codec.ReadReplicationSlot{SlotName: "s"}, `READ_REPLICATION_SLOT "s"`},
		{18, &codec.StartReplicationPhysical{LSN: 0x1_00000028, Timeline: 2}, `START_REPLICATION 1/28 TIMELINE 2`},
		{10, &codec.StartReplicationPhysical{SlotName: "standby", Physical: true, LSN: 0x16_B374D848}, `START_REPLICATION SLOT "standby" PHYSICAL 16/B374D848`},
		{16, &codec.StartReplicationLogical{SlotName: `we"ird`, Options: []codec.PluginOption{{Name: "proto_version", Value: "2", HasValue: true}, {Name: "publication_names", Value: `"a b",c`, HasValue: true}}},
			`START_REPLICATION SLOT "we""ird" LOGICAL 0/0 ("proto_version" '2', "publication_names" '"a b",c')`},
		{12, &codec.DropReplicationSlot{SlotName: "s", Wait: true}, `DROP_REPLICATION_SLOT "s" WAIT`},
		{19, &codec.TimelineHistory{Timeline: 3}, `TIMELINE_HISTORY 3`},
		{13, &codec.Show{Name: "wal_segment_size"}, `SHOW "wal_segment_size"`},
		{17, &codec.UploadManifest{}, `UPLOAD_MANIFEST`},
		{16, &codec.UploadManifest{}, `error: UPLOAD_MANIFEST: not in PostgreSQL 16 (it is in PostgreSQL 17 and later)`},
		{10, &codec.IdentifySystem{}, `IDENTIFY_SYSTEM`},
	} {
		p := codec.Params{Major: c.major}
		b, err := c.cmd.Append([]byte("x"), p)
		if wantErr, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			var ce *codec.CommandError
			if err == nil || err.Error() != wantErr || !errors.As(err, &ce) || !errors.Is(err, codec.ErrCommand) || string(b) != "x" {
				t.Errorf("pg%d %T: got %q, %v; want the error %q and nothing written", c.major, c.cmd, b, err, wantErr)
			}
			continue
		}
		if err != nil || string(b) != "x"+c.want {
			t.Errorf("pg%d %T:\n got %q, %v\nwant %q", c.major, c.cmd, b, err, c.want)
			continue
		}
		back, err := codec.ParseCommand(c.want, p)
		if err != nil || reflect.TypeOf(back) != reflect.TypeOf(c.cmd) || !reflect.DeepEqual(exported(back), exported(c.cmd)) {
			t.Errorf("pg%d ParseCommand(%q) = %+v, %v; want %+v", c.major, c.want, back, err, c.cmd)
		}
	}
}

// ParseCommand reads what clients write (option names in any case, quoted
// or not, values as words or constants, a trailing semicolon), keeps the
// spelling while the fields are unchanged, and writes the canonical form
// once they change.
func TestParseCommandKeepsSpelling(t *testing.T) {
	text := `BASE_BACKUP ( label 'x' , Progress true, max_rate '100', manifest yes );`
	cmd, err := codec.ParseCommand(text, codec.Params{Major: 16})
	if err != nil {
		t.Fatal(err)
	}
	bb := cmd.(*codec.BaseBackup)
	if bb.Label != "x" || bb.Progress == nil || !*bb.Progress || bb.MaxRate == nil || *bb.MaxRate != 100 || bb.Manifest != "yes" {
		t.Fatalf("parsed %+v", bb)
	}
	if got := bb.String(); got != text {
		t.Errorf("unchanged: %q, want the text as parsed", got)
	}
	bb.Label = "y"
	if got := bb.String(); got != `BASE_BACKUP (LABEL 'y', PROGRESS, MAX_RATE 100, MANIFEST 'yes')` {
		t.Errorf("changed: %q", got)
	}
	if s, err := codec.ParseCommand(`START_REPLICATION SLOT Mixed LOGICAL 0/1 (Proto_Version '1')`, codec.Params{}); err != nil ||
		s.(*codec.StartReplicationLogical).SlotName != "mixed" || s.(*codec.StartReplicationLogical).Options[0].Name != "proto_version" {
		t.Errorf("unquoted identifiers are folded to lower case: %+v, %v", s, err)
	}
}

// ParseCommand's case is the replication grammar's, checked against
// PostgreSQL 15 by hand (psql "replication=database" -c ...): keywords are
// matched as written, in capitals (repl_scanner.l has no caseless option;
// `identify_system` is no replication command and the server answers
// "syntax error" from the SQL parser, `CREATE_REPLICATION_SLOT s physical`
// and `DROP_REPLICATION_SLOT s wait` are syntax errors); a parenthesized
// list's option names take any case (`(two_phase TRUE, Snapshot nothing)`
// created its slot) and an unquoted word is downcased, ASCII letters only,
// as downcase_truncate_identifier does, whereas quoted text stays as it is.
func TestParseCommandCase(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{`identify_system`, `identify_system (byte 0): no replication command of PostgreSQL 15 (its keywords are in capitals: IDENTIFY_SYSTEM)`},
		{`Identify_System`, `Identify_System (byte 0): no replication command of PostgreSQL 15 (its keywords are in capitals: IDENTIFY_SYSTEM)`},
		{`CREATE_REPLICATION_SLOT s physical`, `CREATE_REPLICATION_SLOT (byte 26): want LOGICAL`},
		{`DROP_REPLICATION_SLOT s wait`, `DROP_REPLICATION_SLOT (byte 24): unexpected text`},
		{`START_REPLICATION slot s LOGICAL 0/1`, `START_REPLICATION (byte 18): want XXX/XXX`},
		// The keyword syntax's values are string constants and digits only.
		{`CREATE_REPLICATION_SLOT s LOGICAL p export_snapshot`, `CREATE_REPLICATION_SLOT (byte 36): want (`},
		{`START_REPLICATION SLOT s LOGICAL 0/1 (proto_version 1)`, `START_REPLICATION (byte 52): want , or )`},
		{`START_REPLICATION 0/1 TIMELINE '2'`, `START_REPLICATION (byte 31): want tli`},
	} {
		_, err := codec.ParseCommand(c.text, codec.Params{Major: 15})
		if err == nil || err.Error() != c.want || !errors.Is(err, codec.ErrCommand) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
	cmd, err := codec.ParseCommand(`CREATE_REPLICATION_SLOT Sl LOGICAL PgOutput (two_phase TRUE, Snapshot NOTHING)`, codec.Params{Major: 15})
	if err != nil {
		t.Fatal(err)
	}
	if s := cmd.(*codec.CreateReplicationSlot); s.SlotName != "sl" || s.OutputPlugin != "pgoutput" || s.TwoPhase == nil || !*s.TwoPhase || s.Snapshot != "nothing" {
		t.Errorf("mixed case: %+v", s)
	}
	cmd, err = codec.ParseCommand(`BASE_BACKUP (LABEL Nightly, COMPRESSION 'GZip', "checkpoint" 'fast', MANIFEST_CHECKSUMS sha256, TARGET "Ünï")`, codec.Params{Major: 15})
	if err != nil {
		t.Fatal(err)
	}
	// TARGET's quoted identifier is an IDENT too, kept as written.
	if bb := cmd.(*codec.BaseBackup); bb.Label != "nightly" || bb.Compression != "GZip" || bb.Checkpoint != "fast" || bb.ManifestChecksums != "SHA256" || bb.Target != "Ünï" {
		t.Errorf("words downcased, constants kept: %+v", bb)
	}
	cmd, err = codec.ParseCommand(`SHOW ÉTÉ_Setting`, codec.Params{Major: 15})
	if err != nil || cmd.(*codec.Show).Name != "ÉtÉ_setting" {
		t.Errorf("only ASCII letters are downcased: %+v, %v", cmd, err)
	}
	// The other keyword options take a quoted value in any case (pg_strcasecmp).
	if cmd, err := codec.ParseCommand(`BASE_BACKUP (CHECKPOINT 'FAST', MANIFEST 'Force-Encode')`, codec.Params{Major: 15}); err != nil ||
		cmd.(*codec.BaseBackup).Checkpoint != "fast" || cmd.(*codec.BaseBackup).Manifest != "force-encode" {
		t.Errorf("caseless values: %+v, %v", cmd, err)
	}
	if _, err := codec.ParseCommand(`BASE_BACKUP ("PROGRESS")`, codec.Params{Major: 15}); err == nil || err.Error() != `BASE_BACKUP (byte 13): unknown option PROGRESS` {
		t.Errorf("a quoted option name is compared as written: %v", err)
	}
}

// Booleans are read as the server reads each: a list option's value by
// defGetBoolean (true, false, on, off in any case, or the number 0 or 1 —
// not the string '1', not yes), MANIFEST's by parse_bool first (any prefix
// of true, false, yes, no, on, of, off, 1, 0; spec/overlay.json's options),
// pgoutput's by defGetBoolean.
func TestParseCommandBooleans(t *testing.T) {
	for _, c := range []struct {
		major      int
		text, want string // want: the values read, or the error
	}{
		{15, `BASE_BACKUP (WAIT 'OFF', PROGRESS On, VERIFY_CHECKSUMS 0, TABLESPACE_MAP 1)`, `wait false, progress true, verify false, map true, manifest ""`},
		{15, `BASE_BACKUP (WAIT 'yes')`, `BASE_BACKUP (byte 18): want the value of WAIT`},
		{15, `BASE_BACKUP (WAIT '1')`, `BASE_BACKUP (byte 18): want the value of WAIT`},
		{15, `BASE_BACKUP (WAIT 2)`, `BASE_BACKUP (byte 18): want the value of WAIT`},
		{15, `BASE_BACKUP (MANIFEST 'on')`, `manifest "yes"`},
		{15, `BASE_BACKUP (MANIFEST 'TR')`, `manifest "yes"`},
		{15, `BASE_BACKUP (MANIFEST 1)`, `manifest "yes"`},
		{15, `BASE_BACKUP (MANIFEST 'of')`, `manifest "no"`},
		{13, `BASE_BACKUP MANIFEST 'False'`, `manifest "no"`},
		{13, `BASE_BACKUP MANIFEST 'y'`, `manifest "yes"`},
		{15, `BASE_BACKUP (MANIFEST 'o')`, `BASE_BACKUP MANIFEST (byte 13): value "o" is not one of yes, force-encode, no`},
		{15, `BASE_BACKUP (MANIFEST 'truth')`, `BASE_BACKUP MANIFEST (byte 13): value "truth" is not one of yes, force-encode, no`},
	} {
		cmd, err := codec.ParseCommand(c.text, codec.Params{Major: c.major})
		got := ""
		if err != nil {
			got = err.Error()
		} else if bb := cmd.(*codec.BaseBackup); bb.Wait != nil {
			got = fmt.Sprintf("wait %v, progress %v, verify %v, map %v, manifest %q", *bb.Wait, *bb.Progress, *bb.VerifyChecksums, *bb.TablespaceMap, bb.Manifest)
		} else {
			got = fmt.Sprintf("manifest %q", bb.Manifest)
		}
		if got != c.want {
			t.Errorf("pg%d %q: got %s, want %s", c.major, c.text, got, c.want)
		}
	}
	for _, v := range []string{"yes", "1", "t"} {
		opts := []codec.PluginOption{{Name: "proto_version", Value: "1", HasValue: true}, {Name: "publication_names", Value: "p", HasValue: true}, {Name: "binary", Value: v, HasValue: true}}
		if _, err := codec.ParsePgoutputOptions(opts, codec.Params{Major: 15}); err == nil {
			t.Errorf("pgoutput binary %q: taken, but defGetBoolean refuses it", v)
		}
	}
}

// IsCommand tells a command's first word in any case, as ParseCommand's
// first check does (strings.EqualFold's, for which the long s folds to
// s), and costs a proxy nothing on SQL.
func TestIsCommand(t *testing.T) {
	for text, want := range map[string]bool{
		"BASE_BACKUP (LABEL 'x')": true, " \n\tidentify_system": true, "Start_Replication 0/1": true, "SHOW x": true,
		"upload_manifest": true, "\u017fhow x": true,
		"SELECT abalance FROM pgbench_accounts WHERE aid = 1": false, "": false, "BASE_BACKUPS": false, "(SHOW)": false,
		"SHO": false, strings.Repeat("SHOW", 20): false,
	} {
		if got := codec.IsCommand(text); got != want {
			t.Errorf("IsCommand(%q) = %v, want %v", text, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { codec.IsCommand("SELECT abalance FROM pgbench_accounts WHERE aid = 1") }); n != 0 {
		t.Errorf("IsCommand of SQL: %v allocations", n)
	}
}

// Identifiers are cut to 63 bytes (NAMEDATALEN-1) as repl_scanner.l cuts
// them, quoted or not, at a character's first byte; string constants are
// not. Append refuses a longer name, which the server would replace by
// its first 63 bytes.
func TestCommandIdentifierLength(t *testing.T) {
	long := strings.Repeat("Ab", 35)
	cut := strings.ToLower(long[:63])
	text := `CREATE_REPLICATION_SLOT ` + long + ` PHYSICAL`
	cmd, err := codec.ParseCommand(text, codec.Params{Major: 15})
	if err != nil || cmd.(*codec.CreateReplicationSlot).SlotName != cut || cmd.String() != text {
		t.Fatalf("%q: %+v, %v", text, cmd, err)
	}
	if b, err := codec.AppendCanonical(nil, cmd, codec.Params{Major: 15}); err != nil || string(b) != `CREATE_REPLICATION_SLOT "`+cut+`" PHYSICAL` {
		t.Errorf("canonical: %s, %v", b, err)
	}
	// 40 two-byte letters: the cut falls inside the 32nd, which goes whole.
	cmd, err = codec.ParseCommand(`SHOW "`+strings.Repeat("é", 40)+`"`, codec.Params{Major: 15})
	if err != nil || cmd.(*codec.Show).Name != strings.Repeat("é", 31) {
		t.Errorf("multibyte: %+v, %v", cmd, err)
	}
	cmd, err = codec.ParseCommand(`BASE_BACKUP (LABEL '`+long+`', TARGET `+long+`)`, codec.Params{Major: 15})
	if bb, _ := cmd.(*codec.BaseBackup); err != nil || bb.Label != long || bb.Target != cut {
		t.Errorf("a constant stays whole, an identifier value is cut: %+v, %v", cmd, err)
	}
	for _, c := range []struct {
		cmd  codec.Command
		want string
	}{
		{&codec.CreateReplicationSlot{SlotName: long + "x", Temporary: true}, `CREATE_REPLICATION_SLOT slot_name: "` + long + `x" is 71 bytes: the server cuts an identifier to 63 (NAMEDATALEN-1)`},
		{&codec.StartReplicationLogical{SlotName: "s", Options: []codec.PluginOption{{Name: strings.Repeat("o", 64)}}},
			`START_REPLICATION option_name: "` + strings.Repeat("o", 64) + `" is 64 bytes: the server cuts an identifier to 63 (NAMEDATALEN-1)`},
	} {
		if _, err := c.cmd.Append(nil, codec.Params{Major: 15}); err == nil || err.Error() != c.want || !errors.Is(err, codec.ErrCommand) {
			t.Errorf("%T: got %v, want %q", c.cmd, err, c.want)
		}
	}
	if b, err := (&codec.DropReplicationSlot{SlotName: cut}).Append(nil, codec.Params{Major: 15}); err != nil || string(b) != `DROP_REPLICATION_SLOT "`+cut+`"` {
		t.Errorf("63 bytes: %s, %v", b, err)
	}
}

// Text that is no command of the major is a *CommandError with the byte
// offset of what was not understood; an option the command has in other
// majors only names them.
func TestParseCommandRefuses(t *testing.T) {
	for _, c := range []struct {
		major int
		text  string
		want  string
	}{
		{15, `BASE_BACKUP (LABEL 'x', FAST)`, `BASE_BACKUP FAST (byte 24): not in PostgreSQL 15 (it is in PostgreSQL 10–14)`},
		{13, `BASE_BACKUP (LABEL 'x')`, `BASE_BACKUP (byte 12): unexpected text`},
		// One keyword form for 10–14: an option of a later major names them.
		{10, `BASE_BACKUP LABEL 'x' NOVERIFY_CHECKSUMS`, `BASE_BACKUP NOVERIFY_CHECKSUMS (byte 22): not in PostgreSQL 10 (it is in PostgreSQL 11–14)`},
		{12, `BASE_BACKUP MANIFEST 'yes'`, `BASE_BACKUP MANIFEST (byte 21): not in PostgreSQL 12 (it is in PostgreSQL 13 and later)`},
		{16, `CREATE_REPLICATION_SLOT "s" LOGICAL "p" (FAILOVER)`, `CREATE_REPLICATION_SLOT FAILOVER (byte 41): not in PostgreSQL 16 (it is in PostgreSQL 17 and later)`},
		{17, `CREATE_REPLICATION_SLOT "s" LOGICAL "p" (FAILOVER maybe)`, `CREATE_REPLICATION_SLOT (byte 50): want the value of FAILOVER`},
		{14, `READ_REPLICATION_SLOT s`, `READ_REPLICATION_SLOT (byte 0): not in PostgreSQL 14 (it is in PostgreSQL 15 and later)`},
		{18, `SELECT 1`, `SELECT (byte 0): no replication command of PostgreSQL 18`},
		{18, `SHOW 'x`, `replication command (byte 5): unterminated quoted text`},
		{18, `START_REPLICATION 0/1/2`, `START_REPLICATION (byte 18): want XXX/XXX`},
		{18, ``, `replication command (byte 0): no command word`},
		{17, `BASE_BACKUP (MANIFEST 'maybe')`, `BASE_BACKUP MANIFEST (byte 13): value "maybe" is not one of yes, force-encode, no`},
		{13, `BASE_BACKUP MANIFEST 'yes' MANIFEST_CHECKSUMS 'md5'`, `BASE_BACKUP MANIFEST_CHECKSUMS (byte 46): value "md5" is not one of NONE, CRC32C, SHA224, SHA256, SHA384, SHA512`},
		// SNAPSHOT's values are compared as written (spec/overlay.json's options).
		{15, `CREATE_REPLICATION_SLOT s LOGICAL p (SNAPSHOT 'Nothing')`, `CREATE_REPLICATION_SLOT SNAPSHOT (byte 37): value "Nothing" is not one of export, use, nothing`},
		{13, `BASE_BACKUP MANIFEST 'yes' MANIFEST_CHECKSUMS sha256`, `BASE_BACKUP (byte 27): unexpected text`},
		{15, `BASE_BACKUP (LABEL 'x', NOSUCH)`, `BASE_BACKUP (byte 24): unknown option NOSUCH`},
		{18, `BASE_BACKUP (LABEL 'a', LABEL 'b')`, `BASE_BACKUP (byte 24): option LABEL given twice`},
		{18, "IDENTIFY_SYSTEM " + strings.Repeat(" ", codec.MaxCommand), `replication command (byte 65536): longer than 65536 bytes`},
	} {
		_, err := codec.ParseCommand(c.text, codec.Params{Major: c.major})
		if err == nil || err.Error() != c.want || !errors.Is(err, codec.ErrCommand) {
			t.Errorf("pg%d %q: got %v, want %q", c.major, c.text, err, c.want)
		}
	}
}

// pgoutput's parameters are checked against the major's manual and the
// protocol version before they are sent, and give the Params the stream is
// decoded with.
func TestPgoutputOptions(t *testing.T) {
	pub := []string{"pub"}
	for _, c := range []struct {
		major int
		o     codec.PgoutputOptions
		want  string // the options of START_REPLICATION, or the error
	}{
		{13, codec.PgoutputOptions{Publications: pub}, `("proto_version" '1', "publication_names" '"pub"')`},
		{19, codec.PgoutputOptions{Publications: []string{"a", `B "x"`}, Binary: true}, `("proto_version" '4', "publication_names" '"a","B ""x"""', "binary" 'true')`},
		{15, codec.PgoutputOptions{ProtoVersion: 3, Publications: pub, Streaming: codec.StreamingOn, TwoPhase: true, Messages: true},
			`("proto_version" '3', "publication_names" '"pub"', "messages" 'true', "streaming" 'on', "two_phase" 'true')`},
		{16, codec.PgoutputOptions{Publications: pub, Streaming: codec.StreamingParallel, Origin: "none"},
			`("proto_version" '4', "publication_names" '"pub"', "streaming" 'parallel', "origin" 'none')`},
		// 14's manual lists only proto_version and publication_names; its
		// server takes binary, messages and streaming (spec/overlay.json).
		{14, codec.PgoutputOptions{Publications: pub, Binary: true, Messages: true, Streaming: codec.StreamingOn},
			`("proto_version" '2', "publication_names" '"pub"', "binary" 'true', "messages" 'true', "streaming" 'on')`},
		{14, codec.PgoutputOptions{Publications: pub, TwoPhase: true}, `error: pgoutput two_phase: not in PostgreSQL 14 (it is in PostgreSQL 15 and later)`},
		{13, codec.PgoutputOptions{Publications: pub, Streaming: codec.StreamingOn}, `error: pgoutput streaming: not in PostgreSQL 13 (it is in PostgreSQL 14 and later)`},
		{13, codec.PgoutputOptions{Publications: pub, Binary: true}, `error: pgoutput binary: not in PostgreSQL 13 (it is in PostgreSQL 14 and later)`},
		{15, codec.PgoutputOptions{Publications: pub, Streaming: codec.StreamingParallel}, `error: pgoutput streaming: parallel is not in PostgreSQL 15 (it is in PostgreSQL 16 and later)`},
		{16, codec.PgoutputOptions{ProtoVersion: 3, Publications: pub, Streaming: codec.StreamingParallel}, `error: pgoutput streaming: parallel needs proto_version 4 or later, not 3`},
		{15, codec.PgoutputOptions{ProtoVersion: 2, Publications: pub, TwoPhase: true}, `error: pgoutput two_phase: needs proto_version 3 or later, not 2`},
		{15, codec.PgoutputOptions{ProtoVersion: 1, Publications: pub, Streaming: codec.StreamingOn}, `error: pgoutput streaming: needs proto_version 2 or later, not 1`},
		{15, codec.PgoutputOptions{ProtoVersion: 4, Publications: pub}, `error: pgoutput proto_version: version 4 is not supported by PostgreSQL 15 (it is in PostgreSQL 16 and later)`},
		{15, codec.PgoutputOptions{Publications: pub, Origin: "any"}, `error: pgoutput origin: not in PostgreSQL 15 (it is in PostgreSQL 16 and later)`},
		{17, codec.PgoutputOptions{Publications: pub, Origin: "some"}, `error: pgoutput origin: value "some" is not one the manual names`},
		{17, codec.PgoutputOptions{}, `error: pgoutput publication_names: at least one publication name is required`},
	} {
		p := codec.Params{Major: c.major}
		opts, err := c.o.PluginOptions(p)
		_, derr := c.o.DecodeParams(p)
		if wantErr, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			if err == nil || err.Error() != wantErr || derr == nil || derr.Error() != wantErr {
				t.Errorf("pg%d %+v: got %v / %v, want %q", c.major, c.o, err, derr, wantErr)
			}
			continue
		}
		start := &codec.StartReplicationLogical{SlotName: "s", Options: opts}
		if err != nil || start.String() != `START_REPLICATION SLOT "s" LOGICAL 0/0 `+c.want {
			t.Errorf("pg%d %+v:\n got %s, %v\nwant %s", c.major, c.o, start, err, c.want)
			continue
		}
		back, err := codec.ParsePgoutputOptions(opts, p)
		if err != nil || !reflect.DeepEqual(back.Publications, c.o.Publications) || back.Streaming != c.o.Streaming || back.TwoPhase != c.o.TwoPhase || back.Version(p) != c.o.Version(p) {
			t.Errorf("pg%d ParsePgoutputOptions(%+v) = %+v, %v", c.major, opts, back, err)
		}
	}
	// What a subscriber and pg_recvlogical send reads back to the Params
	// the stream needs: 17's slot_v4 capture, parallel streaming.
	cmd, err := codec.ParseCommand(`START_REPLICATION SLOT "slot_v4" LOGICAL 0/0 ("proto_version" '4', "publication_names" 'pub', "messages" 'true', "streaming" 'parallel', "two_phase" 'on')`, codec.Params{Major: 17})
	if err != nil {
		t.Fatal(err)
	}
	o, err := codec.ParsePgoutputOptions(cmd.(*codec.StartReplicationLogical).Options, codec.Params{Major: 17})
	if err != nil {
		t.Fatal(err)
	}
	dp, err := o.DecodeParams(codec.Params{Major: 17})
	if err != nil || dp != (codec.Params{Major: 17, LogicalVersion: 4, Streaming: codec.ParallelStreaming}) || !o.Messages || !o.TwoPhase || o.Publications[0] != "pub" {
		t.Errorf("slot_v4: %+v → %+v, %v", o, dp, err)
	}
	if _, err := codec.ParsePgoutputOptions([]codec.PluginOption{{Name: "proto_version", Value: "1", HasValue: true}, {Name: "publication_names", Value: "p", HasValue: true}, {Name: "stream", Value: "on", HasValue: true}}, codec.Params{Major: 17}); err == nil ||
		err.Error() != "pgoutput stream: not a parameter of pgoutput" {
		t.Errorf("unknown parameter: %v", err)
	}
}
