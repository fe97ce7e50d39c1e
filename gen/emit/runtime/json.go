//go:build ignore

package codec

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// JSON is a second path beside Decode and Encode, driven by the
// descriptors: a message is an object of the fields on the wire, by Go
// name. Integers are numbers, except that an LSN is "X/X" and a timestamp
// RFC 3339 in UTC ("infinity", "-infinity"; a number of microseconds
// outside years 1–9999); a string or byte value is a JSON string when it is
// valid UTF-8, else {"bytes":N,"hex":"…"}; a NULL is null; a part or group
// element is an object. UnmarshalJSON reads exactly that back, so that the
// message re-encodes to the same bytes.

// JSONOptions shape AppendJSON's output for people. The zero value writes
// every value whole, which is what UnmarshalJSON reads back: a cut or
// redacted value is refused there, naming the field.
type JSONOptions struct {
	// MaxValue cuts a string or byte value longer than this many bytes
	// (0: never) to {"bytes":N,"text":"…"} or {"bytes":N,"hex":"…"}
	// holding its first MaxValue bytes.
	MaxValue int
	// MaxElements cuts a repeated field after this many elements (0:
	// never); {"more":N} then ends the array.
	MaxElements int
	// Redact writes every secret as {"bytes":N,"redacted":true}.
	Redact bool
	// OmitPayload leaves out the field that holds the next layer's message
	// (MessageDescriptor.Payload), for a tool that shows it decoded.
	OmitPayload bool
}

// AppendJSON appends m, as its fields on the wire with p, as a JSON object.
func AppendJSON(dst []byte, m Message, p Params, o JSONOptions) []byte {
	d, omit := m.Descriptor(), -1
	if o.OmitPayload {
		omit = d.Payload()
	}
	return o.appendObject(dst, reflect.ValueOf(m).Elem(), d, p, omit)
}

// appendObject appends v, which d describes, but its field omit.
func (o *JSONOptions) appendObject(b []byte, v reflect.Value, d *MessageDescriptor, p Params, omit int) []byte {
	b = append(b, '{')
	first := true
	for i := range d.Fields {
		f := &d.Fields[i]
		if !d.OnWire(v, i, p) || i == omit {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, f.Name)
		b = append(b, ':')
		if f.Secret && o.Redact {
			b = append(b, `{"bytes":`...)
			b = strconv.AppendInt(b, int64(v.Field(i).Len()), 10)
			b = append(b, `,"redacted":true}`...)
			continue
		}
		b = o.appendValue(b, v.Field(i), f, p)
	}
	return append(b, '}')
}

func (o *JSONOptions) appendValue(b []byte, v reflect.Value, f *FieldDescriptor, p Params) []byte {
	switch v.Kind() {
	case reflect.Uint64:
		if f.Meaning == MeaningLSN {
			return strconv.AppendQuote(b, formatLSN(v.Uint()))
		}
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int64:
		if f.Meaning == MeaningTimestamp {
			if s, ok := formatTimestamp(v.Int()); ok {
				return strconv.AppendQuote(b, s)
			}
		}
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.String:
		s := v.String()
		return o.appendBytes(b, unsafe.Slice(unsafe.StringData(s), len(s))) // read only
	case reflect.Array:
		data := make([]byte, v.Len())
		reflect.Copy(reflect.ValueOf(data), v)
		return o.appendBytes(b, data)
	case reflect.Struct:
		return o.appendObject(b, v, f.Elem, p, -1)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return append(b, "null"...)
			}
			return o.appendBytes(b, v.Bytes())
		}
		b = append(b, '[')
		n := v.Len()
		if o.MaxElements > 0 {
			n = min(n, o.MaxElements)
		}
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = o.appendValue(b, v.Index(i), f, p)
		}
		if rest := v.Len() - n; rest > 0 {
			b = append(b, `,{"more":`...)
			b = strconv.AppendInt(b, int64(rest), 10)
			b = append(b, '}')
		}
		return append(b, ']')
	}
	panic("codec: AppendJSON: no JSON form for " + v.Type().String()) // a generator defect: the tests cover every field
}

