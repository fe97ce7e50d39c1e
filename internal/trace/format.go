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
	name string // "frontend-backend", "replication", "logical-replication"
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

// appendText renders a message chain as one text line:
//
//	#3 B @1234 CopyData > XLogData WALStart=… > LogicalInsert RelationOID=16390 …
func appendText(b []byte, id int64, d Direction, off int64, chain []layer) []byte {
	b = append(b, '#')
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ' ')
	b = append(b, d.String()...)
	b = append(b, " @"...)
	b = strconv.AppendInt(b, off, 10)
	for i, l := range chain {
		if i > 0 {
			b = append(b, " >"...)
		}
		v := reflect.Indirect(reflect.ValueOf(l.msg))
		b = append(b, ' ')
		b = append(b, v.Type().Name()...)
		skip := ""
		if i < len(chain)-1 {
			skip = payloadField(l.msg)
		}
		for j := range v.NumField() {
			f := v.Type().Field(j)
			if !f.IsExported() || f.Name == skip {
				continue
			}
			b = append(b, ' ')
			b = append(b, f.Name...)
			b = append(b, '=')
			b = appendTextValue(b, v.Field(j))
		}
	}
	return append(b, '\n')
}

// maxShown bounds how many bytes of one value a line shows.
const maxShown = 64

func appendTextValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		return strconv.AppendQuote(b, v.String())
	case reflect.Uint8:
		if c := v.Uint(); c >= 0x20 && c < 0x7f {
			return strconv.AppendQuoteRune(b, rune(c))
		}
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Array:
		return appendBytes(b, bytesOf(v))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return append(b, "NULL"...)
			}
			return appendBytes(b, v.Bytes())
		}
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ' ')
			}
			b = appendTextValue(b, v.Index(i))
		}
		return append(b, ']')
	case reflect.Struct:
		b = append(b, '{')
		for i := range v.NumField() {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, v.Type().Field(i).Name...)
			b = append(b, '=')
			b = appendTextValue(b, v.Field(i))
		}
		return append(b, '}')
	}
	return append(b, '?')
}

// appendBytes shows printable UTF-8 quoted, anything else as hex, both cut
// at maxShown bytes with the full length noted.
func appendBytes(b, data []byte) []byte {
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

func bytesOf(v reflect.Value) []byte {
	out := make([]byte, v.Len())
	for i := range out {
		out[i] = byte(v.Index(i).Uint())
	}
	return out
}

// appendJSON renders a message chain as one JSON object:
//
//	{"session":3,"dir":"B","offset":1234,"messages":[{"type":"CopyData"},{"type":"XLogData","WALStart":…},…]}
//
// Byte values are JSON strings when they are valid UTF-8 and {"hex":"…"}
// otherwise; NULL is null. Nothing is cut.
func appendJSON(b []byte, id int64, d Direction, off int64, chain []layer) []byte {
	b = append(b, `{"session":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"dir":"`...)
	b = append(b, d.String()...)
	b = append(b, `","offset":`...)
	b = strconv.AppendInt(b, off, 10)
	b = append(b, `,"messages":[`...)
	for i, l := range chain {
		if i > 0 {
			b = append(b, ',')
		}
		v := reflect.Indirect(reflect.ValueOf(l.msg))
		b = append(b, `{"type":`...)
		b = strconv.AppendQuote(b, v.Type().Name())
		skip := ""
		if i < len(chain)-1 {
			skip = payloadField(l.msg)
		}
		for j := range v.NumField() {
			f := v.Type().Field(j)
			if !f.IsExported() || f.Name == skip {
				continue
			}
			b = append(b, ',')
			b = appendJSONString(b, f.Name)
			b = append(b, ':')
			b = appendJSONValue(b, v.Field(j))
		}
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

func appendJSONValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		return appendJSONString(b, v.String())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Array:
		return appendJSONBytes(b, bytesOf(v))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return append(b, "null"...)
			}
			return appendJSONBytes(b, v.Bytes())
		}
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, v.Index(i))
		}
		return append(b, ']')
	case reflect.Struct:
		b = append(b, '{')
		for i := range v.NumField() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, v.Type().Field(i).Name)
			b = append(b, ':')
			b = appendJSONValue(b, v.Field(i))
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

func appendJSONBytes(b, data []byte) []byte {
	if utf8.Valid(data) {
		return appendJSONString(b, string(data))
	}
	b = append(b, `{"hex":"`...)
	b = hex.AppendEncode(b, data)
	return append(b, `"}`...)
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
