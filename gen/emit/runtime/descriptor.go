//go:build ignore

package codec

import "reflect"

// MessageDescriptor is what the spec says about a message type, or about
// the element type of a repeated group, as generated data: a tool prints,
// converts or checks any message from it with no table of its own. A
// message's is returned by its Descriptor method.
type MessageDescriptor struct {
	// Name is the Go type's name; Slug the message's identity in the spec
	// ("" for a group's element).
	Name, Slug string
	Layer      Layer
	// Direction is who sends the message; 0 for pgoutput messages and
	// group elements.
	Direction Direction
	// Tag is the message's first byte; 0 when it has none.
	Tag    byte
	Majors MajorSet
	// SinceLogical is the pgoutput protocol version that brought the
	// message; 0 when it came with version 1.
	SinceLogical int
	// Fields describe the Go struct's fields, Fields[i] its field i.
	Fields []FieldDescriptor
}

// FieldDescriptor is what the spec says about one field.
type FieldDescriptor struct {
	// Name is the Go field's name.
	Name string
	// Format is the manual's format of the field in the newest major that
	// has it ("Int64 (XLogRecPtr)", "Byte1('K') or Byte1('O')"); "" for a
	// repeated group of several fields. Wire is how that major carries it.
	Format  string
	Wire    Wire
	Meaning Meaning
	// Secret marks what PostgreSQL never logs: passwords, SASL and
	// GSSAPI/SSPI data, cancel keys.
	Secret bool
	// Carries is the layer whose message the field holds when its stream
	// carries one (CopyData's Data in a replication stream, XLogData's
	// WALData in a logical one); 0 for any other field, and where the
	// package was generated without that layer's messages: to it the bytes
	// are opaque.
	Carries Layer
	// Majors are the majors whose layout has the field.
	Majors MajorSet
	// Streaming are the streaming states the field needs, all of them;
	// SinceLogical the pgoutput protocol version it needs as well.
	Streaming    Streaming
	SinceLogical int
	// When, if not nil, puts the field on the wire only for some values of
	// another field of the same struct.
	When *Presence
	// Optional marks a choice that may be absent: 0 when no tag is sent.
	Optional bool
	// Elem describes the message part (Wire == WirePart) or the group's
	// element struct (Wire == WireGroup with struct elements).
	Elem *MessageDescriptor
}

// Presence makes a field depend on a choice field's value: Fields[Field]
// holds one of Tags, or anything but 0 when Tags is "".
type Presence struct {
	Field int
	Tags  string
}

// Present reports whether the field is on the wire with p, whatever the
// values of other fields (see When): its major, streaming state and pgoutput
// protocol version.
func (f *FieldDescriptor) Present(p Params) bool {
	return f.Majors.Has(p.Major) && p.Streaming&f.Streaming == f.Streaming &&
		(f.SinceLogical == 0 || p.LogicalVersion >= f.SinceLogical)
}

// Holds reports whether choice, the value of the field When names, puts
// the field on the wire; true when the field has no When.
func (f *FieldDescriptor) Holds(choice byte) bool {
	if f.When == nil {
		return true
	}
	if f.When.Tags == "" {
		return choice != 0
	}
	for i := 0; i < len(f.When.Tags); i++ {
		if f.When.Tags[i] == choice {
			return true
		}
	}
	return false
}

// OnWire reports whether field i of v, a message or group element that d
// describes, is on the wire with p: Present, and sent for the values v holds
// (When, Optional).
func (d *MessageDescriptor) OnWire(v reflect.Value, i int, p Params) bool {
	f := &d.Fields[i]
	switch {
	case !f.Present(p):
		return false
	case f.When != nil && !f.Holds(byte(v.Field(f.When.Field).Uint())):
		return false
	}
	return !f.Optional || v.Field(i).Uint() != 0
}

// Payload returns the index of the field that holds the next layer's
// message (the one that Carries a layer), -1 when no field does.
func (d *MessageDescriptor) Payload() int {
	for i := range d.Fields {
		if d.Fields[i].Carries != 0 {
			return i
		}
	}
	return -1
}

// Field returns the descriptor of the field named name, or nil.
func (d *MessageDescriptor) Field(name string) *FieldDescriptor {
	for i := range d.Fields {
		if d.Fields[i].Name == name {
			return &d.Fields[i]
		}
	}
	return nil
}

// Layer is where a message travels.
type Layer uint8

// Layers of the protocol.
const (
	LayerFrontendBackend      Layer = iota + 1 // frontend/backend messages
	LayerLogicalReplication                    // pgoutput messages, in XLogData
	LayerStreamingReplication                  // replication sub-messages, in CopyData
)

// Direction says who sends a message; a message both send has both bits.
type Direction uint8

// Directions, combined with |.
const (
	FromFrontend Direction = 1 << iota
	FromBackend
)

// Wire is how a field is carried.
type Wire uint8

// Wire types of a field.
const (
	WireInt    Wire = iota + 1 // IntN, big-endian
	WireByte                   // Byte1
	WireChoice                 // Byte1('a') or Byte1('b') …: the tag sent
	WireString                 // a zero-terminated String
	WireBytesN                 // ByteN of a fixed width
	WireRaw                    // an IntN carried as its N bytes
	WireRest                   // Byten to the end of the message
	WireBytes                  // Int32 length, then Byten (-1: NULL, where allowed)
	WirePart                   // a message part, such as TupleData
	WireGroup                  // repeated values or elements
)

// Meaning is what an integer field (or the elements of a slice of them)
// stands for beyond its width.
type Meaning uint8

// Meanings of an integer field; MeaningNone is a number only.
const (
	MeaningNone      Meaning = iota
	MeaningLSN               // XLogRecPtr: a WAL position, printed X/X
	MeaningTimestamp         // TimestampTz: microseconds since 2000-01-01 UTC
	MeaningOID               // Oid
	MeaningXid               // TransactionId
	MeaningFullXid           // a 64-bit transaction id: epoch, then xid
)
