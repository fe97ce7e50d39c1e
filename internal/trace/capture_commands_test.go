package trace_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// resultSet is one result set a capture holds: its RowDescription and rows.
type resultSet struct {
	desc *codec.RowDescription
	rows []*codec.DataRow
}

// exchange is one replication command a client sent and the result sets
// the server answered it with, up to the next ReadyForQuery or the copy.
type exchange struct {
	text    string
	results []resultSet
}

// isCommandWord says whether word starts a command of the commands layer.
func isCommandWord(word string) bool {
	return slices.ContainsFunc(codec.Commands(), func(c codec.Command) bool { return c.CommandName() == strings.ToUpper(word) })
}

// exchanges pairs every replication command in the lines with its results.
func exchanges(t *testing.T, lines []captureLine) []exchange {
	t.Helper()
	var out []exchange
	open := map[int64]int{} // session → index in out of its open exchange
	for _, l := range lines {
		for _, m := range l.Messages {
			name, _ := m["name"].(string)
			i, isOpen := open[l.Session]
			switch {
			case l.Dir == "F" && name == "Query":
				text, whole := m["String"].(string) // a cut one is an object: no command is that long
				word, _, _ := strings.Cut(strings.TrimSpace(text), " ")
				delete(open, l.Session)
				if whole && isCommandWord(word) {
					open[l.Session] = len(out)
					out = append(out, exchange{text: text})
				}
			case !isOpen || l.Dir != "B":
			case name == "RowDescription":
				var d codec.RowDescription
				for _, f := range m["Fields"].([]any) {
					d.Fields = append(d.Fields, codec.FieldDescription{Name: f.(map[string]any)["Name"].(string)})
				}
				out[i].results = append(out[i].results, resultSet{desc: &d})
			case name == "DataRow":
				var r codec.DataRow
				for _, v := range m["Values"].([]any) {
					if v == nil {
						r.Values = append(r.Values, nil)
					} else {
						r.Values = append(r.Values, []byte(v.(string)))
					}
				}
				rs := &out[i].results[len(out[i].results)-1]
				rs.rows = append(rs.rows, &r)
			// START_REPLICATION's copy may end in a result set (the end of a
			// timeline), BASE_BACKUP's holds some: both stay open.
			case name == "ReadyForQuery" || name == "CopyOutResponse" && !strings.HasPrefix(out[i].text, "BASE_BACKUP"):
				delete(open, l.Session)
			}
		}
	}
	return out
}

// Every replication command the captured clients of 13, 15, 17, 18 and 19
// sent (pg_receivewal, pg_recvlogical, pg_basebackup, the subscriber,
// internal/capturework) is read by ParseCommand as that major's and
// written back byte for byte; its canonical form reads back to the same
// fields; and every result set the server answered with is read by the
// command's generated result type, by column name.
func TestCaptureCommands(t *testing.T) {
	total := map[string]int{}
	for _, major := range captureMajors {
		for _, kind := range captureKinds {
			name := fmt.Sprintf("pg%d-%s", major, kind.name)
			t.Run(name, func(t *testing.T) {
				seen := decodeCapture(t, capturesDir+"/"+name+"."+kind.format+".gz", kind.format, major)
				p := codec.Params{Major: major}
				for _, ex := range exchanges(t, seen.lines) {
					cmd, err := codec.ParseCommand(ex.text, p)
					if err != nil {
						t.Errorf("%q: %v", ex.text, err)
						continue
					}
					total[fmt.Sprintf("%T", cmd)]++
					if bb, ok := cmd.(*codec.BaseBackup); ok && bb.Incremental {
						total["incremental BASE_BACKUP"]++
					}
					if cs, ok := cmd.(*codec.CreateReplicationSlot); ok && cs.Failover != nil && *cs.Failover {
						total["FAILOVER slot"]++
					}
					if _, ok := cmd.(*codec.StartReplicationPhysical); ok && len(ex.results) > 0 {
						total["timeline switch"]++
					}
					if b, err := cmd.Append(nil, p); err != nil || string(b) != ex.text {
						t.Errorf("%q written back as %q, %v", ex.text, b, err)
					}
					canon := fresh(t, cmd, p)
					if again, err := codec.ParseCommand(canon, p); err != nil || !reflect.DeepEqual(exported(again), exported(cmd)) {
						t.Errorf("canonical %q of %q reads back as %+v, %v", canon, ex.text, again, err)
					}
					readResults(t, cmd, ex)
				}
			})
		}
	}
	// What the workloads send, at least.
	for typ, least := range map[string]int{"*codec.IdentifySystem": 20, "*codec.Show": 20, "*codec.CreateReplicationSlot": 10,
		"*codec.StartReplicationLogical": 10, "*codec.StartReplicationPhysical": 5, "*codec.BaseBackup": 5,
		// capturework's slots and the incremental backup, on 17, 18 and 19.
		"*codec.AlterReplicationSlot": 6, "*codec.ReadReplicationSlot": 6, "*codec.DropReplicationSlot": 6, "*codec.UploadManifest": 3,
		"incremental BASE_BACKUP": 3, "FAILOVER slot": 3,
		// 19's pg_receivewal crossing from timeline 1 to 2.
		"*codec.TimelineHistory": 1, "timeline switch": 1} {
		if total[typ] < least {
			t.Errorf("%s: %d in the captures, want at least %d (%v)", typ, total[typ], least, total)
		}
	}
	t.Logf("commands read: %v", total)
}