// appendBytes writes a string or byte value: a JSON string when it is whole
// and valid UTF-8, else an object with its length and, cut to MaxValue,
// its text (when valid UTF-8) or its hex.
func (o *JSONOptions) appendBytes(b, data []byte) []byte {
	shown := data
	if o.MaxValue > 0 && len(data) > o.MaxValue {
		cut := o.MaxValue
		for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(data[cut]); back++ {
			cut-- // do not cut a character in two
		}
		shown = data[:cut]
	}
	if len(shown) == len(data) && utf8.Valid(data) {
		return appendJSONString(b, string(data))
	}
	b = append(b, `{"bytes":`...)
	b = strconv.AppendInt(b, int64(len(data)), 10)
	if len(shown) < len(data) && utf8.Valid(shown) {
		b = append(b, `,"text":`...)
		b = appendJSONString(b, string(shown))
	} else {
		b = append(b, `,"hex":"`...)
		b = hex.AppendEncode(b, shown)
		b = append(b, '"')
	}
	return append(b, '}')
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

// formatLSN is an LSN as PostgreSQL prints it: X/X.
func formatLSN(l uint64) string { return fmt.Sprintf("%X/%X", uint32(l>>32), uint32(l)) }

// jsonEpoch is PostgreSQL's epoch, 2000-01-01 UTC, in Unix seconds.
const jsonEpoch = 946_684_800

// formatTimestamp is a TimestampTz in RFC 3339, UTC, to the microsecond;
// false outside the years 1–9999, which RFC 3339 cannot write.
func formatTimestamp(us int64) (string, bool) {
	switch us {
	case math.MaxInt64:
		return "infinity", true
	case math.MinInt64:
		return "-infinity", true
	}
	sec, frac := us/1_000_000, us%1_000_000
	if frac < 0 {
		sec, frac = sec-1, frac+1_000_000
	}
	t := time.Unix(jsonEpoch+sec, frac*1000).UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return "", false
	}
	return t.Format(time.RFC3339Nano), true
}

// JSONError is why UnmarshalJSON refused its input, at which field.
type JSONError struct {
	// Path is the field, from the message's name through its parts and
	// elements to the value: Message.Part.Group[2].Field.
	Path   string
	Reason string
}

func (e *JSONError) Error() string { return "codec: json " + e.Path + ": " + e.Reason }

// UnmarshalJSON replaces m's fields with the JSON object data, as
// AppendJSON writes it with the same p and no options. A field that is not
// on the wire with p (or with the values of the fields it depends on), a
// key that names no field, a value of the wrong shape or range, and a value
// AppendJSON cut or redacted are errors (*JSONError); a field left out is
// zero.
func UnmarshalJSON(data []byte, m Message, p Params) error {
	v := reflect.ValueOf(m).Elem()
	v.SetZero()
	return unmarshalObject(data, v, m.Descriptor(), p, m.Descriptor().Name)
}

func unmarshalObject(data []byte, v reflect.Value, d *MessageDescriptor, p Params, path string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return &JSONError{path, "want an object of " + d.Name + "'s fields, got " + jsonShort(data)}
	}
	for key := range obj {
		if d.Field(key) == nil {
			return &JSONError{path, fmt.Sprintf("%s has no field %q", d.Name, key)}
		}
	}
	for i := range d.Fields {
		f := &d.Fields[i]
		raw, ok := obj[f.Name]
		if !ok {
			continue
		}
		at := path + "." + f.Name
		if !f.Present(p) {
			return &JSONError{at, fmt.Sprintf("is not on the wire with %+v", p)}
		}
		if err := unmarshalValue(raw, v.Field(i), f, p, at); err != nil {
			return err
		}
	}
	for i := range d.Fields {
		if _, ok := obj[d.Fields[i].Name]; ok && !d.OnWire(v, i, p) {
			return &JSONError{path + "." + d.Fields[i].Name, "is not on the wire with the values given"}
		}
	}
	return nil
}

