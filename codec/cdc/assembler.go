package cdc

import (
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// Handler receives each event; an error stops the stream and is returned.
type Handler func(Event) error

// AssemblerConfig says how the stream was started and how much to hold.
type AssemblerConfig struct {
	// Major is the server's major; LogicalVersion START_REPLICATION's
	// proto_version; Parallel is set for streaming 'parallel'.
	Major, LogicalVersion int
	Parallel              bool
	// Types decodes values; nil is a new pgtype.Map. Type messages
	// register the types they announce in it.
	Types *pgtype.Map
	// Start is the position the application has everything before:
	// transactions that end at or before it are not delivered again.
	Start LSN
	// MemoryLimit bounds the bytes of streamed transactions held in
	// memory (0: DefaultMemoryLimit); past it they spill to files in
	// SpillDir ("": os.TempDir).
	MemoryLimit int64
	SpillDir    string
}

// Assembler turns the pgoutput messages of one replication stream into
// events, in commit order. It is not safe for concurrent use.
type Assembler struct {
	// p is the stream's layout, which held messages are replayed with; lt
	// decodes what Feed is given, following the stream's flow (Stream
	// Start and Stop set and clear P.Streaming's Streamed).
	p     codec.Params
	lt    codec.LogicalTracker
	types *pgtype.Map
	start LSN
	// rels is the relation cache by OID; last is the entry of the last
	// change (changes come in runs of one table; entries are never
	// replaced, only updated).
	rels   map[uint32]*relEntry
	last   *relEntry
	spools spools
	// chunk is the streamed transaction whose segment is arriving.
	chunk *spool
	// inTx is set between Begin (or Begin Prepare) and Commit (Prepare);
	// skip when that transaction ends at or before start.
	inTx, skip bool
	ev         events
}

// events are the values handed to the Handler, reused.
type events struct {
	begin      Begin
	commit     Commit
	prepare    Prepare
	commitP    CommitPrepared
	rollbackP  RollbackPrepared
	origin     Origin
	relation   RelationChanged
	insert     Insert
	update     Update
	delete     Delete
	truncate   Truncate
	message    Message
	old, new   []Value
	truncRels  []*Relation
	replayed   codec.Logical
	replayedTx uint32
}

// NewAssembler returns an Assembler for a stream started as cfg says.
func NewAssembler(cfg AssemblerConfig) *Assembler {
	a := &Assembler{types: cfg.Types, start: cfg.Start, rels: map[uint32]*relEntry{}}
	a.p = codec.Params{Major: session.Layout(cfg.Major), LogicalVersion: cfg.LogicalVersion}
	if cfg.Parallel {
		a.p.Streaming = codec.ParallelStreaming
	}
	a.lt.P = a.p
	if a.types == nil {
		a.types = pgtype.NewMap()
	}
	a.spools = spools{limit: cfg.MemoryLimit, dir: cfg.SpillDir}
	if a.spools.limit <= 0 {
		a.spools.limit = DefaultMemoryLimit
	}
	return a
}

// Stats is what an Assembler holds and has held.
type Stats struct {
	// Held is the number of streamed transactions not yet committed or
	// aborted; InMemory the bytes they hold in memory.
	Held     int
	InMemory int64
	// Spilled is the bytes ever written to spill files.
	Spilled int64
}

// Stats reports what is held now.
func (a *Assembler) Stats() Stats {
	return Stats{Held: len(a.spools.open), InMemory: a.spools.inMem, Spilled: a.spools.spilled}
}

// Idle says no transaction is open or held: everything the stream said so
// far has been delivered.
func (a *Assembler) Idle() bool { return !a.inTx && a.chunk == nil && len(a.spools.open) == 0 }

// Close drops the held streamed transactions and removes their files.
func (a *Assembler) Close() error { return a.spools.close() }

// Feed takes one pgoutput message (an XLogData's WAL data) that started
// at walStart and calls h with the events it completes. data is not kept.
// After an error the stream cannot go on: start again from the slot.
func (a *Assembler) Feed(walStart LSN, data []byte, h Handler) error {
	m, err := a.lt.Next(data)
	if err != nil && !errors.Is(err, codec.ErrFlow) {
		return fmt.Errorf("cdc: pgoutput message at %s: %w", walStart, err)
	}
	return a.Take(walStart, data, m, h)
}

// Take is Feed for a message a codec.LogicalTracker following this stream
// has decoded from data (a session's Step.Logical). The tracker's flow
// violations are not needed here: what breaks the order of delivery is
// this Assembler's own error.
func (a *Assembler) Take(walStart LSN, data []byte, m codec.Message, h Handler) error {
	if err := a.feed(walStart, data, m, h); err != nil {
		var de *codec.DecodeError
		if errors.As(err, &de) || errors.Is(err, errProtocol) {
			return fmt.Errorf("%w (message at %s)", err, walStart)
		}
		return err
	}
	return nil
}

// errProtocol marks a stream that breaks pgoutput's order.
var errProtocol = errors.New("cdc: stream out of order")

func protocolErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errProtocol}, args...)...)
}

