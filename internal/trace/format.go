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
	names     map[nameKey]string // message names by type and major
	bodies    map[string]*body   // rendered messages of small frames (appendLine)
	seen      []uint64           // hashes of small frames seen once and not kept in bodies (seenBefore)
	seenTaken int                // frames put in seen since it last grew
	kept      *body              // what the last line was printed from or kept as; nil: neither
	recent    [8]*body           // of bodies, the last used of each tag and length hashed (appendLine)
	seed      maphash.Seed
	second    int64  // the Unix second seconds holds
	seconds   []byte // "2006-01-02T15:04:05" of second
	// The header up to the offset, which repeats: the time of the last
	// line (a read's messages all bear its time), the session and the
	// direction.
	headAt  time.Time
	headID  int64
	headDir Direction
	head    []byte
	// The last offset written, and its digits (appendOffset).
	offAt   int64
	offText []byte
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
	if e == nil || e.frame != string(frame) {
		if e = f.bodies[string(frame)]; e != nil {
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
		if !f.seenBefore(frame) {
			return f.appendEnd(b)
		}
		if len(f.bodies) >= maxCachedBodies {
			clear(f.bodies)
			clear(f.recent[:])
		}
		if f.bodies == nil {
			f.bodies = map[string]*body{}
		}
		e = &body{frame: string(frame)}
		f.bodies[e.frame] = e
	}
	e.set(chain, b[mark:])
	f.kept = e
	return f.appendEnd(b)
}

