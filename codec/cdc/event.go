package cdc

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec/session"
)

// LSN is a WAL position.
type LSN = session.LSN

// Event is one thing the stream says: *Begin, *Commit, *Insert, *Update,
// *Delete, *Truncate, *Message, *Origin, *RelationChanged, *Prepare,
// *CommitPrepared or *RollbackPrepared. An event is valid during the handler
// call that receives it.
type Event interface{ event() }

// Boundary is an event after which the application may confirm: Commit,
// Prepare, CommitPrepared, RollbackPrepared and a non-transactional Message.
// Confirming its End tells the server that everything up to it is done.
type Boundary interface {
	Event
	End() LSN
}

// Begin opens a transaction. Its changes follow, then a Commit, or for a
// prepared transaction (Prepared set) a Prepare.
type Begin struct {
	Xid uint32
	// FinalLSN is the LSN of the commit (or prepare) record.
	FinalLSN LSN
	Time     time.Time
	// Streamed says the server streamed the transaction before it
	// committed; the consumer held it until Stream Commit.
	Streamed bool
	// Prepared opens the changes of a PREPARE TRANSACTION (two-phase).
	Prepared bool
	GID      string
}

// Commit ends a transaction. Confirm End once its changes are safe.
type Commit struct {
	Xid       uint32
	CommitLSN LSN
	EndLSN    LSN
	Time      time.Time
	Streamed  bool
}

// Prepare ends the changes of a prepared transaction; a CommitPrepared or
// RollbackPrepared with the same GID settles it later.
type Prepare struct {
	Xid        uint32
	GID        string
	PrepareLSN LSN
	EndLSN     LSN
	Time       time.Time
	Streamed   bool
}

// CommitPrepared commits the prepared transaction GID.
type CommitPrepared struct {
	Xid       uint32
	GID       string
	CommitLSN LSN
	EndLSN    LSN
	Time      time.Time
}

// RollbackPrepared rolls the prepared transaction GID back.
type RollbackPrepared struct {
	Xid          uint32
	GID          string
	PrepareEnd   LSN
	EndLSN       LSN
	PrepareTime  time.Time
	RollbackTime time.Time
}

// Origin names the replication origin the current transaction came from.
type Origin struct {
	Name      string
	CommitLSN LSN
}

// RelationChanged is the first description of a table, or one whose
// columns (names, types, type modifiers, key flags), name or replica
// identity differ from the one before (Previous, nil the first time).
// Changes of the table that follow use Relation.
type RelationChanged struct {
	Relation, Previous *Relation
}

// Insert is a new row.
type Insert struct {
	Relation *Relation
	New      Row
}

// Update is a changed row. Old is present (OldKind 'K': the key columns
// only; 'O': the whole row, REPLICA IDENTITY FULL) when the server sent
// it, else OldKind is 0 and Old has no values.
type Update struct {
	Relation *Relation
	OldKind  byte
	Old, New Row
}

// Delete is a removed row: its key (OldKind 'K') or whole row ('O').
type Delete struct {
	Relation *Relation
	OldKind  byte
	Old      Row
}

// Truncate empties Relations.
type Truncate struct {
	Relations       []*Relation
	Cascade         bool
	RestartIdentity bool
}

// Message is pg_logical_emit_message's: inside a transaction when
// Transactional, else on its own (then a Boundary).
type Message struct {
	Transactional bool
	LSN           LSN
	Prefix        string
	Content       []byte
}

func (*Begin) event()            {}
func (*Commit) event()           {}
func (*Prepare) event()          {}
func (*CommitPrepared) event()   {}
func (*RollbackPrepared) event() {}
func (*Origin) event()           {}
func (*RelationChanged) event()  {}
func (*Insert) event()           {}
func (*Update) event()           {}
func (*Delete) event()           {}
func (*Truncate) event()         {}
func (*Message) event()          {}

func (e *Commit) End() LSN           { return e.EndLSN }
func (e *Prepare) End() LSN          { return e.EndLSN }
func (e *CommitPrepared) End() LSN   { return e.EndLSN }
func (e *RollbackPrepared) End() LSN { return e.EndLSN }

// End of a non-transactional message is just past its LSN: the server
// skips a message whose LSN is before the slot's confirmed position.
func (e *Message) End() LSN { return e.LSN + 1 }

