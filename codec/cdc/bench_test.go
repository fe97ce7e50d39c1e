package cdc

import (
	"fmt"
	"testing"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgtype"
)

// benchRun is the recorded stream the benchmarks consume: pg_recvlogical's
// proto_version 1 run of the PostgreSQL 15 capture (text values; about
// 2,000 inserts, updates and deletes of a table with an int, a text, an
// enum and a bytea column, in 17 transactions).
func benchRun(b *testing.B) replicationRun {
	for _, run := range readCapture(b, "../../testdata/captures/pg15-logical.pcap.gz", 5415) {
		if run.version == 1 {
			return run
		}
	}
	b.Fatal("no proto_version 1 run in the capture")
	return replicationRun{}
}

// benchTypes knows the capture's enum by name, as both consumers need.
func benchTypes() *pgtype.Map {
	types := pgtype.NewMap()
	types.RegisterType(&pgtype.Type{Name: "mood", OID: 1, Codec: &pgtype.EnumCodec{}})
	return types
}

// BenchmarkConsume does the work of a CDC consumer over one recorded
// stream: decode every pgoutput message, keep the relation cache, register
// the Type message's enum, and decode every column value of every row
// change into a Go value through pgtype: with values=any into an any
// (the value pgtype's Codec.DecodeValue gives for the column's type OID),
// with values=typed into a variable of the column's Go type (pgtype's
// scan plans: int32, string, []byte). impl=pgspec is this package's
// Assembler (Value.Decode, which keeps the int4 column's scan plan and
// copies text as TextCodec does, boxing both in shared chunks; Value.Scan);
// impl=pglogrepl is pglogrepl.Parse, a map of its RelationMessages and
// pgtype.Map's Codec.DecodeValue (as pglogrepl's own example does) and
// Map.Scan.
func BenchmarkConsume(b *testing.B) {
	run := benchRun(b)
	for _, typed := range []bool{false, true} {
		name := "values=any"
		if typed {
			name = "values=typed"
		}
		b.Run(name+"/impl=pgspec", func(b *testing.B) { consumePgspec(b, run, typed) })
		b.Run(name+"/impl=pglogrepl", func(b *testing.B) { consumePglogrepl(b, run, typed) })
	}
}

// sink holds the decoded values, one destination per Go type the
// stream's columns have.
type sink struct {
	vals  []any
	i32   int32
	str   string
	bytes []byte
}

// dst is where a value of type oid is scanned to.
func (s *sink) dst(oid uint32) any {
	switch oid {
	case pgtype.Int4OID:
		return &s.i32
	case pgtype.ByteaOID:
		return &s.bytes
	}
	return &s.str // text and the enum
}

func consumePgspec(b *testing.B, run replicationRun, typed bool) {
	types := benchTypes()
	var out sink
	decode := func(r Row) error {
		out.vals = out.vals[:0]
		for i := range r.Values {
			v := &r.Values[i]
			if typed {
				if !v.Null {
					if err := v.Scan(out.dst(v.TypeOID)); err != nil {
						return err
					}
				}
				continue
			}
			d, err := v.Decode()
			if err != nil {
				return err
			}
			out.vals = append(out.vals, d)
		}
		return nil
	}
	h := func(e Event) error {
		for _, r := range rowsOf(e) {
			if err := decode(r); err != nil {
				return err
			}
		}
		return nil
	}
	b.ReportAllocs()
	for b.Loop() {
		a := NewAssembler(AssemblerConfig{Major: 15, LogicalVersion: 1, Types: types})
		for _, m := range run.wal {
			if err := a.Feed(m.start, m.data, h); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(run.wal)*b.N)/b.Elapsed().Seconds(), "events/s")
}

func consumePglogrepl(b *testing.B, run replicationRun, typed bool) {
	types := benchTypes()
	var out sink
	decode := func(rel *pglogrepl.RelationMessage, t *pglogrepl.TupleData) error {
		out.vals = out.vals[:0]
		if t == nil {
			return nil
		}
		if rel == nil || len(t.Columns) != len(rel.Columns) {
			return fmt.Errorf("a tuple of %d columns for relation %v", len(t.Columns), rel)
		}
		for i, c := range t.Columns {
			oid := rel.Columns[i].DataType
			if typed {
				if c.DataType == 't' {
					if err := types.Scan(oid, pgtype.TextFormatCode, c.Data, out.dst(oid)); err != nil {
						return err
					}
				}
				continue
			}
			var v any
			if c.DataType == 't' {
				dt, ok := types.TypeForOID(oid)
				if !ok {
					return fmt.Errorf("no type %d", oid)
				}
				var err error
				if v, err = dt.Codec.DecodeValue(types, oid, pgtype.TextFormatCode, c.Data); err != nil {
					return err
				}
			}
			out.vals = append(out.vals, v)
		}
		return nil
	}
	b.ReportAllocs()
	for b.Loop() {
		rels := map[uint32]*pglogrepl.RelationMessage{}
		for _, m := range run.wal {
			msg, err := pglogrepl.Parse(m.data)
			if err != nil {
				b.Fatal(err)
			}
			switch msg := msg.(type) {
			case *pglogrepl.RelationMessage:
				rels[msg.RelationID] = msg
			case *pglogrepl.TypeMessage:
				if _, ok := types.TypeForOID(msg.DataType); !ok {
					t, _ := types.TypeForName(msg.Name)
					types.RegisterType(&pgtype.Type{Name: msg.Namespace + "." + msg.Name, OID: msg.DataType, Codec: t.Codec})
				}
			case *pglogrepl.InsertMessage:
				err = decode(rels[msg.RelationID], msg.Tuple)
			case *pglogrepl.UpdateMessage:
				if err = decode(rels[msg.RelationID], msg.OldTuple); err == nil {
					err = decode(rels[msg.RelationID], msg.NewTuple)
				}
			case *pglogrepl.DeleteMessage:
				err = decode(rels[msg.RelationID], msg.OldTuple)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(run.wal)*b.N)/b.Elapsed().Seconds(), "events/s")
}
