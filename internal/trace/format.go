package trace

import (
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// DefaultMaxValue is how many bytes of one value a line shows by default.
const DefaultMaxValue = 256

// style is how lines are written: text for people, JSON lines for tools
// (the schema is in README.md, "pgtrace output").
type style struct {
	json        bool
	showSecrets bool
	maxValue    int // bytes of one value shown; longer ones are cut
}

// formatter renders the messages of one direction. It is used by one
// goroutine only, so its cache needs no lock.
type formatter struct {
	style
	names     map[nameKey]named // message names and layouts by type and major
	bodies    map[uint64]*body  // rendered messages of small frames, by hash (appendLine)
	seen      []uint64          // hashes of small frames seen once and not kept in bodies (seenBefore)
	seenTaken int               // frames put in seen since it last grew
	kept      *body             // what the last line was printed from or kept as; nil: neither
	recent    [8]*body          // of bodies, the last used of each tag and length hashed (appendLine)
	seed      maphash.Seed
	second    int64  // the Unix second seconds holds
	seconds   []byte // "2006-01-02T15:04:05" of second
	// The last line's header (appendHeader): its time (a read's messages
	// all bear the read's), session, direction and offset, and where in
	// head the time's and the offset's text begin.
	headAt         time.Time
	headID         int64
	headDir        Direction
	offAt          int64
	head           []byte
	timeAt, offsAt int
}

// appendLine renders a message chain as one line. Text:
//
//	2026-11-30T13:20:01.123456Z #3 B @1234 CopyData > XLogData WALStart=0/16B3740 … > LogicalInsert RelationOID=16390 …
//
// JSON:
//
//	{"time":"2026-11-30T13:20:01.123456Z","session":3,"dir":"B","offset":1234,"messages":[{"name":"CopyData","slug":"copy-data"},…]}
//
// Each message is named as the server's major names it; the payload field
// that holds the next layer is not printed (the next layer is), nor is any
// field that is not on the wire.
//
// frame is what chain was decoded from: a small frame seen before with the
// same layer types and params prints what it printed then (a pure function
// of those), rendered once. A frame is kept the second time it comes (most
// frames that carry a value never come again: a Bind of a random key); frames
// that carry a secret are not kept; a nil frame is not looked up.
func (f *formatter) appendLine(b []byte, at time.Time, id int64, d Direction, off int64, chain []Layer, frame []byte) []byte {
	f.kept = nil
	b = f.appendHeader(b, at, id, d, off)
	if len(frame) == 0 || len(frame) > maxCachedFrame {
		return f.appendEnd(f.appendMessages(b, chain))
	}
	// The few frames that make most of a workload's lines are found by
	// their tag and length before the map is asked.
	slot := &f.recent[(int(frame[0])^len(frame))%len(f.recent)]
	e := *slot
	var h uint64 // the frame's hash, once needed: bodies and seen share it
	if e == nil || e.frame != string(frame) {
		h = f.hash(frame)
		if e = f.bodies[h]; e != nil && e.frame != string(frame) {
			e = nil // another frame of the same hash, which this one replaces
		}
		if e != nil {
			*slot = e
		}
	}
	if e != nil && e.matches(chain) { // a frame kept has no secret: its types say so
		f.kept = e
		return f.appendEnd(append(b, e.text...))
	}
	if hasSecret(chain) {
		return f.appendEnd(f.appendMessages(b, chain))
	}
	mark := len(b)
	b = f.appendMessages(b, chain)
	if e == nil {
		if !f.seenBefore(h) {
			return f.appendEnd(b)
		}
		if len(f.bodies) >= maxCachedBodies {
			clear(f.bodies)
			clear(f.recent[:])
		}
		if f.bodies == nil {
			f.bodies = map[uint64]*body{}
		}
		e = &body{frame: string(frame)}
		f.bodies[h] = e
	}
	e.set(chain, b[mark:])
	f.kept = e
	return f.appendEnd(b)
}

// hash is frame's hash for bodies and seen, never 0.
func (f *formatter) hash(frame []byte) uint64 {
	if f.seen == nil {
		f.seen, f.seed = make([]uint64, 16), maphash.MakeSeed()
	}
	return maphash.Bytes(f.seed, frame) | 1 // 0 is an empty place in seen
}

// seenBefore reports whether the frame of hash h came before, as far as
// seen tells, and remembers it otherwise. seen holds frames' hashes where
// their low bits say, one each: a frame whose place another took since
// counts as new once more, and is kept at its next coming instead. It
// starts small (an idle session's few frames) and doubles, forgetting,
// each time it took as many frames as it has places, up to
// maxCachedBodies.
func (f *formatter) seenBefore(h uint64) bool {
	at := &f.seen[h&uint64(len(f.seen)-1)]
	if *at == h {
		*at = 0
		return true
	}
	if f.seenTaken++; f.seenTaken > len(f.seen) && len(f.seen) < maxCachedBodies {
		f.seen, f.seenTaken = make([]uint64, 2*len(f.seen)), 0
		at = &f.seen[h&uint64(len(f.seen)-1)]
	}
	*at = h
	return false
}

// The rendering cache holds frames of up to maxCachedFrame bytes, and is
// emptied when it holds maxCachedBodies of them.
const (
	maxCachedFrame  = 256
	maxCachedBodies = 4096
)

// body is the rendering of a frame's messages, with what decided it.
type body struct {
	frame  string // its key in bodies
	n      int
	types  [3]reflect.Type
	params [3]codec.Params
	text   []byte
	// identical: the messages re-encoded to the frame. Decoding, and so
	// re-encoding, is a function of the frame, the types and the params
	// too: a frame that matches need not be re-encoded again (examine).
	identical bool
	counts    [3]typeCounters // of the types, once counted (examiner.count)
}

func (e *body) matches(chain []Layer) bool {
	if len(chain) != e.n {
		return false
	}
	for i := range chain {
		l := &chain[i]
		if reflect.TypeOf(l.Msg) != e.types[i] || l.Params != e.params[i] {
			return false
		}
	}
	return true
}

func (e *body) set(chain []Layer, text []byte) {
	e.n, e.identical, e.counts = len(chain), false, [3]typeCounters{}
	for i := range chain {
		e.types[i], e.params[i] = reflect.TypeOf(chain[i].Msg), chain[i].Params
	}
	e.text = append(e.text[:0], text...)
}

// appendHeader writes a line's header, up to its messages. From one line
// of a direction to the next the session and direction stay, the time
// changes once per read and the offset grows by the last message's length:
// head, the last line's header, is changed where it differs (the time's
// digits written over, the length added to the offset's digits) rather
// than written anew.
func (f *formatter) appendHeader(b []byte, at time.Time, id int64, d Direction, off int64) []byte {
	switch {
	case f.head == nil || id != f.headID || d != f.headDir:
		f.newHead(at, id, d, off)
	case at != f.headAt:
		if !f.setTime(at) {
			f.newHead(at, id, d, off)
		}
		f.headAt = at
	}
	if delta := off - f.offAt; delta != 0 {
		f.addOffset(off, delta)
	}
	b = append(b, f.head...)
	if f.json {
		return append(b, `,"messages":[`...)
	}
	return b
}

// timeWidth is the length of appendTime's text, but past year 9999.
const timeWidth = len("2006-01-02T15:04:05.000000Z")

// setTime writes at over the time in head, only its microseconds when the
// second is the same; false when the text does not fit the place.
func (f *formatter) setTime(at time.Time) bool {
	switch {
	case f.timeAt < 0:
		return false
	case at.Unix() == f.headAt.Unix():
		appendMicros(f.head[:f.timeAt+timeWidth-len(".000000Z")], at)
		return true
	}
	return len(f.appendTime(f.head[:f.timeAt], at)) == f.timeAt+timeWidth
}

// newHead writes the header of a line of session id, direction d, at
// offset off, into head.
func (f *formatter) newHead(at time.Time, id int64, d Direction, off int64) {
	b := f.head[:0]
	if f.json {
		b = append(b, `{"time":"`...)
	}
	f.timeAt = len(b)
	if b = f.appendTime(b, at); len(b) != f.timeAt+timeWidth {
		f.timeAt = -1 // not to be written over
	}
	if f.json {
		b = append(b, `","session":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `,"dir":"`...)
		b = append(b, d.String()...)
		b = append(b, `","offset":`...)
	} else {
		b = append(b, " #"...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ' ')
		b = append(b, d.String()...)
		b = append(b, " @"...)
	}
	f.offsAt = len(b)
	f.head = strconv.AppendInt(b, off, 10)
	f.headAt, f.headID, f.headDir, f.offAt = at, id, d, off
}

// addOffset puts off, delta more than the offset head shows, in its place.
// A direction's offsets only grow, each by the last message's length:
// adding that to the digits costs less than formatting anew.
func (f *formatter) addOffset(off, delta int64) {
	f.offAt = off
	if delta < 0 || delta > 1<<20 {
		f.head = strconv.AppendInt(f.head[:f.offsAt], off, 10)
		return
	}
	d := f.head
	for i, add := len(d)-1, uint64(delta); add > 0; i-- {
		if i < f.offsAt { // one more digit
			d = append(d, 0)
			copy(d[f.offsAt+1:], d[f.offsAt:])
			d[f.offsAt], i = '0', f.offsAt
		}
		v := uint64(d[i]-'0') + add
		d[i], add = byte('0'+v%10), v/10
	}
	f.head = d
}

func (f *formatter) appendEnd(b []byte) []byte {
	if f.json {
		b = append(b, ']', '}')
	}
	return append(b, '\n')
}

// appendMessages renders the chain's messages, outermost first, from their
// descriptors: only the fields on the wire, secrets redacted. A JSON
// message is the codec's JSON (codec.AppendJSON) after pgtrace's name, slug
// and params.
func (f *formatter) appendMessages(b []byte, chain []Layer) []byte {
	for i, l := range chain {
		shown := i < len(chain)-1 // the next message shows l's payload
		if !f.json {
			if i > 0 {
				b = append(b, " >"...)
			}
			b = append(b, ' ')
			n := f.named(l.Msg, l.Params.Major)
			b = append(b, n.name...)
			b = f.appendFields(b, n.layout, reflect.ValueOf(l.Msg).UnsafePointer(), l.Params, shown)
			b = f.appendQueryCommand(b, l)
			continue
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"`...) // names and slugs need no escaping
		b = append(b, f.named(l.Msg, l.Params.Major).name...)
		b = append(b, `","slug":"`...)
		b = append(b, l.Msg.Slug()...)
		b = append(b, `","params":`...)
		b = appendParams(b, l.Params)
		mark := len(b)
		o := codec.JSONOptions{Redact: !f.showSecrets, OmitPayload: shown}
		if f.maxValue > 0 {
			o.MaxValue, o.MaxElements = f.maxValue, maxElements
		}
		b = codec.AppendJSON(b, l.Msg, l.Params, o)
		if len(b) == mark+2 { // {}
			b = b[:mark]
		} else {
			b[mark] = ','
			b = b[:len(b)-1]
		}
		b = append(b, '}')
	}
	return b
}

// appendQueryCommand adds a Query's replication command, typed.
func (f *formatter) appendQueryCommand(b []byte, l Layer) []byte {
	if q, ok := l.Msg.(*codec.Query); ok {
		if cmd := replicationCommand(q.String, l.Params); cmd != nil {
			b = f.appendCommand(b, cmd)
		}
	}
	return b
}

// appendParams writes a message's Params as a line's "params" object: the
// major always, the rest when set.
func appendParams(b []byte, p codec.Params) []byte {
	b = append(b, `{"major":`...)
	b = strconv.AppendInt(b, int64(p.Major), 10)
	for _, kv := range [...]struct {
		key string
		v   int
	}{{"protocol_minor", p.ProtocolMinor}, {"logical_version", p.LogicalVersion}, {"streaming", int(p.Streaming)}} {
		if kv.v != 0 {
			b = append(b, `,"`...)
			b = append(b, kv.key...)
			b = append(b, `":`...)
			b = strconv.AppendInt(b, int64(kv.v), 10)
		}
	}
	return append(b, '}')
}

// appendTime writes t in RFC 3339, UTC, to the microsecond. The date and
// time to the second are formatted once per second.
func (f *formatter) appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	if sec := t.Unix(); sec != f.second || f.seconds == nil {
		f.second, f.seconds = sec, t.AppendFormat(f.seconds[:0], "2006-01-02T15:04:05")
	}
	return appendMicros(append(b, f.seconds...), t)
}

// appendMicros writes the fraction of t's second, to the microsecond, and
// the Z of UTC.
func appendMicros(b []byte, t time.Time) []byte {
	us := t.Nanosecond() / 1000
	return append(b, '.', byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
		byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10), 'Z')
}

// hasSecret reports whether a message of the chain may carry a secret.
func hasSecret(chain []Layer) bool {
	for i := range chain {
		d := chain[i].Msg.Descriptor()
		for i := range d.Fields {
			if d.Fields[i].Secret {
				return true
			}
		}
	}
	return false
}

// named is what the major calls m, and how its fields are printed, found
// once per type and major.
func (f *formatter) named(m codec.Message, major int) named {
	key := nameKey{m.Descriptor(), major}
	n, ok := f.names[key]
	if !ok {
		n = named{messageName(m, major), layoutOf(reflect.TypeOf(m).Elem(), key.d)}
		if f.names == nil {
			f.names = map[nameKey]named{}
		}
		f.names[key] = n
	}
	return n
}

type named struct {
	name   string
	layout *layout
}

type nameKey struct {
	d     *codec.MessageDescriptor
	major int
}

// maxElements bounds the elements of one repeated field a line shows (a
// DataRow's values, a RowDescription's columns …), as maxValue bounds the
// bytes of one value.
const maxElements = 64

// formatMicros is a TimestampTz in RFC 3339, UTC.
func formatMicros(us int64) string {
	switch us {
	case session.MicrosInfinity:
		return "infinity"
	case session.MicrosNegativeInfinity:
		return "-infinity"
	}
	return session.TimeFromMicros(us).Format(time.RFC3339Nano)
}

// appendBytes writes a string or byte value, cut at maxValue bytes (when
// positive): quoted with Go escapes when it reads as text (isString:
// always), else 0x and hex; a cut value ends in …(N bytes).
func (f *formatter) appendBytes(b, data []byte, isString bool) []byte {
	shown := data
	if f.maxValue > 0 && len(data) > f.maxValue {
		cut := f.maxValue
		for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(data[cut]); back++ {
			cut-- // do not cut a character in two
		}
		shown = data[:cut]
	}
	if plain := plainText(shown); plain || isString || readsAsText(shown) { // plain text reads as text, and costs less to tell
		b = appendQuoted(b, shown, plain)
	} else {
		b = append(b, "0x"...)
		b = hex.AppendEncode(b, shown)
	}
	if len(shown) < len(data) {
		b = append(b, "…("...)
		b = strconv.AppendInt(b, int64(len(data)), 10)
		b = append(b, " bytes)"...)
	}
	return b
}

// appendQuoted is strconv.AppendQuote of data, without its per-rune work
// when data is plain, printable ASCII with nothing to escape (plainText:
// SQL text, names, command tags, most values a trace shows).
func appendQuoted(b, data []byte, plain bool) []byte {
	if !plain {
		return strconv.AppendQuote(b, unsafe.String(unsafe.SliceData(data), len(data))) // read only
	}
	b = append(b, '"')
	b = append(b, data...)
	return append(b, '"')
}

// plainText reports whether every byte of data is printable ASCII other
// than " and \, eight bytes at a time: in a word x, a byte b is flagged
// (its high bit set) by x when b >= 0x80, by x+ones when b == 0x7f, by
// (x-0x20…20) &^ x when b < 0x20, and by the zero-byte test of x^('"'…)
// and x^('\'…) when it is one of those; a borrow or carry crosses into
// the next byte only from a byte flagged already. Shorter text is read a
// byte at a time.
func plainText(data []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v }
	bad := func(x uint64) bool {
		return (x|(x+ones)|(x-' '*ones)&^x|zero(x^'"'*ones)|zero(x^'\\'*ones))&highs != 0
	}
	if len(data) >= 8 { // the last word overlaps the one before
		for i := 0; i < len(data)-8; i += 8 {
			if bad(binary.LittleEndian.Uint64(data[i:])) {
				return false
			}
		}
		return !bad(binary.LittleEndian.Uint64(data[len(data)-8:]))
	}
	for _, c := range data {
		if c < ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// readsAsText reports whether a person would rather read data as escaped
// text than as hex: at least three bytes in four are printable characters.
func readsAsText(data []byte) bool {
	good := 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r != utf8.RuneError && (r >= 0x20 && r != 0x7f || r == '\n' || r == '\t' || r == '\r') {
			good += n
		}
		i += n
	}
	return 4*good >= 3*len(data)
}