// seenBefore reports whether frame came before, as far as seen tells,
// and remembers it otherwise. seen holds frames' hashes where their low
// bits say, one each: a frame whose place another took since counts as
// new once more, and is kept at its next coming instead. It starts small
// (an idle session's few frames) and doubles, forgetting, each time it
// took as many frames as it has places, up to maxCachedBodies.
func (f *formatter) seenBefore(frame []byte) bool {
	if f.seen == nil {
		f.seen, f.seed = make([]uint64, 64), maphash.MakeSeed()
	}
	h := maphash.Bytes(f.seed, frame) | 1 // 0 is an empty place
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

func (f *formatter) appendHeader(b []byte, at time.Time, id int64, d Direction, off int64) []byte {
	if at != f.headAt || id != f.headID || d != f.headDir || f.head == nil {
		f.headAt, f.headID, f.headDir, f.head = at, id, d, f.appendHead(f.head[:0], at, id, d)
	}
	b = f.appendOffset(append(b, f.head...), off)
	if f.json {
		return append(b, `,"messages":[`...)
	}
	return b
}

// appendOffset writes off in decimal. A direction's offsets only grow, each
// by the last message's length: adding that to the last offset's digits
// costs less than formatting anew.
func (f *formatter) appendOffset(b []byte, off int64) []byte {
	delta := off - f.offAt
	if f.offText == nil || delta < 0 || delta > 1<<20 {
		f.offAt, f.offText = off, strconv.AppendInt(f.offText[:0], off, 10)
		return append(b, f.offText...)
	}
	f.offAt = off
	d := f.offText
	for i := len(d) - 1; delta > 0; i-- {
		if i < 0 { // one more digit
			d = append(d, 0)
			copy(d[1:], d)
			d[0], i = '0', 0
		}
		v := int64(d[i]-'0') + delta
		d[i], delta = byte('0'+v%10), v/10
	}
	f.offText = d
	return append(b, d...)
}

// appendHead writes a header up to the offset.
func (f *formatter) appendHead(b []byte, at time.Time, id int64, d Direction) []byte {
	if f.json {
		b = append(b, `{"time":"`...)
		b = f.appendTime(b, at)
		b = append(b, `","session":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `,"dir":"`...)
		b = append(b, d.String()...)
		return append(b, `","offset":`...)
	}
	b = f.appendTime(b, at)
	b = append(b, " #"...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ' ')
	b = append(b, d.String()...)
	return append(b, " @"...)
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
		payload := ""
		if i < len(chain)-1 {
			payload = payloadField(l.Msg)
		}
		if !f.json {
			if i > 0 {
				b = append(b, " >"...)
			}
			b = append(b, ' ')
			b = append(b, f.nameOf(l.Msg, l.Params.Major)...)
			b = f.appendFields(b, reflect.ValueOf(l.Msg).Elem(), l.Msg.Descriptor(), l.Params, payload)
			b = f.appendQueryCommand(b, l)
			continue
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"`...) // names and slugs need no escaping
		b = append(b, f.nameOf(l.Msg, l.Params.Major)...)
		b = append(b, `","slug":"`...)
		b = append(b, l.Msg.Slug()...)
		b = append(b, `","params":`...)
		b = appendParams(b, l.Params)
		mark := len(b)
		o := codec.JSONOptions{Redact: !f.showSecrets, Omit: payload}
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

// appendFields writes the fields of v, described by d, that are on the wire
// with p, each after a separator; the field named skip is left out.
func (f *formatter) appendFields(b []byte, v reflect.Value, d *codec.MessageDescriptor, p codec.Params, skip string) []byte {
	for i := range d.Fields {
		fd := &d.Fields[i]
		if !d.OnWire(v, i, p) || fd.Name == skip {
			continue
		}
		b = f.appendName(b, fd.Name)
		if fd.Secret && !f.showSecrets {
			b = f.appendRedacted(b, v.Field(i))
		} else {
			b = f.appendValue(b, fd, p, v.Field(i))
		}
	}
	return b
}

// appendTime writes t in RFC 3339, UTC, to the microsecond. The date and
// time to the second are formatted once per second.
func (f *formatter) appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	if sec := t.Unix(); sec != f.second || f.seconds == nil {
		f.second, f.seconds = sec, t.AppendFormat(f.seconds[:0], "2006-01-02T15:04:05")
	}
	b = append(b, f.seconds...)
	us := t.Nanosecond() / 1000
	return append(b, '.', byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
		byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10), 'Z')
}

// payloadField names the field that holds the next layer's bytes.
func payloadField(m codec.Message) string {
	switch m.(type) {
	case *codec.CopyData:
		return "Data"
	case *codec.XLogData:
		return "WALData"
	}
	return ""
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

// nameOf is what the major calls m, found once per type and major.
func (f *formatter) nameOf(m codec.Message, major int) string {
	key := nameKey{m.Descriptor(), major}
	n, ok := f.names[key]
	if !ok {
		n = messageName(m, major)
		if f.names == nil {
			f.names = map[nameKey]string{}
		}
		f.names[key] = n
	}
	return n
}

type nameKey struct {
	d     *codec.MessageDescriptor
	major int
}

// maxElements bounds the elements of one repeated field a line shows (a
// DataRow's values, a RowDescription's columns …), as maxValue bounds the
// bytes of one value.
const maxElements = 64

// appendName writes a separator and a field's name (text lines).
func (f *formatter) appendName(b []byte, name string) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	return append(b, '=')
}

// appendValue writes v, the value of field fd (or one of its elements), for
// a text line.
func (f *formatter) appendValue(b []byte, fd *codec.FieldDescriptor, p codec.Params, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return f.appendBytes(b, unsafe.Slice(unsafe.StringData(s), len(s)), true) // read only
	case reflect.Uint8:
		if c := v.Uint(); c >= 0x20 && c < 0x7f { // tags and kinds read better as characters
			return strconv.AppendQuoteRune(b, rune(c))
		}
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Uint64:
		if fd.Meaning == codec.MeaningLSN {
			return append(b, session.LSN(v.Uint()).String()...)
		}
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int64:
		if fd.Meaning == codec.MeaningTimestamp {
			return append(b, formatMicros(v.Int())...)
		}
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Uint16, reflect.Uint32:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Array: // a fixed byte array such as the MD5 salt
		data := make([]byte, v.Len())
		reflect.Copy(reflect.ValueOf(data), v)
		return f.appendBytes(b, data, false)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return append(b, "NULL"...)
			}
			return f.appendBytes(b, v.Bytes(), false)
		}
		b = append(b, '[')
		shown := v.Len()
		if f.maxValue > 0 {
			shown = min(shown, maxElements)
		}
		for i := range shown {
			if i > 0 {
				b = append(b, ' ')
			}
			b = f.appendValue(b, fd, p, v.Index(i))
		}
		if rest := v.Len() - shown; rest > 0 {
			b = append(b, " …("...)
			b = strconv.AppendInt(b, int64(rest), 10)
			b = append(b, " more)"...)
		}
		return append(b, ']')
	case reflect.Struct:
		b = append(b, '{')
		mark := len(b)
		b = f.appendFields(b, v, fd.Elem, p, "")
		if len(b) > mark { // appendName put a separator before the first field too: drop it
			b = append(b[:mark], b[mark+1:]...)
		}
		return append(b, '}')
	}
	return append(b, '?')
}

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

// appendRedacted stands in for a secret: its length, never its bytes.
func (f *formatter) appendRedacted(b []byte, v reflect.Value) []byte {
	b = append(b, "<redacted "...)
	b = strconv.AppendInt(b, int64(v.Len()), 10)
	return append(b, " bytes>"...)
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
	if isString || readsAsText(shown) {
		b = appendQuoted(b, shown)
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
// when data is printable ASCII with nothing to escape (SQL text, names,
// command tags: most values a trace shows).
func appendQuoted(b, data []byte) []byte {
	if !plainText(data) {
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
// the next byte only from a byte flagged already.
func plainText(data []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v }
	for ; len(data) >= 8; data = data[8:] {
		x := binary.LittleEndian.Uint64(data)
		if (x|(x+ones)|(x-' '*ones)&^x|zero(x^'"'*ones)|zero(x^'\\'*ones))&highs != 0 {
			return false
		}
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