// Relation is a table as the last Relation message described it. A new
// description makes a new Relation, so one held from an earlier event
// keeps the columns that event's rows have.
type Relation struct {
	OID             uint32
	Namespace, Name string
	// ReplicaIdentity is 'd' (default: the primary key), 'n' (nothing),
	// 'f' (full) or 'i' (an index).
	ReplicaIdentity byte
	Columns         []Column
	// decoders are the columns' pgtype types and scan plans, found on
	// first use.
	decoders []decoder
}

// decoder is what decoding a column's values needs from pgtype, kept so
// that each row does not look it up again: the type, the scan plan of the
// last destination type scanned into, and Decode's own for a scalar type.
type decoder struct {
	types  *pgtype.Map
	typ    *pgtype.Type
	target unsafe.Pointer // typeOf the plan's destination
	format int16
	plan   pgtype.ScanPlan
	scalar scalarDecoder
}

// scalarDecoder is Decode for the pgtype codecs whose DecodeValue scans
// with the codec's own plan into a variable of one Go type and returns it,
// or the part of it that holds the value (pgtype's int.go, uint32.go,
// float4.go, float8.go, bool.go, bytea.go, numeric.go, interval.go,
// uuid.go, and date.go, timestamp.go, timestamptz.go, which give
// ±infinity as the InfinityModifier), or returns string(src) (text.go:
// text, varchar, bpchar, name): TestDecodeScalars holds Decode to
// DecodeValue for each. It keeps the plan and the variable, so that
// DecodeValue's PlanScan is not made again for every value, and puts the
// pointer-free values it returns in the column's boxes rather than an
// allocation each.
type scalarDecoder interface {
	decode(v *Value) (any, error)
}

func scalarOf(c pgtype.Codec) scalarDecoder {
	switch c.(type) {
	case pgtype.Int2Codec:
		return &scalarPlan[int16]{box: box[int16]}
	case pgtype.Int4Codec:
		return &scalarPlan[int32]{box: box[int32]}
	case pgtype.Int8Codec:
		return &scalarPlan[int64]{box: box[int64]}
	case pgtype.Uint32Codec:
		return &scalarPlan[uint32]{box: box[uint32]}
	case pgtype.Float4Codec:
		return &scalarPlan[float32]{box: box[float32]}
	case pgtype.Float8Codec:
		return &scalarPlan[float64]{box: box[float64]}
	case pgtype.BoolCodec:
		return &scalarPlan[bool]{box: box[bool]}
	case pgtype.IntervalCodec:
		return &scalarPlan[pgtype.Interval]{box: box[pgtype.Interval]}
	case pgtype.UUIDCodec:
		return &scalarPlan[pgtype.UUID]{box: func(b *boxes, x pgtype.UUID) any { return box(b, x.Bytes) }}
	// Values with pointers are not for a chunk.
	case pgtype.ByteaCodec:
		return &scalarPlan[[]byte]{box: own[[]byte]}
	case pgtype.NumericCodec:
		return &scalarPlan[pgtype.Numeric]{box: own[pgtype.Numeric]}
	case pgtype.DateCodec:
		return &scalarPlan[pgtype.Date]{box: func(_ *boxes, x pgtype.Date) any { return finite(x.InfinityModifier, x.Time) }}
	case *pgtype.TimestampCodec:
		return &scalarPlan[pgtype.Timestamp]{box: func(_ *boxes, x pgtype.Timestamp) any { return finite(x.InfinityModifier, x.Time) }}
	case *pgtype.TimestamptzCodec:
		return &scalarPlan[pgtype.Timestamptz]{box: func(_ *boxes, x pgtype.Timestamptz) any { return finite(x.InfinityModifier, x.Time) }}
	case pgtype.TextCodec:
		return new(textDecoder)
	}
	return nil
}

// own is x in a box of its own, as any(x) makes it.
func own[T any](_ *boxes, x T) any { return x }

// finite is what DecodeValue returns for pgtype's time types: the time,
// or for ±infinity the InfinityModifier.
func finite(inf pgtype.InfinityModifier, t time.Time) any {
	if inf != pgtype.Finite {
		return inf
	}
	return t
}

type scalarPlan[T any] struct {
	x      T
	format int16
	plan   pgtype.ScanPlan
	boxes  boxes
	box    func(*boxes, T) any
}

