package cdc

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
)

// stream builds a pgoutput stream with the codec's encoders, each message
// at the next WAL position, keeping the streaming state as the server does.
type stream struct {
	t    testing.TB
	p    codec.Params
	msgs [][]byte
	at   []LSN
}

// streamMajor is the major the test streams are written in and read as.
const streamMajor = 16

func newStream(t testing.TB, version int, parallel bool) *stream {
	s := &stream{t: t, p: codec.Params{Major: streamMajor, LogicalVersion: version}}
	if parallel {
		s.p.Streaming = codec.ParallelStreaming
	}
	return s
}

func (s *stream) add(ms ...codec.Message) *stream {
	for _, m := range ms {
		if _, ok := m.(*codec.LogicalStreamStop); ok {
			s.p.Streaming &^= codec.Streamed
		}
		if a, ok := m.(*codec.LogicalStreamAbort); ok && s.p.Streaming&codec.ParallelStreaming == 0 {
			c := *a // the abort LSN and time are on the wire only with parallel streaming (Encode refuses them set)
			c.AbortLSN, c.AbortTime = 0, 0
			m = &c
		}
		b, err := m.Encode(nil, s.p)
		if err != nil {
			s.t.Fatalf("encode %s: %v", m.Slug(), err)
		}
		if _, ok := m.(*codec.LogicalStreamStart); ok {
			s.p.Streaming |= codec.Streamed
		}
		s.msgs = append(s.msgs, b)
		s.at = append(s.at, LSN(0x1000+len(s.at)*0x10))
	}
	return s
}

// run feeds the stream to a and renders every event, one line each.
func (s *stream) run(a *Assembler) ([]string, error) {
	var lines []string
	h := func(e Event) error { lines = append(lines, render(e)); return nil }
	for i, b := range s.msgs {
		if err := a.Feed(s.at[i], b, h); err != nil {
			return lines, err
		}
	}
	return lines, nil
}

func (s *stream) want(a *Assembler, want ...string) {
	s.t.Helper()
	got, err := s.run(a)
	if err != nil {
		s.t.Fatalf("%v after %q", err, got)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		s.t.Errorf("events\n got %q\nwant %q", got, want)
	}
}

// render writes an event as a line: values as kind:bytes, an unchanged
// TOAST value as u, one filled from the old tuple as u=kind:bytes.
func render(e Event) string {
	row := func(r Row) string {
		var parts []string
		for _, v := range r.Values {
			s := ""
			switch {
			case v.Unchanged && !v.Filled:
				parts = append(parts, "u")
				continue
			case v.Unchanged:
				s = "u="
			}
			switch {
			case v.Null:
				s += "n"
			case v.Binary:
				s += fmt.Sprintf("b:%x", v.Raw)
			default:
				s += "t:" + string(v.Raw)
			}
			parts = append(parts, s)
		}
		return "(" + strings.Join(parts, " ") + ")"
	}
	cols := func(r *Relation) string {
		var parts []string
		for _, c := range r.Columns {
			k := ""
			if c.Key {
				k = "*"
			}
			parts = append(parts, fmt.Sprintf("%s%s:%d", k, c.Name, c.TypeOID))
		}
		return strings.Join(parts, ",")
	}
	switch e := e.(type) {
	case *Begin:
		s := fmt.Sprintf("BEGIN %d final=%s", e.Xid, e.FinalLSN)
		if e.Streamed {
			s += " streamed"
		}
		if e.Prepared {
			s += " prepared " + e.GID
		}
		return s
	case *Commit:
		return fmt.Sprintf("COMMIT %d end=%s", e.Xid, e.EndLSN)
	case *Prepare:
		return fmt.Sprintf("PREPARE %s end=%s", e.GID, e.EndLSN)
	case *CommitPrepared:
		return fmt.Sprintf("COMMIT PREPARED %s end=%s", e.GID, e.EndLSN)
	case *RollbackPrepared:
		return fmt.Sprintf("ROLLBACK PREPARED %s end=%s", e.GID, e.EndLSN)
	case *Origin:
		return "ORIGIN " + e.Name
	case *RelationChanged:
		s := fmt.Sprintf("RELATION %s.%s %s", e.Relation.Namespace, e.Relation.Name, cols(e.Relation))
		if e.Previous != nil {
			s += " was " + cols(e.Previous)
		}
		return s
	case *Insert:
		return "INSERT " + e.Relation.Name + " " + row(e.New)
	case *Update:
		s := "UPDATE " + e.Relation.Name
		if e.OldKind != 0 {
			s += " " + string(e.OldKind) + row(e.Old)
		}
		return s + " " + row(e.New)
	case *Delete:
		return "DELETE " + e.Relation.Name + " " + string(e.OldKind) + row(e.Old)
	case *Truncate:
		var names []string
		for _, r := range e.Relations {
			names = append(names, r.Name)
		}
		return fmt.Sprintf("TRUNCATE %s cascade=%v restart=%v", strings.Join(names, ","), e.Cascade, e.RestartIdentity)
	case *Message:
		return fmt.Sprintf("MESSAGE %v %s %q", e.Transactional, e.Prefix, e.Content)
	}
	return fmt.Sprintf("%T", e)
}

