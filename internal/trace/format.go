package trace

import (
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
	shapes  map[shapeKey]*shape      // by message type and params
	bodies  map[string]*body         // rendered messages of small frames (appendLine)
	structs map[reflect.Type][]field // the fields of nested structs
	second  int64                    // the Unix second seconds holds
	seconds []byte                   // "2006-01-02T15:04:05" of second
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
// of those), rendered once. Frames that carry a secret are not kept; a nil
// frame is not looked up.
func (f *formatter) appendLine(b []byte, at time.Time, id int64, d Direction, off int64, chain []Layer, frame []byte) []byte {
	b = f.appendHeader(b, at, id, d, off)
	if frame == nil || len(frame) > maxCachedFrame || hasSecret(chain) {
		return f.appendEnd(f.appendMessages(b, chain))
	}
	e := f.bodies[string(frame)]
	if e != nil && e.matches(chain) {
		return f.appendEnd(append(b, e.text...))
	}
	mark := len(b)
	b = f.appendMessages(b, chain)
	if e == nil {
		if len(f.bodies) >= maxCachedBodies {
			clear(f.bodies)
		}
		if f.bodies == nil {
			f.bodies = map[string]*body{}
		}
		e = &body{}
		f.bodies[string(frame)] = e
	}
	e.set(chain, b[mark:])
	return f.appendEnd(b)
}

// The rendering cache holds frames of up to maxCachedFrame bytes, and is
// emptied when it holds maxCachedBodies of them.
const (
	maxCachedFrame  = 256
	maxCachedBodies = 4096
)

// body is the rendering of a frame's messages, with what decided it.
type body struct {
	n      int
	types  [3]reflect.Type
	params [3]codec.Params
	text   []byte
}

func (e *body) matches(chain []Layer) bool {
	if len(chain) != e.n {
		return false
	}
	for i, l := range chain {
		if reflect.TypeOf(l.Msg) != e.types[i] || l.Params != e.params[i] {
			return false
		}
	}
	return true
}

func (e *body) set(chain []Layer, text []byte) {
	e.n = len(chain)
	for i, l := range chain {
		e.types[i], e.params[i] = reflect.TypeOf(l.Msg), l.Params
	}
	e.text = append(e.text[:0], text...)
}

func (f *formatter) appendHeader(b []byte, at time.Time, id int64, d Direction, off int64) []byte {
	if f.json {
		b = append(b, `{"time":"`...)
		b = f.appendTime(b, at)
		b = append(b, `","session":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `,"dir":"`...)
		b = append(b, d.String()...)
		b = append(b, `","offset":`...)
		b = strconv.AppendInt(b, off, 10)
		return append(b, `,"messages":[`...)
	}
	b = f.appendTime(b, at)
	b = append(b, " #"...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ' ')
	b = append(b, d.String()...)
	b = append(b, " @"...)
	return strconv.AppendInt(b, off, 10)
}

func (f *formatter) appendEnd(b []byte) []byte {
	if f.json {
		b = append(b, ']', '}')
	}
	return append(b, '\n')
}

// appendMessages renders the chain's messages, outermost first.
func (f *formatter) appendMessages(b []byte, chain []Layer) []byte {
	for i, l := range chain {
		v := reflect.ValueOf(l.Msg).Elem()
		sh := f.shapeOf(l.Msg, l.Params)
		if f.json {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendJSONString(b, sh.name)
			b = append(b, `,"slug":`...)
			b = appendJSONString(b, l.Msg.Slug())
		} else {
			if i > 0 {
				b = append(b, " >"...)
			}
			b = append(b, ' ')
			b = append(b, sh.name...)
		}
		secret := ""
		if !f.showSecrets {
			secret = secretField(l.Msg)
		}
		var hide []string
		if sh.valueDependent {
			hide = hiddenFields(v)
		}
		for _, fl := range sh.fields {
			if fl.payload && i < len(chain)-1 || hide != nil && slices.Contains(hide, fl.name) {
				continue
			}
			b = f.appendName(b, fl.name)
			if fl.name == secret {
				b = f.appendRedacted(b, v.Field(fl.index))
			} else {
				b = f.appendValue(b, fl.name, v.Field(fl.index))
			}
		}
		if f.json {
			b = append(b, '}')
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

// secretField names the field of m that PostgreSQL never logs: passwords
// (cleartext or MD5), SASL and GSSAPI/SSPI exchange data, cancel keys. A
// SCRAM client-first message is only a user name and a nonce and is shown;
// other SASL mechanisms' initial responses (OAUTHBEARER's carries a bearer
// token) are not.
func secretField(m codec.Message) string {
	switch m := m.(type) {
	case *codec.PasswordMessage:
		return "Password"
	case *codec.SASLInitialResponse:
		if !strings.HasPrefix(m.AuthMechanism, "SCRAM-") {
			return "Data"
		}
	case *codec.SASLResponse, *codec.GSSResponse, *codec.AuthenticationSASLContinue,
		*codec.AuthenticationSASLFinal, *codec.AuthenticationGSSContinue:
		return "Data"
	case *codec.BackendKeyData, *codec.CancelRequest:
		return "SecretKey"
	}
	return ""
}

// hiddenFields names the fields of v whose presence on the wire depends on
// another field's value: an Update's old tuple (and its kind byte) when it
// has none, a TupleData column's bytes when it is NULL or unchanged TOAST.
func hiddenFields(v reflect.Value) []string {
	switch m := v.Addr().Interface().(type) {
	case *codec.LogicalUpdate:
		if m.OldKind == 0 {
			return noOldTuple
		}
	case *codec.TupleDataColumn:
		if m.Kind != 't' && m.Kind != 'b' {
			return noColumnData
		}
	}
	return nil
}

var noOldTuple, noColumnData = []string{"OldKind", "Old"}, []string{"Data"}

// shapeKey is what decides a message's shape.
type shapeKey struct {
	t reflect.Type
	p codec.Params
}

// shape is how a message type prints with given params: its name in the
// major, and its exported fields that are on the wire.
type shape struct {
	name           string
	fields         []field
	valueDependent bool // some fields' presence depends on another's value (hiddenFields)
}

// field is one printed field.
type field struct {
	index   int
	name    string
	payload bool // holds the next layer's bytes: printed only in the last layer
}

// shapeOf returns m's shape with p, built once per type and params.
func (f *formatter) shapeOf(m codec.Message, p codec.Params) *shape {
	key := shapeKey{reflect.TypeOf(m), p}
	if sh, ok := f.shapes[key]; ok {
		return sh
	}
	absent := absentFields(m, p)
	sh := &shape{name: messageName(m, p.Major), valueDependent: hiddenFields(reflect.ValueOf(m).Elem()) != nil}
	t := key.t.Elem()
	for j := range t.NumField() {
		if fl := t.Field(j); fl.IsExported() && absent&(1<<j) == 0 {
			sh.fields = append(sh.fields, field{index: j, name: fl.Name, payload: fl.Name == payloadField(m)})
		}
	}
	if f.shapes == nil {
		f.shapes = map[shapeKey]*shape{}
	}
	f.shapes[key] = sh
	return sh
}

// structFields returns the exported fields of a nested struct type.
func (f *formatter) structFields(t reflect.Type) []field {
	if fields, ok := f.structs[t]; ok {
		return fields
	}
	var fields []field
	for j := range t.NumField() {
		if fl := t.Field(j); fl.IsExported() {
			fields = append(fields, field{index: j, name: fl.Name})
		}
	}
	if f.structs == nil {
		f.structs = map[reflect.Type][]field{}
	}
	f.structs[t] = fields
	return fields
}

// absentFields returns a bit per field of m (by index) that is not on the
// wire with p: a field of another major's layout, an xid outside a streamed
// transaction, Stream Abort's LSN and time without parallel streaming. It
// finds them as the codec does, by encoding: a scalar field the codec
// refuses as not on the wire (ErrNotOnWire), or whose value does not
// change the bytes, is not written.
func absentFields(m codec.Message, p codec.Params) uint64 {
	t := reflect.TypeOf(m).Elem()
	var mask uint64
	zero := reflect.New(t)
	if base, err := zero.Interface().(codec.Message).Encode(nil, p); err == nil {
		for j := range min(t.NumField(), 64) {
			probe := reflect.New(t)
			fv := probe.Elem().Field(j)
			if !t.Field(j).IsExported() || !setAllOnes(fv) {
				continue
			}
			out, err := probe.Interface().(codec.Message).Encode(nil, p)
			if errors.Is(err, codec.ErrNotOnWire) || err == nil && string(out) == string(base) {
				mask |= 1 << j
			}
		}
	}
	return mask
}

// setAllOnes sets an integer field to its largest value, which no layout
// writes as zeros; other kinds are left alone (false).
func setAllOnes(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(math.MaxUint64 >> (64 - v.Type().Bits()))
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(math.MaxInt64 >> (64 - v.Type().Bits()))
	default:
		return false
	}
	return true
}

// valueKind is how an integer field reads best.
type valueKind int

const (
	plain     valueKind = iota
	lsn                 // a WAL position: X/X
	timestamp           // microseconds since 2000-01-01 UTC: RFC 3339
)

// kinds are the codec's 64-bit fields that are WAL positions or times,
// reviewed by name (TestEveryWideFieldHasAKind lists the others).
var kinds = map[string]valueKind{
	"AbortLSN": lsn, "CommitEndLSN": lsn, "CommitLSN": lsn, "FinalLSN": lsn, "InsertLSN": lsn, "LSN": lsn,
	"PrepareEndLSN": lsn, "PrepareLSN": lsn, "RollbackEndLSN": lsn, "TransactionEndLSN": lsn,
	"WALApplyPosition": lsn, "WALFlushPosition": lsn, "WALStart": lsn, "WALWritePosition": lsn, "ServerWALEnd": lsn,
	"AbortTime": timestamp, "ClientTime": timestamp, "CommitTime": timestamp, "PrepareTime": timestamp,
	"RollbackTime": timestamp, "ServerTime": timestamp,
}

// maxElements bounds the elements of one repeated field a line shows (a
// DataRow's values, a RowDescription's columns …), as maxValue bounds the
// bytes of one value.
const maxElements = 64

func (f *formatter) appendSeparator(b []byte) []byte {
	if f.json {
		return append(b, ',')
	}
	return append(b, ' ')
}

// appendName writes a separator and a field's name.
func (f *formatter) appendName(b []byte, name string) []byte {
	if f.json {
		b = append(b, ',')
		b = appendJSONString(b, name)
		return append(b, ':')
	}
	b = append(b, ' ')
	b = append(b, name...)
	return append(b, '=')
}

func (f *formatter) appendValue(b []byte, name string, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return f.appendBytes(b, unsafe.Slice(unsafe.StringData(s), len(s)), true) // read only
	case reflect.Uint8:
		if c := v.Uint(); !f.json && c >= 0x20 && c < 0x7f { // tags and kinds read better as characters
			return strconv.AppendQuoteRune(b, rune(c))
		}
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Uint64:
		if kinds[name] == lsn {
			return f.quoted(b, session.LSN(v.Uint()).String())
		}
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int64:
		if kinds[name] == timestamp {
			return f.quoted(b, formatMicros(v.Int()))
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
				if f.json {
					return append(b, "null"...)
				}
				return append(b, "NULL"...)
			}
			return f.appendBytes(b, v.Bytes(), false)
		}
		b = append(b, '[')
		shown := min(v.Len(), maxElements)
		for i := range shown {
			if i > 0 {
				b = f.appendSeparator(b)
			}
			b = f.appendValue(b, name, v.Index(i))
		}
		if rest := v.Len() - shown; rest > 0 { // text: …(N more); JSON: {"more":N}
			b = f.appendSeparator(b)
			if f.json {
				b = append(b, `{"more":`...)
				b = strconv.AppendInt(b, int64(rest), 10)
				b = append(b, '}')
			} else {
				b = append(b, "…("...)
				b = strconv.AppendInt(b, int64(rest), 10)
				b = append(b, " more)"...)
			}
		}
		return append(b, ']')
	case reflect.Struct:
		b = append(b, '{')
		mark := len(b)
		hide := hiddenFields(v)
		for _, fl := range f.structFields(v.Type()) {
			if hide == nil || !slices.Contains(hide, fl.name) {
				b = f.appendName(b, fl.name)
				b = f.appendValue(b, fl.name, v.Field(fl.index))
			}
		}
		if len(b) > mark { // appendName put a separator before the first field too: drop it
			b = append(b[:mark], b[mark+1:]...)
		}
		return append(b, '}')
	}
	if f.json {
		return append(b, "null"...)
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

// quoted writes s, which needs no escaping, as text (bare) or a JSON string.
func (f *formatter) quoted(b []byte, s string) []byte {
	if f.json {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return append(b, s...)
}

// appendRedacted stands in for a secret: its length, never its bytes.
func (f *formatter) appendRedacted(b []byte, v reflect.Value) []byte {
	n := int64(v.Len())
	if f.json {
		b = append(b, `{"bytes":`...)
		b = strconv.AppendInt(b, n, 10)
		return append(b, `,"redacted":true}`...)
	}
	b = append(b, "<redacted "...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, " bytes>"...)
}

// appendBytes writes a string or byte value, cut at maxValue bytes. Text:
// quoted with Go escapes when it reads as text (isString: always), else
// 0x and hex; a cut value ends in …(N bytes). JSON: a string when the whole
// value is text, else {"bytes":N,"text":…} or {"bytes":N,"hex":…} holding
// the value or, when cut, its first maxValue bytes.
func (f *formatter) appendBytes(b, data []byte, isString bool) []byte {
	shown := data
	if len(data) > f.maxValue {
		cut := f.maxValue
		for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(data[cut]); back++ {
			cut-- // do not cut a character in two
		}
		shown = data[:cut]
	}
	text := isString || readsAsText(shown)
	if f.json {
		if len(shown) == len(data) && text && utf8.Valid(data) {
			return appendJSONString(b, string(data))
		}
		b = append(b, `{"bytes":`...)
		b = strconv.AppendInt(b, int64(len(data)), 10)
		if text && utf8.Valid(shown) {
			b = append(b, `,"text":`...)
			b = appendJSONString(b, string(shown))
		} else {
			b = append(b, `,"hex":"`...)
			b = hex.AppendEncode(b, shown)
			b = append(b, '"')
		}
		return append(b, '}')
	}
	if text {
		b = strconv.AppendQuote(b, unsafe.String(unsafe.SliceData(shown), len(shown))) // read only
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

// appendJSONString writes s, valid UTF-8, as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
