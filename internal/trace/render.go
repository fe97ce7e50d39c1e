package trace

import (
	"reflect"
	"strconv"
	"sync"
	"unsafe"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// A layout is how the fields of a struct that a descriptor describes are
// printed, worked out once per descriptor from it and the Go type: where
// each field lies in the struct and what kind of value it holds, so that
// a line reads each value where it lies rather than through a
// reflect.Value per field per message.
type layout struct {
	d      *codec.MessageDescriptor
	fields []fieldLayout // by field index, as d.Fields
}

type fieldLayout struct {
	prefix string // " Name="
	offset uintptr
	value  valueLayout
	// when is the field that When names, whose value decides whether this
	// one is on the wire.
	when valueLayout
	// whenOffset is where when lies.
	whenOffset uintptr
}

// valueLayout is the kind of a value and, for arrays, slices and structs,
// what is inside.
type valueLayout struct {
	kind     reflect.Kind
	n        int          // an array's length
	bytes    bool         // a slice of bytes
	elem     *valueLayout // a slice's elements, of elemSize bytes each
	elemSize uintptr
	sub      *layout // a struct's fields
}

// layouts holds every layout made so far, by descriptor (a descriptor
// describes one Go type); formatters keep theirs with the message's name.
var layouts sync.Map // *codec.MessageDescriptor → *layout

// layoutOf is the layout of t, the struct that d describes.
func layoutOf(t reflect.Type, d *codec.MessageDescriptor) *layout {
	if l, ok := layouts.Load(d); ok {
		return l.(*layout)
	}
	l := &layout{d: d, fields: make([]fieldLayout, len(d.Fields))}
	for i := range d.Fields {
		fd := &d.Fields[i]
		sf := t.Field(i)
		fl := &l.fields[i]
		fl.prefix, fl.offset, fl.value = " "+fd.Name+"=", sf.Offset, valueLayoutOf(sf.Type, fd)
		if fd.When != nil {
			w := t.Field(fd.When.Field)
			fl.when, fl.whenOffset = valueLayout{kind: w.Type.Kind()}, w.Offset
		}
	}
	stored, _ := layouts.LoadOrStore(d, l)
	return stored.(*layout)
}

// valueLayoutOf is the layout of a value of type t in field fd (or of one
// of its elements).
func valueLayoutOf(t reflect.Type, fd *codec.FieldDescriptor) valueLayout {
	v := valueLayout{kind: t.Kind()}
	switch v.kind {
	case reflect.Array:
		v.n = t.Len()
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.bytes = true
			break
		}
		elem := valueLayoutOf(t.Elem(), fd)
		v.elem, v.elemSize = &elem, t.Elem().Size()
	case reflect.Struct:
		v.sub = layoutOf(t, fd.Elem)
	}
	return v
}

// appendFields writes the fields of the struct at ptr, laid out as l, that
// are on the wire with p, each after a separator; with omitPayload, the
// one that holds the next layer's message is left out.
func (f *formatter) appendFields(b []byte, l *layout, ptr unsafe.Pointer, p codec.Params, omitPayload bool) []byte {
	skip := -1
	if omitPayload {
		skip = l.d.Payload()
	}
	for i := range l.fields {
		fl, fd := &l.fields[i], &l.d.Fields[i]
		switch {
		case !fd.Present(p),
			fd.When != nil && !fd.Holds(byte(unsignedAt(unsafe.Add(ptr, fl.whenOffset), fl.when.kind))),
			fd.Optional && unsignedAt(unsafe.Add(ptr, fl.offset), fl.value.kind) == 0,
			i == skip:
			continue
		}
		b = append(b, fl.prefix...)
		if fd.Secret && !f.showSecrets {
			b = appendRedacted(b, lengthAt(unsafe.Add(ptr, fl.offset), &fl.value))
		} else {
			b = f.appendValue(b, fd, p, &fl.value, unsafe.Add(ptr, fl.offset))
		}
	}
	return b
}