func text(vals ...string) codec.TupleData {
	var t codec.TupleData
	for _, v := range vals {
		switch v {
		case "n", "u":
			t.Columns = append(t.Columns, codec.TupleDataColumn{Kind: v[0]})
		default:
			t.Columns = append(t.Columns, codec.TupleDataColumn{Kind: 't', Data: []byte(v)})
		}
	}
	return t
}

func relation(xid uint32, oid uint32, name string, identity byte, cols ...string) *codec.LogicalRelation {
	r := &codec.LogicalRelation{Xid: xid, RelationOID: oid, Namespace: "public", RelationName: name, ReplicaIdentity: int8(identity)}
	for _, c := range cols {
		var flags int8
		if strings.HasPrefix(c, "*") {
			flags, c = 1, c[1:]
		}
		r.Columns = append(r.Columns, codec.RelationColumn{Flags: flags, Name: c, DataType: 25, TypeModifier: -1})
	}
	return r
}

// TestTransaction: a plain transaction's changes arrive as they come,
// unchanged TOAST values marked, filled from a whole old row and from a
// key, a repeated identical Relation announced once, a changed one with
// its previous columns.
func TestTransaction(t *testing.T) {
	s := newStream(t, 1, false).add(
		&codec.LogicalBegin{FinalLSN: 0x2000, Xid: 7},
		relation(0, 1, "t", 'd', "*id", "big", "v"),
		&codec.LogicalInsert{RelationOID: 1, New: text("1", "x", "")},
		&codec.LogicalUpdate{RelationOID: 1, New: text("1", "u", "a")},
		&codec.LogicalUpdate{RelationOID: 1, OldKind: 'K', Old: text("1", "n", "n"), New: text("u", "u", "b")},
		relation(0, 1, "t", 'd', "*id", "big", "v"),
		relation(0, 2, "full", 'f', "id", "big"),
		&codec.LogicalUpdate{RelationOID: 2, OldKind: 'O', Old: text("1", "long"), New: text("2", "u")},
		&codec.LogicalDelete{RelationOID: 2, OldKind: 'O', Old: text("2", "long")},
		&codec.LogicalMessage{Flags: 1, LSN: 0x1050, Prefix: "p", Content: []byte("in")},
		&codec.LogicalTruncate{Options: 3, RelationOIDs: []uint32{1, 2}},
		&codec.LogicalCommit{CommitLSN: 0x2000, TransactionEndLSN: 0x2010},
		&codec.LogicalMessage{LSN: 0x2020, Prefix: "p", Content: []byte("out")},
		&codec.LogicalBegin{FinalLSN: 0x3000, Xid: 8},
		relation(0, 1, "t", 'd', "*id", "big", "v", "added"),
		&codec.LogicalOrigin{Name: "o"},
		&codec.LogicalInsert{RelationOID: 1, New: text("2", "y", "c", "d")},
		&codec.LogicalCommit{CommitLSN: 0x3000, TransactionEndLSN: 0x3010},
	)
	s.want(NewAssembler(AssemblerConfig{Major: streamMajor}),
		"BEGIN 7 final=0/2000",
		"RELATION public.t *id:25,big:25,v:25",
		"INSERT t (t:1 t:x t:)",
		"UPDATE t (t:1 u t:a)",
		"UPDATE t K(t:1 n n) (u=t:1 u t:b)",
		"RELATION public.full id:25,big:25",
		"UPDATE full O(t:1 t:long) (t:2 u=t:long)",
		"DELETE full O(t:2 t:long)",
		`MESSAGE true p "in"`,
		"TRUNCATE t,full cascade=true restart=true",
		"COMMIT 7 end=0/2010",
		`MESSAGE false p "out"`,
		"BEGIN 8 final=0/3000",
		"ORIGIN o",
		"RELATION public.t *id:25,big:25,v:25,added:25 was *id:25,big:25,v:25",
		"INSERT t (t:2 t:y t:c t:d)",
		"COMMIT 8 end=0/3010",
	)
}

