package codec_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"

	"github.com/pgspec/pgspec/codec"
)

// fromPglogrepl converts a pglogrepl message into pgspec's type, or returns
// nil for a message pgspec names differently than expected.
func fromPglogrepl(m pglogrepl.Message) codec.Message {
	micros := func(t time.Time) int64 { return t.UnixNano()/1000 - 946684800*1000000 }
	tuple := func(td *pglogrepl.TupleData) codec.TupleData {
		var out codec.TupleData
		if td == nil {
			return out
		}
		for _, c := range td.Columns {
			out.Columns = append(out.Columns, codec.TupleDataColumn{Kind: c.DataType, Data: c.Data})
		}
		return out
	}
	flag := func(b bool) int8 {
		if b {
			return 1
		}
		return 0
	}
	switch v := m.(type) {
	case *pglogrepl.BeginMessage:
		return &codec.LogicalBegin{FinalLSN: uint64(v.FinalLSN), CommitTime: micros(v.CommitTime), Xid: v.Xid}
	case *pglogrepl.CommitMessage:
		return &codec.LogicalCommit{Flags: int8(v.Flags), CommitLSN: uint64(v.CommitLSN), TransactionEndLSN: uint64(v.TransactionEndLSN), CommitTime: micros(v.CommitTime)}
	case *pglogrepl.OriginMessage:
		return &codec.LogicalOrigin{CommitLSN: uint64(v.CommitLSN), Name: v.Name}
	case *pglogrepl.RelationMessageV2:
		return withXid(fromPglogrepl(&v.RelationMessage), v.Xid)
	case *pglogrepl.RelationMessage:
		r := &codec.LogicalRelation{RelationOID: v.RelationID, Namespace: v.Namespace, RelationName: v.RelationName, ReplicaIdentity: int8(v.ReplicaIdentity)}
		for _, c := range v.Columns {
			r.Columns = append(r.Columns, codec.RelationColumn{Flags: int8(c.Flags), Name: c.Name, DataType: c.DataType, TypeModifier: c.TypeModifier})
		}
		return r
	case *pglogrepl.TypeMessageV2:
		return withXid(fromPglogrepl(&v.TypeMessage), v.Xid)
	case *pglogrepl.TypeMessage:
		return &codec.LogicalType{DataType: v.DataType, Namespace: v.Namespace, Name: v.Name}
	case *pglogrepl.InsertMessageV2:
		return withXid(fromPglogrepl(&v.InsertMessage), v.Xid)
	case *pglogrepl.InsertMessage:
		return &codec.LogicalInsert{RelationOID: v.RelationID, New: tuple(v.Tuple)}
	case *pglogrepl.UpdateMessageV2:
		return withXid(fromPglogrepl(&v.UpdateMessage), v.Xid)
	case *pglogrepl.UpdateMessage:
		return &codec.LogicalUpdate{RelationOID: v.RelationID, OldKind: v.OldTupleType, Old: tuple(v.OldTuple), New: tuple(v.NewTuple)}
	case *pglogrepl.DeleteMessageV2:
		return withXid(fromPglogrepl(&v.DeleteMessage), v.Xid)
	case *pglogrepl.DeleteMessage:
		return &codec.LogicalDelete{RelationOID: v.RelationID, OldKind: v.OldTupleType, Old: tuple(v.OldTuple)}
	case *pglogrepl.TruncateMessageV2:
		return withXid(fromPglogrepl(&v.TruncateMessage), v.Xid)
	case *pglogrepl.TruncateMessage:
		return &codec.LogicalTruncate{Options: int8(v.Option), RelationOIDs: v.RelationIDs}
	case *pglogrepl.LogicalDecodingMessageV2:
		return withXid(fromPglogrepl(&v.LogicalDecodingMessage), v.Xid)
	case *pglogrepl.LogicalDecodingMessage:
		return &codec.LogicalMessage{Flags: flag(v.Transactional), LSN: uint64(v.LSN), Prefix: v.Prefix, Content: v.Content}
	case *pglogrepl.StreamStartMessageV2:
		return &codec.LogicalStreamStart{Xid: v.Xid, FirstSegment: int8(v.FirstSegment)}
	case *pglogrepl.StreamStopMessageV2:
		return &codec.LogicalStreamStop{}
	case *pglogrepl.StreamCommitMessageV2:
		return &codec.LogicalStreamCommit{Xid: v.Xid, Flags: int8(v.Flags), CommitLSN: uint64(v.CommitLSN), TransactionEndLSN: uint64(v.TransactionEndLSN), CommitTime: micros(v.CommitTime)}
	case *pglogrepl.StreamAbortMessageV2:
		return &codec.LogicalStreamAbort{Xid: v.Xid, SubXid: v.SubXid}
	}
	return nil
}

