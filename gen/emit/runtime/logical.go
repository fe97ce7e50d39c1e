//go:build ignore

package codec

//pgspec:machines logical

import "strconv"

// LogicalTracker decodes a logical stream's pgoutput messages (the WAL data
// of each XLogData) in order, following their flow (spec/flow.json):
// Begin…Commit,
// pgspec:if message:logical-begin-prepare
// Begin Prepare…Prepare,
// pgspec:end
// pgspec:if message:logical-stream-start
// Stream Start…Stop,
// pgspec:end
// the relations and types described before they are used. It reports
// what the flow does not allow as a *FlowError, the message decoded all
// the same.
// pgspec:if message:logical-stream-start
// It keeps P.Streaming's Streamed in step with Stream Start and Stream
// Stop, so that streamed messages decode with their xid.
// pgspec:end
//
// Messages are valid until the next Next. The zero value is ready once P
// is set.
type LogicalTracker struct {
	// P is the layout the next message decodes with: set Major and
	// LogicalVersion (START_REPLICATION's proto_version)
	// pgspec:if message:logical-stream-start
	// and ParallelStreaming (streaming 'parallel') before the first
	// message; the tracker sets and clears Streamed.
	// pgspec:end
	// pgspec:if no-message:logical-stream-start
	// before the first message.
	// pgspec:end
	P Params
	// Index counts the messages decoded.
	Index int64

	st           flowState
	changed      bool                // a change of the current transaction came
	relations    map[uint32]struct{} // described by a Relation
	lastRelation uint32              // of the last change, described
	types        map[uint32]struct{} // described by a Type
	streams      []uint32            // the xids Stream Start opened and nothing ended
	lg           Logical
	// was is P before the message Index counted when it was movedAt
	// changed it (Stream Start, Stream Stop): what that message was
	// decoded with. Kept on a change, not copied for every message.
	was     Params
	movedAt int64
}

// firstUserOID is FirstNormalObjectId: a column type below it is built in
// and needs no Type message before its Relation.
const firstUserOID = 16384

// Next decodes one pgoutput message with P and takes it into the flow.
func (t *LogicalTracker) Next(src []byte) (Message, error) { return t.next(src) }

func (t *LogicalTracker) next(src []byte) (Message, error) {
	// Nearly every message of a stream is an Insert, Update or Delete of a
	// relation described before, which the state allows without a change
	// (actStays): decoded without the dispatcher, taken on one bit.
	// Anything else, or a message that fails, takes the general path.
	// Insert is tested first, on its tag (the kind table's load is not
	// needed): a switch would test the tags in order of value.
	if len(src) > 0 {
		if tag := src[0]; tag == tagLogicalInsert {
			if m := &t.lg.logicalInsert; actIn(t.st, kindLogicalInsert)&actStays != 0 && m.Decode(src, t.P) == nil && t.described(m.RelationOID) == "" {
				t.Index++
				return m, nil
			}
		} else if tag == tagLogicalUpdate {
			if m := &t.lg.logicalUpdate; actIn(t.st, kindLogicalUpdate)&actStays != 0 && m.Decode(src, t.P) == nil && t.described(m.RelationOID) == "" {
				t.Index++
				return m, nil
			}
		} else if tag == tagLogicalDelete {
			if m := &t.lg.logicalDelete; actIn(t.st, kindLogicalDelete)&actStays != 0 && m.Decode(src, t.P) == nil && t.described(m.RelationOID) == "" {
				t.Index++
				return m, nil
			}
		}
	}
	m, err := t.lg.Decode(src, t.P)
	if err != nil {
		t.movedAt = 0 // decoded() is P: this message did not change it
		return nil, err
	}
	t.Index++
	if t.st == 0 { // the zero value: between transactions
		t.st = stLogicalBetween
	}
	// A rule that needs no more than its act (actRule clear: it requires
	// nothing, streams nothing and holds in every major the message
	// decodes in) is taken on it, as the fast path does, without a lookup.
	k := kindsLogical[src[0]]
	r, a := &plainRule, actIn(t.st, k)
	if a&actRule != 0 || a == 0 {
		if r = flowLookup(t.st, k, t.P.Major); r == nil {
			return m, flowViolation(t.st, k, t.P.Major, 0, t.Index-1)
		}
		a = r.act
	}
	if detail := t.check(r, k, m); detail != "" {
		e := flowViolation(t.st, k, t.P.Major, 0, t.Index-1)
		e.Detail = detail
		return m, e
	}
	if a&actMoves != 0 {
		t.st = flowState(a)
		t.changed = false
		t.was, t.movedAt = t.P, t.Index
		if flowStreamed[t.st] {
			t.P.Streaming |= Streamed
		} else {
			t.P.Streaming &^= Streamed
		}
	}
	return m, nil
}

// plainRule is what check is given for a message taken on its act: a rule
// that requires nothing and streams nothing.
var plainRule flowRule

