package codec_test

import (
	"encoding/binary"
	"reflect"
)

// Byte builders for hand-written vectors: each writes exactly what its name
// says, so a vector reads like the manual's table.
func be16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// cstr is a String: the bytes and a terminating zero.
func cstr(s string) []byte { return append([]byte(s), 0) }

// cat joins parts; a byte or rune part is one byte.
func cat(parts ...any) []byte {
	var out []byte
	for _, p := range parts {
		switch v := p.(type) {
		case []byte:
			out = append(out, v...)
		case byte:
			out = append(out, v)
		case rune:
			out = append(out, byte(v))
		case string:
			out = append(out, v...)
		default:
			panic("cat: " + reflect.TypeOf(p).String())
		}
	}
	return out
}

// neg1 is the Int32 -1 that marks a NULL value.
var neg1 = be32(0xFFFFFFFF)

// same compares decoded values: like reflect.DeepEqual, except that a nil
// and an empty slice of elements other than bytes are the same (decoding
// into a reused value keeps its emptied slices), while a nil []byte (NULL)
// and an empty one are not.
func same(a, b any) bool { return sameValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

func sameValue(a, b reflect.Value) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer:
		return a.IsNil() == b.IsNil() && (a.IsNil() || sameValue(a.Elem(), b.Elem()))
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Type().Elem().Kind() == reflect.Uint8 && a.IsNil() != b.IsNil() {
			return false
		}
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); !bv.IsValid() || !sameValue(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	}
	return a.Interface() == b.Interface()
}

// newLike returns a new zero value of the type v points to.
func newLike[T any](v T) T { return reflect.New(reflect.TypeOf(v).Elem()).Interface().(T) }
