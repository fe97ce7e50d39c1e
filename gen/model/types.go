package model

import (
	"strconv"

	"github.com/pgspec/pgspec/spec"
)

// Op says what the wire carries at one step of a layout.
type Op uint8

// Ops of a layout item.
const (
	OpTag    Op = iota + 1 // the message's leading Byte1('x')
	OpLength               // Int32 length of the message contents, including self
	OpFixed                // an IntN(v) or Byte1('x') whose value the manual fixes
	OpCount                // the count of the group named by Field
	OpInt                  // an IntN field
	OpByte                 // a Byte1 field
	OpChoice               // Byte1('a') or Byte1('b') or …: one byte field holding the tag
	OpString               // a zero-terminated String
	OpBytesN               // ByteN of a fixed width: [N]byte
	OpRaw                  // an IntN carried as its N raw bytes: []byte
	OpRest                 // Byten running to the end of the message
	OpBytes                // Int32 length then Byten
	OpPart                 // a message part (TupleData) documented on its own
	OpGroup                // repeated elements: IntN[C], a repeated field or a group of rows
)

var opNames = [...]string{
	OpTag: "tag", OpLength: "length", OpFixed: "fixed", OpCount: "count", OpInt: "int",
	OpByte: "byte", OpChoice: "choice", OpString: "string", OpBytesN: "bytesN", OpRaw: "raw",
	OpRest: "rest", OpBytes: "bytes", OpPart: "part", OpGroup: "group",
}

// String is the op's name in a layout's canonical rendering.
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Gate is the streaming state a field needs to be on the wire: pgoutput
// sends some fields only inside a streamed transaction, or only to a
// parallel apply worker, which the bytes themselves cannot tell.
type Gate uint8

// Gates of a field.
const (
	NoGate       Gate = iota
	GateStreamed      // inside a streamed transaction (Params.Streamed)
	GateParallel      // with parallel streaming (Params.ParallelStreaming)
)

// String is the gate's name in a layout's canonical rendering and in the
// overlay ("streamed", "parallel").
func (g Gate) String() string {
	switch g {
	case GateStreamed:
		return "streamed"
	case GateParallel:
		return "parallel"
	}
	return ""
}

// ParseGate reads a gate's name.
func ParseGate(s string) (Gate, bool) {
	for _, g := range []Gate{NoGate, GateStreamed, GateParallel} {
		if g.String() == s {
			return g, true
		}
	}
	return NoGate, false
}

// Cond is what puts an item on the wire. The zero Cond is "always".
type Cond struct {
	// Gate is the streaming state the item needs.
	Gate Gate
	// SinceLogical is the pgoutput protocol version the item needs as well.
	SinceLogical int
	// When makes the item depend on a choice field's value.
	When *When
}

// Always reports whether the item is always on the wire.
func (c Cond) Always() bool { return c.Gate == NoGate && c.SinceLogical == 0 && c.When == nil }

// Equal reports whether two conditions put items on the wire together.
func (c Cond) Equal(d Cond) bool {
	if c.Gate != d.Gate || c.SinceLogical != d.SinceLogical || (c.When == nil) != (d.When == nil) {
		return false
	}
	return c.When == nil || c.When.Field == d.When.Field && string(c.When.Tags) == string(d.When.Tags)
}

// When makes an item present only when a choice field holds one of Tags,
// or any non-zero value when Tags is empty.
type When struct {
	// Field is Choice's Go field.
	Field  string
	Tags   []byte
	Choice *Item
}

// Meaning is what an integer field stands for beyond its width, for tools
// that print or check values: a WAL position, a time, an OID, a transaction
// id. MeaningPlain is a decision that it is a number only.
type Meaning uint8