// unsignedAt is the unsigned integer of kind k at ptr: a choice field's
// value (MessageDescriptor.OnWire reads these the same way).
func unsignedAt(ptr unsafe.Pointer, k reflect.Kind) uint64 {
	switch k {
	case reflect.Uint8:
		return uint64(*(*uint8)(ptr))
	case reflect.Uint16:
		return uint64(*(*uint16)(ptr))
	case reflect.Uint32:
		return uint64(*(*uint32)(ptr))
	case reflect.Uint64:
		return *(*uint64)(ptr)
	case reflect.Uint:
		return uint64(*(*uint)(ptr))
	}
	panic("trace: a choice field of kind " + k.String())
}

// lengthAt is the length of the string, slice or array at ptr.
func lengthAt(ptr unsafe.Pointer, v *valueLayout) int {
	switch v.kind {
	case reflect.String:
		return len(*(*string)(ptr))
	case reflect.Slice: // every slice header is laid out as a []byte's
		return len(*(*[]byte)(ptr))
	case reflect.Array:
		return v.n
	}
	panic("trace: a secret field of kind " + v.kind.String())
}

// appendValue writes the value at ptr, laid out as v, of field fd (or one
// of its elements) on the wire with p, for a text line.
func (f *formatter) appendValue(b []byte, fd *codec.FieldDescriptor, p codec.Params, v *valueLayout, ptr unsafe.Pointer) []byte {
	switch v.kind {
	case reflect.String:
		s := *(*string)(ptr)
		return f.appendBytes(b, unsafe.Slice(unsafe.StringData(s), len(s)), true) // read only
	case reflect.Uint8:
		if c := *(*uint8)(ptr); c >= 0x20 && c < 0x7f { // tags and kinds read better as characters
			return strconv.AppendQuoteRune(b, rune(c))
		}
		return strconv.AppendUint(b, uint64(*(*uint8)(ptr)), 10)
	case reflect.Uint64:
		if fd.Meaning == codec.MeaningLSN {
			return append(b, session.LSN(*(*uint64)(ptr)).String()...)
		}
		return strconv.AppendUint(b, *(*uint64)(ptr), 10)
	case reflect.Int64:
		if fd.Meaning == codec.MeaningTimestamp {
			return append(b, formatMicros(*(*int64)(ptr))...)
		}
		return strconv.AppendInt(b, *(*int64)(ptr), 10)
	case reflect.Uint16, reflect.Uint32:
		return strconv.AppendUint(b, unsignedAt(ptr, v.kind), 10)
	case reflect.Int8:
		return strconv.AppendInt(b, int64(*(*int8)(ptr)), 10)
	case reflect.Int16:
		return strconv.AppendInt(b, int64(*(*int16)(ptr)), 10)
	case reflect.Int32:
		return strconv.AppendInt(b, int64(*(*int32)(ptr)), 10)
	case reflect.Int:
		return strconv.AppendInt(b, int64(*(*int)(ptr)), 10)
	case reflect.Array: // a fixed byte array such as the MD5 salt
		return f.appendBytes(b, unsafe.Slice((*byte)(ptr), v.n), false) // read only
	case reflect.Slice:
		s := *(*[]byte)(ptr) // every slice header is laid out as a []byte's
		if v.bytes {
			if s == nil {
				return append(b, "NULL"...)
			}
			return f.appendBytes(b, s, false)
		}
		b = append(b, '[')
		shown := len(s)
		if f.maxValue > 0 {
			shown = min(shown, maxElements)
		}
		for i := range shown {
			if i > 0 {
				b = append(b, ' ')
			}
			b = f.appendValue(b, fd, p, v.elem, unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), uintptr(i)*v.elemSize))
		}
		if rest := len(s) - shown; rest > 0 {
			b = append(b, " …("...)
			b = strconv.AppendInt(b, int64(rest), 10)
			b = append(b, " more)"...)
		}
		return append(b, ']')
	case reflect.Struct:
		b = append(b, '{')
		mark := len(b)
		b = f.appendFields(b, v.sub, ptr, p, false)
		if len(b) > mark { // each field has a separator before it, the first too: drop it
			b = append(b[:mark], b[mark+1:]...)
		}
		return append(b, '}')
	}
	return append(b, '?')
}

// appendRedacted stands in for a secret: its length, never its bytes.
func appendRedacted(b []byte, n int) []byte {
	b = append(b, "<redacted "...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, " bytes>"...)
}