// fresh is the canonical text of cmd's fields, whatever its spelling.
func fresh(t *testing.T, cmd codec.Command, p codec.Params) string {
	t.Helper()
	b, err := codec.AppendCanonical(nil, cmd, p)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return string(b)
}

// exported is a command's exported fields.
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

// readResults reads an exchange's result sets with the command's types:
// each set must be one the manual documents for it (BASE_BACKUP's start
// and end positions in prose, the tablespaces between them), and read
// without error.
func readResults(t *testing.T, cmd codec.Command, ex exchange) {
	t.Helper()
	var start []codec.BaseBackupPositionResult
	for i, rs := range ex.results {
		var err error
		var n int
		switch c := cmd.(type) {
		case *codec.IdentifySystem:
			var r []codec.IdentifySystemResult
			r, err = codec.ReadIdentifySystemResult(rs.desc, rs.rows)
			if n = len(r); err == nil && (r[0].Systemid == "" || r[0].Timeline < 1) {
				t.Errorf("%s: %+v", ex.text, r[0])
			}
		case *codec.CreateReplicationSlot:
			var r []codec.CreateReplicationSlotResult
			r, err = codec.ReadCreateReplicationSlotResult(rs.desc, rs.rows)
			// A physical slot's consistent point is 0/0: the server reports its confirmed_flush.
			if n = len(r); err == nil && (r[0].SlotName != c.SlotName || (r[0].ConsistentPoint == 0) != (c.OutputPlugin == "") || (r[0].OutputPlugin == nil) != (c.OutputPlugin == "")) {
				t.Errorf("%s: %+v", ex.text, r[0])
			}
		case *codec.ReadReplicationSlot:
			var r []codec.ReadReplicationSlotResult
			r, err = codec.ReadReadReplicationSlotResult(rs.desc, rs.rows)
			// A physical slot's type and position; a slot that does not exist, a row of NULLs.
			if n = len(r); err == nil && (r[0].SlotType == nil) != (c.SlotName == "no_such_slot") {
				t.Errorf("%s: %+v", ex.text, r[0])
			}
		case *codec.TimelineHistory:
			var r []codec.TimelineHistoryResult
			r, err = codec.ReadTimelineHistoryResult(rs.desc, rs.rows)
			// The history of timeline 2 begins with its parent, timeline 1.
			if n = len(r); err == nil && (r[0].Filename != fmt.Sprintf("%08X.history", c.Timeline) || !strings.HasPrefix(string(r[0].Content), "1\t")) {
				t.Errorf("%s: %+v", ex.text, r[0])
			}
		case *codec.StartReplicationPhysical:
			// The end of the timeline streamed: the next one and where it starts.
			var r []codec.TimelineSwitchResult
			r, err = codec.ReadTimelineSwitchResult(rs.desc, rs.rows)
			if n = len(r); err == nil && (r[0].NextTLI != int64(c.Timeline)+1 || r[0].NextTLIStartpos < c.LSN) {
				t.Errorf("%s: %+v", ex.text, r[0])
			}
		case *codec.BaseBackup:
			switch i {
			case 0: // "the starting position of the backup, in a single row with two columns"
				start, err = codec.ReadBaseBackupPositionResult(rs.desc, rs.rows)
				if n = len(start); err == nil && (start[0].Recptr == 0 || start[0].TLI != 1) {
					t.Errorf("%s: start %+v", ex.text, start[0])
				}
			case len(ex.results) - 1: // "the WAL end position of the backup"
				var r []codec.BaseBackupPositionResult
				r, err = codec.ReadBaseBackupPositionResult(rs.desc, rs.rows)
				if n = len(r); err == nil && (len(start) != 1 || r[0].Recptr < start[0].Recptr || r[0].TLI != 1) {
					t.Errorf("%s: end %+v after start %+v", ex.text, r[0], start)
				}
			default:
				var r []codec.BaseBackupResult
				r, err = codec.ReadBaseBackupResult(rs.desc, rs.rows)
				n = len(r)
			}
		case *codec.Show:
			// One column named by the parameter: no type of its own.
			if len(rs.desc.Fields) != 1 || rs.desc.Fields[0].Name != c.Name || len(rs.rows) != 1 {
				t.Errorf("%s: %+v", ex.text, rs.desc)
			}
			continue
		default:
			t.Errorf("%s: a result set the manual does not document: %+v", ex.text, rs.desc)
			continue
		}
		if err != nil || n != len(rs.rows) {
			t.Errorf("%s: %d of %d rows read: %v", ex.text, n, len(rs.rows), err)
		}
	}
}
