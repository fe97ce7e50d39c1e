//go:build ignore

package codec

// Params selects the wire layout a message is encoded and decoded with.
type Params struct {
	// Major is the PostgreSQL major version, one of GeneratedMajors; 0 means
	// DefaultMajor, the newest released one.
	Major int
	// ProtocolMinor is the frontend/backend protocol's minor version: 0 for
	// pgspec:if protocol-3.2
	// 3.0, 2 for 3.2. It decides BackendKeyData's cancel key length (4 bytes
	// under 3.0).
	// pgspec:end
	// pgspec:if no-protocol-3.2
	// 3.0. No layout of the majors generated depends on it.
	// pgspec:end
	ProtocolMinor int
	// LogicalVersion is pgoutput's proto_version (spec/logicalversions.json
	// lists them); 0 means 1. Fields the manual says are "available since
	// protocol version N" are present only from N on, whatever Streaming says.
	LogicalVersion int
	// Streaming is pgoutput's streaming state: Streamed, ParallelStreaming,
	// both or neither.
	Streaming Streaming
}

// Streaming is a set of pgoutput streaming states. They share one field so
// that Params has four: the compiler then passes it in registers, where a
// fifth field would make every Decode and Encode store it on the stack.
type Streaming uint8

const (
	// Streamed is set inside a streamed transaction (protocol version 2
	// and later, PostgreSQL 14 on): pgoutput messages then carry the
	// transaction's xid.
	// pgspec:if message:logical-stream-start
	// Stream Start begins one and Stream Stop ends it.
	// pgspec:end
	Streamed Streaming = 1 << iota
	// ParallelStreaming is set when streaming = parallel (protocol version
	// 4, PostgreSQL 16 on).
	// pgspec:if message:logical-stream-abort
	// Stream Abort then carries the abort LSN and timestamp.
	// pgspec:end
	ParallelStreaming
)

// major is the major the layout is chosen by.
func (p Params) major() int {
	if p.Major == 0 {
		return DefaultMajor
	}
	return p.Major
}

// MajorSet is a set of PostgreSQL majors, one bit per major.
type MajorSet uint64

// Has reports whether major is in the set; 0 means DefaultMajor.
func (s MajorSet) Has(major int) bool {
	// Bit 0 stands for 0 when the set has DefaultMajor: with s a constant
	// at the caller, one bound test and one bit test, which a major in the
	// set passes without a taken branch; a negative major is a large uint.
	return uint(major) < 64 && (s|s>>DefaultMajor&1)>>uint(major)&1 != 0
}

// Majors lists the set's majors in increasing order.
func (s MajorSet) Majors() []int {
	var out []int
	for m := 0; m < 64; m++ {
		if s&(1<<m) != 0 {
			out = append(out, m)
		}
	}
	return out
}

// Message is what every generated message type implements.
type Message interface {
	// Encode appends the message's bytes to dst, the length back-patched:
	// a frontend/backend message whole (tag and length; the untagged
	// startup-phase ones from their length), a pgoutput or streaming
	// replication message as the CopyData payload, from its tag byte.
	Encode(dst []byte, p Params) ([]byte, error)
	// Decode replaces the message's fields with those read from src, which
	// must hold exactly the bytes Encode writes. Strings are copies;
	// []byte fields point into src.
	Decode(src []byte, p Params) error
	// Slug is the message's stable identity in the spec, e.g. "bind".
	Slug() string
	// Majors is the set of PostgreSQL majors whose manual documents the
	// message, of those the codec was generated for.
	Majors() MajorSet
	// Descriptor describes the message type and its fields.
	Descriptor() *MessageDescriptor
}