func unmarshalValue(raw json.RawMessage, v reflect.Value, f *FieldDescriptor, p Params, path string) error {
	fail := func(format string, args ...any) error {
		return &JSONError{path, fmt.Sprintf(format, args...)}
	}
	var s string
	isString := json.Unmarshal(raw, &s) == nil
	switch v.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if isString && f.Meaning == MeaningLSN {
			l, ok := parseLSN(s)
			if !ok {
				return fail("want an LSN X/X, got %q", s)
			}
			v.SetUint(uint64(l))
			return nil
		}
		n, err := strconv.ParseUint(string(raw), 10, v.Type().Bits())
		if err != nil {
			return fail("want an integer 0…%d, got %s", uint64(math.MaxUint64)>>(64-v.Type().Bits()), jsonShort(raw))
		}
		v.SetUint(n)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if isString && f.Meaning == MeaningTimestamp {
			us, err := parseTimestamp(s)
			if err != nil {
				return fail("%v", err)
			}
			v.SetInt(us)
			return nil
		}
		n, err := strconv.ParseInt(string(raw), 10, v.Type().Bits())
		if err != nil {
			return fail("want an integer of %d bits, got %s", v.Type().Bits(), jsonShort(raw))
		}
		v.SetInt(n)
	case reflect.String:
		data, err := unmarshalBytes(raw, isString, s)
		if err != nil || data == nil {
			return fail("want a string, got %s%s", jsonShort(raw), jsonBecause(err))
		}
		v.SetString(string(data))
	case reflect.Array:
		data, err := unmarshalBytes(raw, isString, s)
		if err != nil || len(data) != v.Len() {
			return fail("want %d bytes, got %s%s", v.Len(), jsonShort(raw), jsonBecause(err))
		}
		reflect.Copy(v, reflect.ValueOf(data))
	case reflect.Struct:
		return unmarshalObject(raw, v, f.Elem, p, path)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if string(raw) == "null" {
				return nil
			}
			data, err := unmarshalBytes(raw, isString, s)
			if err != nil || data == nil {
				return fail("want a string, bytes or null, got %s%s", jsonShort(raw), jsonBecause(err))
			}
			v.SetBytes(data)
			return nil
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil || elems == nil {
			return fail("want an array, got %s", jsonShort(raw))
		}
		if len(elems) == 0 {
			return nil // a decoded empty group is nil
		}
		out := reflect.MakeSlice(v.Type(), len(elems), len(elems))
		for i, e := range elems {
			if bytes.HasPrefix(e, []byte(`{"more":`)) {
				return fail("cut after %d elements: the whole array is needed", i)
			}
			if err := unmarshalValue(e, out.Index(i), f, p, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		v.Set(out)
	default:
		return fail("no JSON form for %s", v.Type())
	}
	return nil
}

// unmarshalBytes reads a string or byte value: a JSON string, or the
// object AppendJSON writes for bytes that are not UTF-8. Nil when raw is
// neither.
func unmarshalBytes(raw json.RawMessage, isString bool, s string) ([]byte, error) {
	if isString {
		return []byte(s), nil
	}
	var obj struct {
		Bytes    *int
		Hex      *string
		Text     *string
		Redacted bool
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil || obj.Bytes == nil {
		return nil, nil
	}
	var data []byte
	switch {
	case obj.Redacted:
		return nil, errors.New("the value was redacted")
	case obj.Hex != nil && obj.Text == nil:
		var err error
		if data, err = hex.DecodeString(*obj.Hex); err != nil {
			return nil, nil
		}
	case obj.Text != nil && obj.Hex == nil:
		data = []byte(*obj.Text)
	default:
		return nil, nil
	}
	if len(data) != *obj.Bytes {
		return nil, fmt.Errorf("the value was cut to %d of its %d bytes", len(data), *obj.Bytes)
	}
	return data, nil
}

func jsonBecause(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// jsonShort is a JSON value cut for an error message.
func jsonShort(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

// parseTimestamp reads what formatTimestamp writes.
func parseTimestamp(s string) (int64, error) {
	switch s {
	case "infinity":
		return math.MaxInt64, nil
	case "-infinity":
		return math.MinInt64, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("want an RFC 3339 time, infinity or -infinity, got %q", s)
	}
	if t.Nanosecond()%1000 != 0 {
		return 0, fmt.Errorf("%q is finer than the microseconds PostgreSQL keeps", s)
	}
	return (t.Unix()-jsonEpoch)*1_000_000 + int64(t.Nanosecond()/1000), nil
}