// Meanings of an integer field.
const (
	MeaningNone      Meaning = iota
	MeaningLSN               // XLogRecPtr: a WAL position
	MeaningTimestamp         // TimestampTz: microseconds since 2000-01-01 UTC
	MeaningOID               // Oid
	MeaningXid               // TransactionId
	MeaningFullXid           // a 64-bit transaction id: epoch and xid
	MeaningPlain             // a number only (decided where the width asks)
)

// Kind is the kind of a Go type the generated code declares.
type Kind uint8

// Kinds of Go types.
const (
	KindInt    Kind = iota + 1 // intN, N = Bits
	KindUint                   // uintN, N = Bits
	KindByte                   // byte
	KindString                 // string
	KindBytes                  // []byte
	KindArray                  // [Len]byte
	KindSlice                  // []Elem
	KindStruct                 // a group's element struct, Name
	KindPart                   // a message part's type, Name
)

// GoType is the Go type of a field.
type GoType struct {
	Kind Kind
	// Bits of KindInt and KindUint.
	Bits int
	// Len of KindArray.
	Len int
	// Elem of KindSlice.
	Elem *GoType
	// Name of KindStruct and KindPart.
	Name string
}

// Int is the signed integer type of width bytes; Uint the unsigned one.
func Int(width int) GoType  { return GoType{Kind: KindInt, Bits: 8 * width} }
func Uint(width int) GoType { return GoType{Kind: KindUint, Bits: 8 * width} }

// SliceOf is []t.
func SliceOf(t GoType) GoType { return GoType{Kind: KindSlice, Elem: &t} }

// Simple Go types.
var (
	Byte   = GoType{Kind: KindByte}
	String = GoType{Kind: KindString}
	Bytes  = GoType{Kind: KindBytes}
)

// String is the type in Go syntax.
func (t GoType) String() string {
	switch t.Kind {
	case KindInt:
		return "int" + strconv.Itoa(t.Bits)
	case KindUint:
		return "uint" + strconv.Itoa(t.Bits)
	case KindByte:
		return "byte"
	case KindString:
		return "string"
	case KindBytes:
		return "[]byte"
	case KindArray:
		return "[" + strconv.Itoa(t.Len) + "]byte"
	case KindSlice:
		return "[]" + t.Elem.String()
	}
	return t.Name
}

// Equal reports whether t and u are the same Go type.
func (t GoType) Equal(u GoType) bool {
	if t.Kind != u.Kind || t.Bits != u.Bits || t.Len != u.Len || t.Name != u.Name {
		return false
	}
	return t.Elem == nil || t.Elem.Equal(*u.Elem)
}

// Unsigned reports whether values of t go on the wire as they are: the
// unsigned integers and byte.
func (t GoType) Unsigned() bool { return t.Kind == KindUint || t.Kind == KindByte }

// parseIntType reads an overlay's integer type name ("uint32").
func parseIntType(s string) (GoType, bool) {
	for _, w := range []int{1, 2, 4, 8} {
		for _, t := range []GoType{Int(w), Uint(w)} {
			if t.String() == s {
				return t, true
			}
		}
	}
	return GoType{}, false
}

// Choice is an OpChoice: one byte holding one of Tags, each a row of the
// manual, or 0 when Optional and none is present.
type Choice struct {
	Tags         []byte
	Optional     bool
	Alternatives []*spec.Row
}

// Direction says who sends a message: the frontend, the backend or both.
// Logical replication messages have none.
type Direction uint8

// Directions, combined with |.
const (
	FromFrontend Direction = 1 << iota
	FromBackend
)

// String is the manual's notation: "F", "B" or "F & B".
func (d Direction) String() string {
	switch d {
	case FromFrontend:
		return "F"
	case FromBackend:
		return "B"
	case FromFrontend | FromBackend:
		return "F & B"
	}
	return ""
}

// parseDirection reads the manual's notation.
func parseDirection(s string) (Direction, bool) {
	for _, d := range []Direction{0, FromFrontend, FromBackend, FromFrontend | FromBackend} {
		if d.String() == s {
			return d, true
		}
	}
	return 0, false
}