func (a *Assembler) feed(walStart LSN, data []byte, m codec.Message, h Handler) error {
	if a.chunk != nil {
		if _, ok := m.(*codec.LogicalStreamStop); ok {
			a.chunk = nil
			return nil
		}
		xid, ok := dataXid(m, a.chunk.xid)
		if !ok {
			return protocolErr("%s inside a segment of streamed transaction %d", m.Slug(), a.chunk.xid)
		}
		return a.spools.add(a.chunk, xid, walStart, data)
	}
	switch m := m.(type) {
	case *codec.LogicalStreamStart:
		if a.inTx {
			return protocolErr("Stream Start inside a transaction")
		}
		sp, err := a.spools.start(m.Xid, m.FirstSegment == 1)
		if err != nil {
			return err
		}
		a.chunk = sp
	case *codec.LogicalStreamAbort:
		sp := a.spools.open[m.Xid]
		switch {
		case sp == nil:
			return nil // a transaction that streamed nothing, or one from before a restart
		case m.SubXid == m.Xid || m.SubXid == 0:
			return a.spools.drop(sp)
		}
		return a.spools.abortSub(sp, m.SubXid)
	case *codec.LogicalStreamCommit:
		c := Commit{Xid: m.Xid, CommitLSN: LSN(m.CommitLSN), EndLSN: LSN(m.TransactionEndLSN), Time: session.TimeFromMicros(m.CommitTime), Streamed: true}
		a.ev.commit = c
		return a.replay(m.Xid, Begin{Xid: c.Xid, FinalLSN: c.CommitLSN, Time: c.Time, Streamed: true}, &a.ev.commit, h)
	case *codec.LogicalStreamPrepare:
		p := Prepare{Xid: m.Xid, GID: m.GID, PrepareLSN: LSN(m.PrepareLSN), EndLSN: LSN(m.PrepareEndLSN), Time: session.TimeFromMicros(m.PrepareTime), Streamed: true}
		a.ev.prepare = p
		return a.replay(m.Xid, Begin{Xid: p.Xid, FinalLSN: p.PrepareLSN, Time: p.Time, Streamed: true, Prepared: true, GID: p.GID}, &a.ev.prepare, h)
	case *codec.LogicalStreamStop:
		return protocolErr("Stream Stop outside a streamed segment")
	case *codec.LogicalBegin:
		a.ev.begin = Begin{Xid: m.Xid, FinalLSN: LSN(m.FinalLSN), Time: session.TimeFromMicros(m.CommitTime)}
		return a.open(h, LSN(m.FinalLSN) < a.start)
	case *codec.LogicalBeginPrepare:
		a.ev.begin = Begin{Xid: m.Xid, FinalLSN: LSN(m.PrepareLSN), Time: session.TimeFromMicros(m.PrepareTime), Prepared: true, GID: m.GID}
		return a.open(h, LSN(m.PrepareEndLSN) <= a.start)
	case *codec.LogicalCommit:
		a.ev.commit = Commit{Xid: a.ev.begin.Xid, CommitLSN: LSN(m.CommitLSN), EndLSN: LSN(m.TransactionEndLSN), Time: session.TimeFromMicros(m.CommitTime)}
		return a.close(h, &a.ev.commit, false)
	case *codec.LogicalPrepare:
		a.ev.prepare = Prepare{Xid: m.Xid, GID: m.GID, PrepareLSN: LSN(m.PrepareLSN), EndLSN: LSN(m.PrepareEndLSN), Time: session.TimeFromMicros(m.PrepareTime)}
		return a.close(h, &a.ev.prepare, true)
	case *codec.LogicalCommitPrepared:
		a.ev.commitP = CommitPrepared{Xid: m.Xid, GID: m.GID, CommitLSN: LSN(m.CommitLSN), EndLSN: LSN(m.CommitEndLSN), Time: session.TimeFromMicros(m.CommitTime)}
		return a.settle(h, &a.ev.commitP)
	case *codec.LogicalRollbackPrepared:
		a.ev.rollbackP = RollbackPrepared{Xid: m.Xid, GID: m.GID, PrepareEnd: LSN(m.PrepareEndLSN), EndLSN: LSN(m.RollbackEndLSN),
			PrepareTime: session.TimeFromMicros(m.PrepareTime), RollbackTime: session.TimeFromMicros(m.RollbackTime)}
		return a.settle(h, &a.ev.rollbackP)
	case *codec.LogicalMessage:
		if m.Flags&1 == 0 && !a.inTx {
			if LSN(m.LSN) < a.start {
				return nil
			}
			a.ev.message = Message{LSN: LSN(m.LSN), Prefix: m.Prefix, Content: m.Content}
			return h(&a.ev.message)
		}
		return a.change(m, h)
	default:
		return a.change(m, h)
	}
	return nil
}