// streamedWorkload is two transactions streamed in interleaved segments
// with a plain one committed between them: 10 commits (after a
// subtransaction's abort dropped its rows, and one inserted after it
// kept), 11 aborts, 12 is dropped whole in parallel mode with its LSN.
func streamedWorkload(t testing.TB, version int, parallel bool) *stream {
	return newStream(t, version, parallel).add(
		relation(0, 1, "t", 'd', "*id"),
		&codec.LogicalStreamStart{Xid: 10, FirstSegment: 1},
		relation(10, 2, "s", 'd', "*id"),
		&codec.LogicalInsert{Xid: 10, RelationOID: 2, New: text("1")},
		&codec.LogicalInsert{Xid: 100, RelationOID: 2, New: text("sub-aborted")},
		&codec.LogicalInsert{Xid: 101, RelationOID: 2, New: text("nested-aborted")},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamStart{Xid: 11, FirstSegment: 1},
		&codec.LogicalInsert{Xid: 11, RelationOID: 1, New: text("aborted")},
		&codec.LogicalStreamStop{},
		&codec.LogicalBegin{FinalLSN: 0x5000, Xid: 9},
		&codec.LogicalInsert{RelationOID: 1, New: text("plain")},
		&codec.LogicalCommit{CommitLSN: 0x5000, TransactionEndLSN: 0x5010},
		&codec.LogicalStreamAbort{Xid: 10, SubXid: 100, AbortLSN: 0x5100},
		&codec.LogicalStreamStart{Xid: 10},
		&codec.LogicalInsert{Xid: 102, RelationOID: 2, New: text("sub-kept")},
		&codec.LogicalMessage{Xid: 10, Flags: 1, LSN: 0x5200, Prefix: "p", Content: []byte("m")},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamAbort{Xid: 11, SubXid: 11, AbortLSN: 0x5300},
		&codec.LogicalStreamCommit{Xid: 10, CommitLSN: 0x6000, TransactionEndLSN: 0x6010},
		&codec.LogicalStreamStart{Xid: 12, FirstSegment: 1},
		&codec.LogicalInsert{Xid: 12, RelationOID: 1, New: text("parallel-aborted")},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamAbort{Xid: 12, SubXid: 12, AbortLSN: 0x6100, AbortTime: 1},
	)
}

var streamedWant = []string{
	"BEGIN 9 final=0/5000",
	"RELATION public.t *id:25",
	"INSERT t (t:plain)",
	"COMMIT 9 end=0/5010",
	"BEGIN 10 final=0/6000 streamed",
	"RELATION public.s *id:25",
	"INSERT s (t:1)",
	"INSERT s (t:sub-kept)",
	`MESSAGE true p "m"`,
	"COMMIT 10 end=0/6010",
}

// TestStreamed: streamed transactions are held until Stream Commit and
// delivered whole in commit order; aborts (whole, subtransaction, parallel
// with the abort LSN) drop what they must and nothing else. The same held
// in memory and spilled to disk from the first byte.
func TestStreamed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		version  int
		parallel bool
		limit    int64
	}{
		{"v2-memory", 2, false, 0}, {"v2-spilled", 2, false, 1}, {"v4-parallel-memory", 4, true, 0}, {"v4-parallel-spilled", 4, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: tc.version, Parallel: tc.parallel, MemoryLimit: tc.limit, SpillDir: dir})
			streamedWorkload(t, tc.version, tc.parallel).want(a, streamedWant...)
			st := a.Stats()
			if st.Held != 0 || st.InMemory != 0 || !a.Idle() {
				t.Errorf("after the stream: %+v, idle %v", st, a.Idle())
			}
			if (st.Spilled > 0) != (tc.limit == 1) {
				t.Errorf("spilled %d bytes with a limit of %d", st.Spilled, tc.limit)
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("spill files left: %v", files)
			}
		})
	}
}

