package codec_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// clone calls m's Clone, which every message type has.
func clone(t *testing.T, m codec.Message) codec.Message {
	t.Helper()
	fn := reflect.ValueOf(m).MethodByName("Clone")
	if !fn.IsValid() {
		t.Fatalf("%T has no Clone", m)
	}
	c, ok := fn.Call(nil)[0].Interface().(codec.Message)
	if !ok || reflect.TypeOf(c) != reflect.TypeOf(m) {
		t.Fatalf("%T.Clone returns %T", m, c)
	}
	return c
}

// TestCloneEveryMessage: for every message type, a clone of a value with
// every field set (each slice two elements long) is equal to it and stays
// so when everything in the original is overwritten.
func TestCloneEveryMessage(t *testing.T) {
	for _, m := range codec.NewMessages() {
		fill(reflect.ValueOf(m).Elem(), 1)
		want := newLike(m)
		fill(reflect.ValueOf(want).Elem(), 1)
		c := clone(t, m)
		if !reflect.DeepEqual(c, want) {
			t.Errorf("%T: clone %+v, want %+v", m, c, want)
			continue
		}
		fill(reflect.ValueOf(m).Elem(), 2) // in place: slices keep their arrays
		if !reflect.DeepEqual(c, want) {
			t.Errorf("%T: the clone changed with the original: %+v", m, c)
		}
	}
}

// TestCloneOutlivesInput: a message decoded from bytes and cloned keeps its
// values when those bytes and the decoded value are overwritten, for every
// hand-written vector; nil (NULL) and empty values stay apart.
func TestCloneOutlivesInput(t *testing.T) {
	for _, v := range vectors {
		src := bytes.Clone(v.wire)
		m := newLike(v.msg)
		if err := m.Decode(src, v.p); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		c := clone(t, m)
		for i := range src {
			src[i] = 0xA5
		}
		fill(reflect.ValueOf(m).Elem(), 3)
		if !same(c, v.msg) {
			t.Errorf("%s: clone %+v, want %+v", v.name, c, v.msg)
		}
	}
	row := &codec.DataRow{Values: [][]byte{nil, {}, []byte("x")}}
	c := row.Clone()
	if c.Values[0] != nil || c.Values[1] == nil || len(c.Values[1]) != 0 {
		t.Errorf("NULL and empty values: % q", c.Values)
	}
	if (&codec.DataRow{}).Clone().Values != nil {
		t.Error("a nil slice was cloned into a non-nil one")
	}
}

// fill sets every settable value reachable from v, in place where there is
// something already (slices keep their backing arrays), to values derived
// from seed.
func fill(v reflect.Value, seed int) {
	switch v.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		v.SetInt(int64(seed * 7))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed * 11))
	case reflect.String:
		v.SetString("s" + string(rune('a'+seed)))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				fill(v.Field(i), seed)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), seed+i)
		}
	case reflect.Slice:
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := range v.Len() {
			fill(v.Index(i), seed+i)
		}
	}
}