// decode scans into x and returns what it holds, clearing it so that the
// decoder keeps no bytes the caller was given.
func (s *scalarPlan[T]) decode(v *Value) (any, error) {
	d, format := v.dec, v.Format()
	if s.plan == nil || s.format != format {
		if s.plan, s.format = d.typ.Codec.PlanScan(d.types, v.TypeOID, format, &s.x), format; s.plan == nil {
			return nil, fmt.Errorf("PlanScan did not find a plan") // codecScan's words
		}
	}
	err := s.plan.Scan(v.Raw, &s.x)
	x := s.x
	var zero T
	s.x = zero
	if err != nil {
		return nil, err
	}
	return s.box(&s.boxes, x), nil
}

// textDecoder is TextCodec's DecodeValue, string(src) in either format.
type textDecoder struct{ boxes boxes }

func (t *textDecoder) decode(v *Value) (any, error) { return t.boxes.str(v.Raw), nil }

// Column is a column of a Relation.
type Column struct {
	Name         string
	TypeOID      uint32
	TypeModifier int32
	// Key says the column is part of the replica identity.
	Key bool
}

// sameAs says whether r describes the table as o does.
func (r *Relation) sameAs(o *Relation) bool {
	if r.Namespace != o.Namespace || r.Name != o.Name || r.ReplicaIdentity != o.ReplicaIdentity || len(r.Columns) != len(o.Columns) {
		return false
	}
	for i := range r.Columns {
		if r.Columns[i] != o.Columns[i] {
			return false
		}
	}
	return true
}

// Row is the values of a tuple, one per column of its Relation.
type Row struct {
	Values []Value
}

// Value is one column of a row. Its bytes point into the stream and are
// valid during the handler call. Decode and Scan keep the column's plans:
// call them for one column from one goroutine at a time.
type Value struct {
	// Raw is the value as the server sent it (text or binary, Binary
	// says), nil for NULL and for an unchanged TOAST value that could not
	// be filled.
	Raw []byte
	// Null is SQL NULL.
	Null bool
	// Unchanged says the server did not send the value: a TOASTed value
	// the update left as it was ('u'). Filled says Raw and Null are the
	// old tuple's (REPLICA IDENTITY FULL, or a key column of a 'K' tuple).
	Unchanged, Filled bool
	Binary            bool
	TypeOID           uint32
	dec               *decoder
}

// ErrUnchanged is returned for the value of an unchanged TOAST column the
// old tuple did not carry: the row's value is the one it had, which the
// stream does not say.
var ErrUnchanged = errors.New("cdc: unchanged TOAST value not in the stream")

// Known says whether the value is in the stream: sent, or unchanged and
// filled from the old tuple.
func (v *Value) Known() bool { return !v.Unchanged || v.Filled }

// Format is the pgtype format code of Raw.
func (v *Value) Format() int16 {
	if v.Binary {
		return pgtype.BinaryFormatCode
	}
	return pgtype.TextFormatCode
}

// Decode returns the value as the Go value pgtype decodes its type to
// (nil for NULL); a type the map does not know is an error naming its OID.
// Values without pointers (integers, floats, bools, intervals, uuids) and
// short strings share small chunks of memory with the column's other
// values (see boxes): keeping one keeps at most 512 bytes more.
func (v *Value) Decode() (any, error) {
	if !v.Known() {
		return nil, ErrUnchanged
	}
	if v.Null {
		return nil, nil
	}
	if v.dec.typ == nil {
		t, ok := v.dec.types.TypeForOID(v.TypeOID)
		if !ok {
			return nil, fmt.Errorf("cdc: no pgtype codec for type OID %d: register it in the Types map", v.TypeOID)
		}
		v.dec.typ, v.dec.scalar = t, scalarOf(t.Codec)
	}
	if v.dec.scalar != nil {
		return v.dec.scalar.decode(v)
	}
	return v.dec.typ.Codec.DecodeValue(v.dec.types, v.TypeOID, v.Format(), v.Raw)
}

// Scan decodes the value into dst as pgtype's Map.Scan does, with the
// plan kept for the column while dst's type stays the same.
func (v *Value) Scan(dst any) error {
	if !v.Known() {
		return ErrUnchanged
	}
	d, target, format := v.dec, typeOf(dst), v.Format()
	if d.plan == nil || d.format != format || d.target != target {
		d.plan, d.target, d.format = d.types.PlanScan(v.TypeOID, format, dst), target, format
	}
	return d.plan.Scan(v.Raw, dst)
}

// typeOf is the dynamic type of x, the first word of an interface value:
// comparing two is one instruction, comparing reflect.Types a call.
func typeOf(x any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[0] }