// check applies what the rule requires of what came before, and notes what
// the message describes or opens. It returns what was missing. It switches
// on the kind: an integer switch costs less per message than one on the
// message's type.
func (t *LogicalTracker) check(r *flowRule, k flowKind, m Message) string {
	switch k {
	case kindLogicalInsert:
		return t.described(m.(*LogicalInsert).RelationOID)
	case kindLogicalUpdate:
		return t.described(m.(*LogicalUpdate).RelationOID)
	case kindLogicalDelete:
		return t.described(m.(*LogicalDelete).RelationOID)
	case kindLogicalRelation:
		m := m.(*LogicalRelation)
		if t.relations == nil {
			t.relations = map[uint32]struct{}{}
		}
		t.relations[m.RelationOID] = struct{}{}
		if r.requires == requiresTypes {
			// Most columns are of a built-in type: tested before the map,
			// which is looked up only for the others.
			for _, c := range m.Columns {
				if c.DataType < firstUserOID {
					continue
				}
				if _, ok := t.types[c.DataType]; !ok {
					return "column " + strconv.Quote(c.Name) + " has type " + strconv.FormatUint(uint64(c.DataType), 10) + ", not built in, and no Type message before it"
				}
			}
		}
	case kindLogicalType:
		if t.types == nil {
			t.types = map[uint32]struct{}{}
		}
		t.types[m.(*LogicalType).DataType] = struct{}{}
	// pgspec:if message:logical-truncate
	case kindLogicalTruncate:
		for _, oid := range m.(*LogicalTruncate).RelationOIDs {
			if d := t.described(oid); d != "" {
				return d
			}
		}
	// pgspec:end
	case kindLogicalOrigin:
		if r.requires == requiresNoChangeYet && t.changed {
			return "the Origin message comes after a change of the transaction; it is always sent before any DML messages"
		}
	// pgspec:if message:logical-stream-start
	case kindLogicalStreamStart:
		if xid := m.(*LogicalStreamStart).Xid; r.streamed == streamOpen && !t.streaming(xid) {
			t.streams = append(t.streams, xid)
		}
	// pgspec:end
	// pgspec:if message:logical-stream-commit
	case kindLogicalStreamCommit:
		return t.endStream(m.(*LogicalStreamCommit).Xid, true)
	// pgspec:end
	// pgspec:if message:logical-stream-prepare
	case kindLogicalStreamPrepare:
		return t.endStream(m.(*LogicalStreamPrepare).Xid, true)
	// pgspec:end
	// pgspec:if message:logical-stream-abort
	case kindLogicalStreamAbort:
		m := m.(*LogicalStreamAbort)
		return t.endStream(m.Xid, m.SubXid == m.Xid) // a subtransaction's abort leaves the transaction open
		// pgspec:end
	}
	return ""
}

// decoded is the layout the last message was decoded with (or failed to
// decode with): P, unless that message changed it.
func (t *LogicalTracker) decoded() Params {
	if t.movedAt == t.Index && t.movedAt != 0 {
		return t.was
	}
	return t.P
}

// release lets go of the decoded messages kept for reuse.
func (t *LogicalTracker) release() { t.lg = Logical{} }

// reset starts a new stream decoded with p, keeping what the tracker grew.
func (t *LogicalTracker) reset(p Params) {
	if len(t.relations) != 0 { // most conversations reset it without a stream
		clear(t.relations)
	}
	if len(t.types) != 0 {
		clear(t.types)
	}
	t.lastRelation = 0
	t.P, t.Index, t.st, t.changed, t.streams, t.movedAt = p, 0, 0, false, t.streams[:0], 0
}

// described notes a change of relation oid; what is missing is its Relation.
// The relation of the last change is looked up without the map: a stream's
// changes mostly come in runs of one table.
func (t *LogicalTracker) described(oid uint32) string {
	t.changed = true
	if oid == t.lastRelation && oid != 0 {
		return ""
	}
	return t.relation(oid)
}

// relation is described for a relation other than the last change's.
func (t *LogicalTracker) relation(oid uint32) string {
	if _, ok := t.relations[oid]; !ok {
		return "relation " + strconv.FormatUint(uint64(oid), 10) + " has no Relation message before it"
	}
	t.lastRelation = oid
	return ""
}

func (t *LogicalTracker) streaming(xid uint32) bool {
	for _, x := range t.streams {
		if x == xid {
			return true
		}
	}
	return false
}

// endStream ends (when closing) the streamed transaction xid; it must
// have been opened by a Stream Start.
func (t *LogicalTracker) endStream(xid uint32, closing bool) string {
	for i, x := range t.streams {
		if x == xid {
			if closing {
				t.streams = append(t.streams[:i], t.streams[i+1:]...)
			}
			return ""
		}
	}
	return "transaction " + strconv.FormatUint(uint64(xid), 10) + " was never streamed: no Stream Start opened it"
}