// TestSpillTruncate: a subtransaction abort that reaches back into the
// spilled part of a transaction drops from the file, and what comes after
// it is appended where the dropped records were.
func TestSpillTruncate(t *testing.T) {
	s := newStream(t, 2, false).add(
		relation(0, 1, "t", 'd', "*id"),
		&codec.LogicalStreamStart{Xid: 10, FirstSegment: 1},
		&codec.LogicalInsert{Xid: 10, RelationOID: 1, New: text("a")},
		&codec.LogicalInsert{Xid: 20, RelationOID: 1, New: text(strings.Repeat("x", 300))},
		&codec.LogicalInsert{Xid: 20, RelationOID: 1, New: text("y")},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamAbort{Xid: 10, SubXid: 20},
		&codec.LogicalStreamStart{Xid: 10},
		&codec.LogicalInsert{Xid: 10, RelationOID: 1, New: text("b")},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamCommit{Xid: 10, CommitLSN: 0x6000, TransactionEndLSN: 0x6010},
	)
	a := NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 2, MemoryLimit: 200, SpillDir: t.TempDir()})
	s.want(a, "BEGIN 10 final=0/6000 streamed", "RELATION public.t *id:25", "INSERT t (t:a)", "INSERT t (t:b)", "COMMIT 10 end=0/6010")
	if a.Stats().Spilled == 0 {
		t.Error("the 300-byte row did not spill past a 200-byte limit")
	}
}

// TestTwoPhase: prepared transactions, plain and streamed, then settled.
func TestTwoPhase(t *testing.T) {
	s := newStream(t, 3, false).add(
		relation(0, 1, "t", 'd', "*id"),
		&codec.LogicalBeginPrepare{PrepareLSN: 0x2000, PrepareEndLSN: 0x2010, Xid: 5, GID: "g1"},
		&codec.LogicalInsert{RelationOID: 1, New: text("1")},
		&codec.LogicalPrepare{PrepareLSN: 0x2000, PrepareEndLSN: 0x2010, Xid: 5, GID: "g1"},
		&codec.LogicalCommitPrepared{CommitLSN: 0x2100, CommitEndLSN: 0x2110, Xid: 5, GID: "g1"},
		&codec.LogicalStreamStart{Xid: 6, FirstSegment: 1},
		&codec.LogicalInsert{Xid: 6, RelationOID: 1, New: text("2")},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamPrepare{PrepareLSN: 0x3000, PrepareEndLSN: 0x3010, Xid: 6, GID: "g2"},
		&codec.LogicalRollbackPrepared{PrepareEndLSN: 0x3010, RollbackEndLSN: 0x3110, Xid: 6, GID: "g2"},
	)
	s.want(NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 3}),
		"BEGIN 5 final=0/2000 prepared g1", "RELATION public.t *id:25", "INSERT t (t:1)", "PREPARE g1 end=0/2010",
		"COMMIT PREPARED g1 end=0/2110",
		"BEGIN 6 final=0/3000 streamed prepared g2", "INSERT t (t:2)", "PREPARE g2 end=0/3010",
		"ROLLBACK PREPARED g2 end=0/3110")
	// From a start after the first prepare, its commit and what follows
	// are delivered, the prepare is not.
	s.want(NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 3, Start: 0x2010}),
		"COMMIT PREPARED g1 end=0/2110",
		"BEGIN 6 final=0/3000 streamed prepared g2", "RELATION public.t *id:25", "INSERT t (t:2)", "PREPARE g2 end=0/3010",
		"ROLLBACK PREPARED g2 end=0/3110")
}

// TestStart: what ends at or before Start is not delivered again, and the
// relation it described is announced with the first change delivered.
func TestStart(t *testing.T) {
	s := streamedWorkload(t, 2, false)
	s.want(NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 2, Start: 0x5010}), streamedWant[4:]...)
	s.want(NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 2, Start: 0x6010}))
}

