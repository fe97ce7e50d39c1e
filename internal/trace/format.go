package trace

import (
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/pgspec/pgspec/codec"
)

// layer is one decoded level of a wire message: the message itself, or a
// sub-message inside a CopyData or an XLogData.
type layer struct {
	name string // "startup", "frontend-backend", "replication", "logical-replication"
	msg  codec.Message
	p    codec.Params
}

// payloadField names the field that holds the next layer's bytes; it is not
// printed, the next layer is.
func payloadField(m codec.Message) string {
	switch m.(type) {
	case *codec.CopyData:
		return "Data"
	case *codec.XLogData:
		return "WALData"
	}
	return ""
}

// maxShown bounds how many bytes of one value a text line shows.
const maxShown = 64

// style is how a line is written: text for people, JSON lines for tools.
type style struct {
	json bool
}

// appendLine renders a message chain as one line. Text:
//
//	#3 B @1234 CopyData > XLogData WALStart=… > LogicalInsert RelationOID=16390 …
//
// JSON:
//
//	{"session":3,"dir":"B","offset":1234,"messages":[{"type":"CopyData"},{"type":"XLogData","WALStart":…},…]}
//
// In text, byte values are quoted when printable and hex otherwise, cut at
// maxShown bytes; in JSON they are strings when valid UTF-8 and {"hex":"…"}
// otherwise, never cut. NULL is NULL or null.
func (st style) appendLine(b []byte, id int64, d Direction, off int64, chain []layer) []byte {
	if st.json {
		b = append(b, `{"session":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `,"dir":"`...)
		b = append(b, d.String()...)
		b = append(b, `","offset":`...)
		b = strconv.AppendInt(b, off, 10)
		b = append(b, `,"messages":[`...)
	} else {
		b = append(b, '#')
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ' ')
		b = append(b, d.String()...)
		b = append(b, " @"...)
		b = strconv.AppendInt(b, off, 10)
	}
	for i, l := range chain {
		v := reflect.Indirect(reflect.ValueOf(l.msg))
		if st.json {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":`...)
			b = strconv.AppendQuote(b, v.Type().Name())
		} else {
			if i > 0 {
				b = append(b, " >"...)
			}
			b = append(b, ' ')
			b = append(b, v.Type().Name()...)
		}
		skip := ""
		if i < len(chain)-1 {
			skip = payloadField(l.msg)
		}
		for j := range v.NumField() {
			if f := v.Type().Field(j); f.IsExported() && f.Name != skip {
				b = st.appendField(b, f.Name, v.Field(j))
			}
		}
		if st.json {
			b = append(b, '}')
		}
	}
	if st.json {
		b = append(b, ']', '}')
	}
	return append(b, '\n')
}

// appendField writes a separator, the field's name and its value.
func (st style) appendField(b []byte, name string, v reflect.Value) []byte {
	if st.json {
		b = append(b, ',')
		b = st.appendString(b, name)
		b = append(b, ':')
	} else {
		b = append(b, ' ')
		b = append(b, name...)
		b = append(b, '=')
	}
	return st.appendValue(b, v)
}

func (st style) appendValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		return st.appendString(b, v.String())
	case reflect.Uint8:
		if c := v.Uint(); !st.json && c >= 0x20 && c < 0x7f { // tags and kinds read better as characters
			return strconv.AppendQuoteRune(b, rune(c))
		}
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Array: // a fixed byte array such as the MD5 salt
		data := make([]byte, v.Len())
		for i := range data {
			data[i] = byte(v.Index(i).Uint())
		}
		return st.appendBytes(b, data)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				if st.json {
					return append(b, "null"...)
				}
				return append(b, "NULL"...)
			}
			return st.appendBytes(b, v.Bytes())
		}
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, st.sep())
			}
			b = st.appendValue(b, v.Index(i))
		}
		return append(b, ']')
	case reflect.Struct:
		b = append(b, '{')
		mark := len(b)
		for i := range v.NumField() {
			b = st.appendField(b, v.Type().Field(i).Name, v.Field(i))
		}
		if len(b) > mark { // appendField put a separator before the first field too: drop it
			b = append(b[:mark], b[mark+1:]...)
		}
		return append(b, '}')
	}
	if st.json {
		return append(b, "null"...)
	}
	return append(b, '?')
}

func (st style) sep() byte {
	if st.json {
		return ','
	}
	return ' '
}

func (st style) appendString(b []byte, s string) []byte {
	if st.json {
		q, _ := json.Marshal(s) // a string always marshals
		return append(b, q...)
	}
	return strconv.AppendQuote(b, s)
}

func (st style) appendBytes(b, data []byte) []byte {
	if st.json {
		if utf8.Valid(data) {
			return st.appendString(b, string(data))
		}
		b = append(b, `{"hex":"`...)
		b = hex.AppendEncode(b, data)
		return append(b, `"}`...)
	}
	shown := data[:min(len(data), maxShown)]
	if utf8.Valid(shown) && printable(shown) {
		b = strconv.AppendQuote(b, string(shown))
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

func printable(data []byte) bool {
	for _, c := range data {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