// withXid sets the Xid of a converted message: pglogrepl's V2 types wrap
// the V1 type and add the xid of the streamed transaction.
func withXid(m codec.Message, xid uint32) codec.Message {
	reflect.ValueOf(m).Elem().FieldByName("Xid").SetUint(uint64(xid))
	return m
}

// pglogreplCorpus is pgoutput bytes of every message pglogrepl implements:
// protocol 1 as PostgreSQL 13 sends it, protocol 2 as 14 sends it inside a
// streamed transaction and outside one.
func pglogreplCorpus(t *testing.T) (out []struct {
	p    codec.Params
	wire []byte
}) {
	mod := loadModel(t)
	types := messagesBySlug()
	for _, msg := range mod.Messages {
		if msg.Layer != "logical-replication" || msg.Part {
			continue
		}
		for _, p := range []codec.Params{{Major: 13, LogicalVersion: 1}, {Major: 14, LogicalVersion: 2}, {Major: 14, LogicalVersion: 2, Streaming: codec.Streamed}} {
			if !reflect.New(types[msg.Slug]).Interface().(codec.Message).Majors().Has(p.Major) {
				continue
			}
			for _, seed := range []int{0, 1, 2} {
				v := reflect.New(types[msg.Slug])
				f := &filler{n: seed, p: p, major: p.Major}
				f.fill(v.Elem(), f.layout(msg).Items)
				if lm, ok := v.Interface().(*codec.LogicalMessage); ok {
					lm.Flags = int8(seed % 2) // pglogrepl keeps only "transactional"
				}
				wire, err := v.Interface().(codec.Message).Encode(nil, p)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, struct {
					p    codec.Params
					wire []byte
				}{p, wire})
			}
		}
	}
	return out
}

// TestPglogrepl decodes the same pgoutput bytes with pglogrepl (v1 Parse,
// v2 ParseV2) and pgspec and compares the values.
func TestPglogrepl(t *testing.T) {
	compared := map[string]bool{}
	var d codec.Logical
	for _, c := range pglogreplCorpus(t) {
		var theirs pglogrepl.Message
		var err error
		if c.p.LogicalVersion == 1 {
			theirs, err = pglogrepl.Parse(c.wire)
		} else {
			theirs, err = pglogrepl.ParseV2(c.wire, c.p.Streaming&codec.Streamed != 0)
		}
		if err != nil {
			continue // a message pglogrepl does not implement (two-phase)
		}
		ours, err := d.Decode(c.wire, c.p)
		if err != nil {
			t.Fatalf("% x: %v", c.wire, err)
		}
		want := fromPglogrepl(theirs)
		if want == nil {
			t.Errorf("%T: no conversion", theirs)
			continue
		}
		if !same(ours, want) {
			t.Errorf("%s %+v:\npgspec    %+v\npglogrepl %+v", ours.Slug(), c.p, ours, want)
		}
		compared[fmt.Sprintf("%s v%d", ours.Slug(), c.p.LogicalVersion)] = true
	}
	// Every message of protocols 1 and 2 that pglogrepl has was compared.
	for _, want := range []string{"logical-begin v1", "logical-commit v1", "logical-origin v1", "logical-relation v1", "logical-type v1",
		"logical-insert v1", "logical-update v1", "logical-delete v1", "logical-truncate v1", "logical-message v2",
		"logical-stream-start v2", "logical-stream-stop v2", "logical-stream-commit v2", "logical-stream-abort v2",
		"logical-insert v2", "logical-update v2", "logical-delete v2", "logical-relation v2", "logical-type v2", "logical-truncate v2"} {
		if !compared[want] {
			t.Errorf("%s not compared", want)
		}
	}
}