// dataXid is the xid a message inside a segment of streamed transaction
// top carries (Origin, which carries none, is top's); ok is false for a
// message that has no place there.
func dataXid(m codec.Message, top uint32) (xid uint32, ok bool) {
	switch m := m.(type) {
	case *codec.LogicalOrigin:
		return top, true
	case *codec.LogicalRelation:
		return m.Xid, true
	case *codec.LogicalType:
		return m.Xid, true
	case *codec.LogicalInsert:
		return m.Xid, true
	case *codec.LogicalUpdate:
		return m.Xid, true
	case *codec.LogicalDelete:
		return m.Xid, true
	case *codec.LogicalTruncate:
		return m.Xid, true
	case *codec.LogicalMessage:
		return m.Xid, true
	}
	return 0, false
}

// open starts the transaction in ev.begin.
func (a *Assembler) open(h Handler, skip bool) error {
	if a.inTx {
		return protocolErr("Begin inside a transaction")
	}
	a.inTx, a.skip = true, skip
	if skip {
		return nil
	}
	return h(&a.ev.begin)
}

// close ends the open transaction with end (a Commit, or a Prepare when
// prepared).
func (a *Assembler) close(h Handler, end Boundary, prepared bool) error {
	if !a.inTx || a.ev.begin.Prepared != prepared {
		return protocolErr("%T without its Begin", end)
	}
	a.inTx = false
	if a.skip {
		return nil
	}
	return h(end)
}

// settle delivers a Commit Prepared or Rollback Prepared.
func (a *Assembler) settle(h Handler, end Boundary) error {
	if a.inTx {
		return protocolErr("%T inside a transaction", end)
	}
	if end.End() <= a.start {
		return nil
	}
	return h(end)
}