// TestValues: values decode by type OID through pgtype in text and binary;
// a Type message registers an enum by the name the application gave it, a
// domain as its base type and an unknown type as text only; an unchanged
// TOAST value is an error.
func TestValues(t *testing.T) {
	types := pgtype.NewMap()
	types.RegisterType(&pgtype.Type{Name: "mood", OID: 1, Codec: &pgtype.EnumCodec{}}) // its OID in this database is not known yet
	rel := &codec.LogicalRelation{RelationOID: 1, Namespace: "public", RelationName: "v", Columns: []codec.RelationColumn{
		{Name: "i", DataType: pgtype.Int4OID}, {Name: "b", DataType: pgtype.Int8OID}, {Name: "s", DataType: pgtype.TextOID},
		{Name: "m", DataType: 90000}, {Name: "x", DataType: 90001}, {Name: "xb", DataType: 90001}, {Name: "big", DataType: pgtype.TextOID},
		{Name: "none", DataType: pgtype.Int4OID}, {Name: "unknown", DataType: 90002}, {Name: "dom", DataType: 90003},
	}}
	s := newStream(t, 2, false).add(
		&codec.LogicalType{DataType: 90000, Namespace: "public", Name: "mood"},
		&codec.LogicalType{DataType: 90001, Namespace: "ext", Name: "thing"},
		// a domain over int4: pgoutput names its base type, of pg_catalog
		&codec.LogicalType{DataType: 90003, Namespace: "", Name: "int4"},
		rel,
		&codec.LogicalBegin{FinalLSN: 0x2000, Xid: 1},
		&codec.LogicalInsert{RelationOID: 1, New: codec.TupleData{Columns: []codec.TupleDataColumn{
			{Kind: 't', Data: []byte("-42")}, {Kind: 'b', Data: []byte{0, 0, 0, 1, 0, 0, 0, 2}}, {Kind: 't', Data: []byte("ü")},
			{Kind: 'b', Data: []byte("happy")}, {Kind: 't', Data: []byte("(1,2)")}, {Kind: 'b', Data: []byte{1}}, {Kind: 'u'},
			{Kind: 'n'}, {Kind: 't', Data: []byte("?")}, {Kind: 'b', Data: []byte{0, 0, 0, 7}},
		}}},
		&codec.LogicalCommit{CommitLSN: 0x2000, TransactionEndLSN: 0x2010},
	)
	a := NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 2, Types: types})
	var got []string
	for i, b := range s.msgs {
		err := a.Feed(s.at[i], b, func(e Event) error {
			ins, ok := e.(*Insert)
			if !ok {
				return nil
			}
			for _, v := range ins.New.Values {
				d, err := v.Decode()
				got = append(got, fmt.Sprintf("%T %v %v", d, d, err))
			}
			var i32 int32
			var s string
			if err := ins.New.Values[0].Scan(&i32); err != nil || i32 != -42 {
				t.Errorf("Scan int4: %d, %v", i32, err)
			}
			if err := ins.New.Values[6].Scan(&s); !errors.Is(err, ErrUnchanged) {
				t.Errorf("Scan of an unchanged value: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"int32 -42 <nil>", "int64 4294967298 <nil>", "string ü <nil>", "string happy <nil>", "string (1,2) <nil>",
		`<nil> <nil> cdc: type ext.thing (OID 90001) arrived in binary; register a pgtype codec named "ext.thing" to decode it`,
		"<nil> <nil> " + ErrUnchanged.Error(), "<nil> <nil> <nil>",
		"<nil> <nil> cdc: no pgtype codec for type OID 90002: register it in the Types map", "int32 7 <nil>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("values\n got %q\nwant %q", got, want)
	}
}

// TestBadStreams: streams that break pgoutput's rules are errors that say
// what and where, never a panic or a silent drop.
func TestBadStreams(t *testing.T) {
	rel := relation(0, 1, "t", 'd', "*id")
	begin := &codec.LogicalBegin{FinalLSN: 0x2000, Xid: 1}
	for _, tc := range []struct {
		name string
		msgs []codec.Message
		want string
	}{
		{"change before relation", []codec.Message{begin, &codec.LogicalInsert{RelationOID: 9, New: text("1")}}, "change of relation 9 before its Relation message (message at 0/1010)"},
		{"change outside transaction", []codec.Message{rel, &codec.LogicalInsert{RelationOID: 1, New: text("1")}}, "logical-insert outside a transaction"},
		{"column count", []codec.Message{rel, begin, &codec.LogicalInsert{RelationOID: 1, New: text("1", "2")}}, "Insert of public.t has 2 columns, its Relation 1"},
		{"nested begin", []codec.Message{begin, begin}, "Begin inside a transaction"},
		{"commit without begin", []codec.Message{&codec.LogicalCommit{}}, "*cdc.Commit without its Begin"},
		{"stop outside stream", []codec.Message{&codec.LogicalStreamStop{}}, "Stream Stop outside a streamed segment"},
		{"later segment first", []codec.Message{&codec.LogicalStreamStart{Xid: 3}}, "continues transaction 3, whose first segment"},
		{"begin inside segment", []codec.Message{&codec.LogicalStreamStart{Xid: 3, FirstSegment: 1}, begin}, "logical-begin inside a segment of streamed transaction 3"},
		{"relation flags", []codec.Message{&codec.LogicalRelation{RelationOID: 1, Namespace: "n", RelationName: "r", Columns: []codec.RelationColumn{{Flags: 2, Name: "c"}}}}, "flags 0x2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newStream(t, 2, false).add(tc.msgs...).run(NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 2}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	err := NewAssembler(AssemblerConfig{Major: streamMajor, LogicalVersion: 2}).Feed(0x10, []byte{'I', 0, 0}, func(Event) error { return nil })
	var de *codec.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "pgoutput message at 0/10") {
		t.Errorf("truncated Insert: %v", err)
	}
}

// TestSpillUnlinked: a spilled transaction's file is out of the directory
// while it is held (a consumer killed then leaves nothing behind), and
// the transaction still comes back whole at Stream Commit; an abort and
// Close let go of the files they hold.
func TestSpillUnlinked(t *testing.T) {
	dir := t.TempDir()
	big := text(strings.Repeat("x", 300))
	s := newStream(t, 2, false).add(
		relation(0, 1, "t", 'd', "*id"),
		&codec.LogicalStreamStart{Xid: 10, FirstSegment: 1},
		&codec.LogicalInsert{Xid: 10, RelationOID: 1, New: big},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamStart{Xid: 11, FirstSegment: 1},
		&codec.LogicalInsert{Xid: 11, RelationOID: 1, New: big},
		&codec.LogicalStreamStop{},
		&codec.LogicalStreamStart{Xid: 12, FirstSegment: 1},
		&codec.LogicalInsert{Xid: 12, RelationOID: 1, New: big},
		&codec.LogicalStreamStop{},
	)
	a := NewAssembler(AssemblerConfig{LogicalVersion: 2, MemoryLimit: 1, SpillDir: dir})
	held := func(want int) {
		t.Helper()
		if st := a.Stats(); st.Held != want || st.Spilled == 0 {
			t.Errorf("stats %+v, want %d spilled transactions held", st, want)
		}
		if files, err := os.ReadDir(dir); err != nil || len(files) != 0 {
			t.Errorf("spill directory holds %v (%v)", files, err)
		}
	}
	if got, err := s.run(a); err != nil || len(got) != 0 {
		t.Fatalf("%q, %v", got, err)
	}
	held(3)
	s = newStream(t, 2, false).add(
		&codec.LogicalStreamAbort{Xid: 11, SubXid: 11},
		&codec.LogicalStreamCommit{Xid: 10, CommitLSN: 0x6000, TransactionEndLSN: 0x6010},
	)
	s.want(a, "BEGIN 10 final=0/6000 streamed", "RELATION public.t *id:25", "INSERT t (t:"+strings.Repeat("x", 300)+")", "COMMIT 10 end=0/6010")
	held(1)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if st := a.Stats(); st.Held != 0 {
		t.Errorf("after Close: %+v", st)
	}
}

// TestDecodeScalars holds Decode of the scalar types, whose plans it keeps,
// to what the codec's DecodeValue gives for the same bytes: values, Go
// types and errors, text and binary in turn on one column, and a result
// that does not change when the column decodes the next value.
func TestDecodeScalars(t *testing.T) {
	types := pgtype.NewMap()
	cases := []struct {
		oid    uint32
		values []any
	}{
		{pgtype.Int2OID, []any{int16(-7), int16(300)}},
		{pgtype.Int4OID, []any{int32(-42), int32(1 << 30)}},
		{pgtype.Int8OID, []any{int64(-1), int64(1) << 40}},
		{pgtype.Float4OID, []any{float32(1.5), float32(-0.25)}},
		{pgtype.Float8OID, []any{2.5e300, -1.0}},
		{pgtype.BoolOID, []any{true, false}},
		{pgtype.ByteaOID, []any{[]byte{0, 1, 0xff}, []byte{}}},
		{pgtype.OIDOID, []any{uint32(16384), uint32(1<<32 - 1)}},
		{pgtype.TextOID, []any{"ü", "", strings.Repeat("x", 64), strings.Repeat("y", 65)}},
		{pgtype.VarcharOID, []any{"vc"}},
		{pgtype.BPCharOID, []any{"c  "}},
		{pgtype.NameOID, []any{"pg_class"}},
		{pgtype.UUIDOID, []any{[16]byte{0xa0, 0xee, 15: 0x11}}},
		{pgtype.IntervalOID, []any{pgtype.Interval{Microseconds: 1500, Days: -2, Months: 14, Valid: true}}},
		{pgtype.NumericOID, []any{pgtype.Numeric{Int: big.NewInt(15), Exp: -1, Valid: true}, pgtype.Numeric{NaN: true, Valid: true},
			pgtype.Numeric{Int: new(big.Int).Lsh(big.NewInt(-3), 200), Valid: true}}},
		{pgtype.DateOID, []any{time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), pgtype.Date{InfinityModifier: pgtype.NegativeInfinity, Valid: true}}},
		{pgtype.TimestampOID, []any{time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC), pgtype.Timestamp{InfinityModifier: pgtype.Infinity, Valid: true}}},
		{pgtype.TimestamptzOID, []any{time.Date(1999, 12, 31, 23, 59, 59, 0, time.FixedZone("x", 3600)),
			pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}}},
	}
	for _, c := range cases {
		typ, _ := types.TypeForOID(c.oid)
		if scalarOf(typ.Codec) == nil {
			t.Errorf("%s: not taken as a scalar", typ.Name)
		}
		var inputs []Value
		for _, x := range c.values {
			for _, format := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
				raw, err := types.Encode(c.oid, format, x, nil)
				if err != nil {
					t.Fatal(err)
				}
				raw = append([]byte{}, raw...) // never nil, as the Assembler gives a value that is not NULL
				inputs = append(inputs, Value{Raw: raw, Binary: format == pgtype.BinaryFormatCode})
			}
		}
		inputs = append(inputs, Value{Raw: []byte("x")}, Value{Raw: []byte{1, 2, 3}, Binary: true}, Value{Raw: []byte{}, Binary: true})
		for i := range 300 { // values of several of Decode's chunks
			inputs = append(inputs, Value{Raw: []byte(strconv.Itoa(i * 7))})
		}
		dec := &decoder{types: types}
		var held []any
		var wantRaw [][]byte
		for _, in := range inputs {
			wantRaw = append(wantRaw, bytes.Clone(in.Raw))
		}
		for _, in := range inputs {
			v := in
			v.TypeOID, v.dec = c.oid, dec
			got, gotErr := v.Decode()
			want, wantErr := typ.Codec.DecodeValue(types, c.oid, v.Format(), v.Raw)
			if fmt.Sprintf("%T %v %v", got, got, gotErr) != fmt.Sprintf("%T %v %v", want, want, wantErr) {
				t.Errorf("%s %q (binary %v): Decode %T %v, %v; DecodeValue %T %v, %v", typ.Name, v.Raw, v.Binary, got, got, gotErr, want, want, wantErr)
			}
			held = append(held, got)
		}
		runtime.GC() // the chunks a value keeps are alive, what they point at too
		for i, in := range inputs {
			clear(in.Raw) // nor do values point into the stream
			want, _ := typ.Codec.DecodeValue(types, c.oid, in.Format(), wantRaw[i])
			if fmt.Sprintf("%T %v", held[i], held[i]) != fmt.Sprintf("%T %v", want, want) {
				t.Errorf("%s: value %d became %v after the column decoded more", typ.Name, i, held[i])
			}
		}
	}
}