// replay delivers the held transaction xid, opened by begin and ended by
// end, unless it ends at or before start; either way it is no longer held.
func (a *Assembler) replay(xid uint32, begin Begin, end Boundary, h Handler) error {
	if a.inTx {
		return protocolErr("%T inside a transaction", end)
	}
	sp := a.spools.open[xid]
	if sp == nil {
		// A transaction whose changes were all in segments before the
		// slot's position, or one that changed nothing published.
		sp, _ = a.spools.start(xid, true)
	}
	if end.End() <= a.start {
		return a.spools.drop(sp)
	}
	a.ev.begin = begin
	if err := h(&a.ev.begin); err != nil {
		a.spools.drop(sp)
		return err
	}
	a.inTx, a.skip = true, false
	p := a.p
	p.Streaming |= codec.Streamed
	err := a.spools.replay(sp, func(walStart LSN, data []byte) error {
		m, err := a.ev.replayed.Decode(data, p)
		if err != nil {
			return fmt.Errorf("cdc: held message of transaction %d at %s: %w", xid, walStart, err)
		}
		return a.change(m, h)
	})
	a.inTx = false
	if err != nil {
		return err
	}
	return h(end)
}

// change handles a message inside a transaction (or a Relation or Type,
// which may also come between transactions).
func (a *Assembler) change(m codec.Message, h Handler) error {
	switch m := m.(type) {
	case *codec.LogicalRelation:
		return a.relation(m)
	case *codec.LogicalType:
		a.registerType(m)
		return nil
	}
	if !a.inTx {
		return protocolErr("%s outside a transaction", m.Slug())
	}
	if a.skip {
		return nil
	}
	ev := &a.ev
	switch m := m.(type) {
	case *codec.LogicalOrigin:
		ev.origin = Origin{Name: m.Name, CommitLSN: LSN(m.CommitLSN)}
		return h(&ev.origin)
	case *codec.LogicalMessage:
		ev.message = Message{Transactional: true, LSN: LSN(m.LSN), Prefix: m.Prefix, Content: m.Content}
		return h(&ev.message)
	case *codec.LogicalInsert:
		rel, err := a.use(m.RelationOID, h)
		if err != nil {
			return err
		}
		ev.new, err = a.row(ev.new[:0], rel, &m.New, "Insert")
		ev.insert = Insert{Relation: rel, New: Row{ev.new}}
		if err != nil {
			return err
		}
		return h(&ev.insert)
	case *codec.LogicalUpdate:
		rel, err := a.use(m.RelationOID, h)
		if err != nil {
			return err
		}
		ev.old = ev.old[:0]
		if m.OldKind != 0 {
			if ev.old, err = a.row(ev.old, rel, &m.Old, "Update's old tuple"); err != nil {
				return err
			}
		}
		if ev.new, err = a.row(ev.new[:0], rel, &m.New, "Update"); err != nil {
			return err
		}
		fill(ev.new, ev.old, rel, m.OldKind)
		ev.update = Update{Relation: rel, OldKind: m.OldKind, Old: Row{ev.old}, New: Row{ev.new}}
		return h(&ev.update)
	case *codec.LogicalDelete:
		rel, err := a.use(m.RelationOID, h)
		if err != nil {
			return err
		}
		if ev.old, err = a.row(ev.old[:0], rel, &m.Old, "Delete"); err != nil {
			return err
		}
		ev.delete = Delete{Relation: rel, OldKind: m.OldKind, Old: Row{ev.old}}
		return h(&ev.delete)
	case *codec.LogicalTruncate:
		ev.truncRels = ev.truncRels[:0]
		for _, oid := range m.RelationOIDs {
			rel, err := a.use(oid, h)
			if err != nil {
				return err
			}
			ev.truncRels = append(ev.truncRels, rel)
		}
		ev.truncate = Truncate{Relations: ev.truncRels, Cascade: m.Options&1 != 0, RestartIdentity: m.Options&2 != 0}
		return h(&ev.truncate)
	}
	return protocolErr("%s inside a transaction", m.Slug())
}

// relation takes a Relation message into the cache. A description equal
// to the cached one keeps the cached Relation.
func (a *Assembler) relation(m *codec.LogicalRelation) error {
	r := &Relation{OID: m.RelationOID, Namespace: m.Namespace, Name: m.RelationName, ReplicaIdentity: byte(m.ReplicaIdentity),
		Columns: make([]Column, len(m.Columns)), decoders: make([]decoder, len(m.Columns))}
	for i, c := range m.Columns {
		if c.Flags&^1 != 0 {
			return fmt.Errorf("cdc: Relation %s.%s column %q has flags %#x; pgoutput defines only 1 (key)", m.Namespace, m.RelationName, c.Name, c.Flags)
		}
		r.Columns[i] = Column{Name: c.Name, TypeOID: c.DataType, TypeModifier: c.TypeModifier, Key: c.Flags&1 != 0}
		r.decoders[i].types = a.types
	}
	e := a.rels[r.OID]
	if e == nil {
		e = &relEntry{}
		a.rels[r.OID] = e
	}
	if e.cur == nil || !e.cur.sameAs(r) {
		e.cur = r
	}
	return nil
}

// relEntry is a relation's current description and the one the
// application last saw.
type relEntry struct{ cur, shown *Relation }

// use is the cached Relation oid, announced with a RelationChanged event
// first when the application has not seen this description of it.
func (a *Assembler) use(oid uint32, h Handler) (*Relation, error) {
	e := a.last
	if e == nil || e.cur.OID != oid {
		if e = a.rels[oid]; e == nil {
			return nil, protocolErr("a change of relation %d before its Relation message", oid)
		}
		a.last = e
	}
	if e.shown != e.cur {
		a.ev.relation = RelationChanged{Relation: e.cur, Previous: e.shown}
		e.shown = e.cur
		if err := h(&a.ev.relation); err != nil {
			return nil, err
		}
	}
	return e.cur, nil
}

// empty is the Raw of a zero-length value, which must not read as NULL.
var empty = []byte{}

// row appends the values of t, a tuple of rel, to dst.
func (a *Assembler) row(dst []Value, rel *Relation, t *codec.TupleData, what string) ([]Value, error) {
	if len(t.Columns) != len(rel.Columns) {
		return dst, fmt.Errorf("cdc: %s of %s.%s has %d columns, its Relation %d", what, rel.Namespace, rel.Name, len(t.Columns), len(rel.Columns))
	}
	// Values are written in place, field by field: appending a Value
	// built on the stack copies it whole, under a bulk write barrier while
	// the GC runs. The slices of one length let the loop go without
	// bounds checks.
	n := len(dst)
	dst = slices.Grow(dst, len(t.Columns))[:n+len(t.Columns)]
	vals := dst[n:]
	cols, decs, types := t.Columns[:len(vals)], rel.decoders[:len(vals)], rel.Columns[:len(vals)]
	for i := range vals {
		c, v := &cols[i], &vals[i]
		if d := &decs[i]; v.dec != d { // else the reused slot holds this column's value already
			v.TypeOID, v.dec = types[i].TypeOID, d
		}
		raw := c.Data // nil for 'n' and 'u'
		v.Null, v.Unchanged, v.Filled, v.Binary = false, false, false, false
		switch c.Kind {
		case 'n':
			v.Null = true
		case 'u':
			v.Unchanged = true
		case 'b':
			v.Binary = true
			fallthrough
		case 't':
			if raw == nil {
				raw = empty
			}
		} // the codec admits no other kind
		v.Raw = raw // one pointer write: each goes through the GC's write barrier while it marks
	}
	return dst, nil
}

// fill gives the unchanged TOAST values of an update's new tuple the old
// tuple's values where the old tuple has them: every column of a whole
// old row ('O'), the key columns of a key ('K').
func fill(new, old []Value, rel *Relation, oldKind byte) {
	if len(old) != len(new) {
		return
	}
	for i := range new {
		if new[i].Unchanged && !old[i].Unchanged && (oldKind == 'O' || rel.Columns[i].Key) {
			new[i].Raw, new[i].Null, new[i].Binary, new[i].Filled = old[i].Raw, old[i].Null, old[i].Binary, true
		}
	}
}
