package codec_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// loadModel resolves the committed spec: the round-trip test walks its
// layouts to fill every field a major has.
func loadModel(t testing.TB) *model.Model {
	t.Helper()
	fsys := os.DirFS("../spec")
	specs, err := spec.LoadAll(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := spec.LoadOverlay(fsys)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := model.Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// messagesBySlug maps each slug to a constructor of its codec type.
func messagesBySlug() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, m := range codec.NewMessages() {
		out[m.Slug()] = reflect.TypeOf(m).Elem()
	}
	return out
}

// paramSets are the states a layout can be read in.
func paramSets(major int) []codec.Params {
	var out []codec.Params
	for _, minor := range []int{0, 2} {
		for _, version := range []int{1, 4} {
			for _, streaming := range []codec.Streaming{0, codec.Streamed, codec.ParallelStreaming, codec.Streamed | codec.ParallelStreaming} {
				out = append(out, codec.Params{Major: major, ProtocolMinor: minor, LogicalVersion: version, Streaming: streaming})
			}
		}
	}
	return out
}

// filler gives every field a layout has in a state a distinct non-zero value.
type filler struct {
	n     int
	p     codec.Params
	major int
}

func (f *filler) next() int { f.n++; return f.n }

func (f *filler) present(it *model.Item, v reflect.Value) bool {
	switch it.Cond.Gate {
	case model.GateStreamed:
		if f.p.Streaming&codec.Streamed == 0 {
			return false
		}
	case model.GateParallel:
		if f.p.Streaming&codec.ParallelStreaming == 0 {
			return false
		}
	}
	if f.p.LogicalVersion < it.Cond.SinceLogical {
		return false
	}
	if w := it.Cond.When; w != nil {
		k := byte(v.FieldByName(w.Field).Uint())
		if k == 0 || len(w.Tags) > 0 && !bytes.Contains(w.Tags, []byte{k}) {
			return false
		}
	}
	return true
}

// fill sets the fields of struct v that items put on the wire.
func (f *filler) fill(v reflect.Value, items []*model.Item) {
	for _, it := range items {
		if it.Field == "" || it.Op == model.OpCount || !f.present(it, v) {
			continue
		}
		fv := v.FieldByName(it.Field)
		if !fv.IsValid() {
			panic("no field " + it.Field + " in " + v.Type().String())
		}
		switch it.Op {
		case model.OpPart:
			f.fill(fv, f.layout(it.Part).Items)
		case model.OpGroup:
			s := reflect.MakeSlice(fv.Type(), 3, 3)
			for i := range 3 {
				if it.Struct != nil {
					f.fill(s.Index(i), it.Elem)
				} else {
					s.Index(i).Set(f.value(it.Elem[len(it.Elem)-1], fv.Type().Elem(), i))
				}
			}
			fv.Set(s)
		default:
			fv.Set(f.value(it, fv.Type(), 0))
		}
	}
}

// value is a non-zero value of one scalar item; the i-th element of a
// nullable group is nil, empty or three bytes.
func (f *filler) value(it *model.Item, typ reflect.Type, i int) reflect.Value {
	v := reflect.New(typ).Elem()
	n := f.next()
	switch it.Op {
	case model.OpInt:
		if v.CanInt() {
			v.SetInt(int64(n))
		} else {
			v.SetUint(uint64(n))
		}
	case model.OpByte:
		v.SetUint(uint64('a' + n%26))
	case model.OpChoice:
		tags := it.Choice.Tags
		if it.Choice.Optional {
			tags = append([]byte{0}, tags...)
		}
		v.SetUint(uint64(tags[n%len(tags)]))
	case model.OpString:
		v.SetString(fmt.Sprintf("v%d", n))
	case model.OpBytesN:
		for j := range v.Len() {
			v.Index(j).SetUint(uint64(n + j))
		}
	case model.OpRaw:
		v.SetBytes(bytes.Repeat([]byte{byte(n)}, it.Width))
	case model.OpRest:
		size := 6
		for _, pl := range it.Lengths {
			if f.p.ProtocolMinor >= pl.Minor {
				size = min(max(size, pl.Min), pl.Max)
			}
		}
		v.SetBytes(bytes.Repeat([]byte{byte(n)}, size))
	case model.OpBytes:
		switch {
		case it.Nullable && i == 1:
		case i == 2:
			v.SetBytes([]byte{})
		default:
			v.SetBytes([]byte{byte(n), 1, 2})
		}
	default:
		panic("filler: " + it.String())
	}
	return v
}

// layout is the layout of message m in f's major.
func (f *filler) layout(m *model.Message) *model.Layout {
	if l := m.LayoutIn(f.major); l != nil {
		return l
	}
	panic("no layout of " + m.Slug)
}

// TestRoundTrip encodes every message of every major, in every state its
// layout depends on, with every field set, decodes it into a value that
// holds other data, and checks that the value and the bytes come back.
func TestRoundTrip(t *testing.T) {
	mod := loadModel(t)
	types := messagesBySlug()
	runs := 0
	for _, msg := range mod.Messages {
		typ := types[msg.Slug]
		if typ == nil {
			t.Errorf("%s: no codec type", msg.Slug)
			continue
		}
		newest := msg.Layouts[len(msg.Layouts)-1]
		for _, l := range msg.Layouts {
			for _, major := range l.Majors {
				for _, p := range paramSets(major) {
					want := reflect.New(typ)
					(&filler{p: p, major: major}).fill(want.Elem(), l.Items)
					dirty := reflect.New(typ)
					all := codec.Params{Major: newest.Majors[0], ProtocolMinor: 2, Streaming: codec.Streamed | codec.ParallelStreaming}
					(&filler{n: 1000, p: all, major: all.Major}).fill(dirty.Elem(), newest.Items)

					name := fmt.Sprintf("%s/%d/%+v", msg.GoName, major, p)
					wm, got := want.Interface().(codec.Message), dirty.Interface().(codec.Message)
					enc, err := wm.Encode(nil, p)
					if err != nil {
						t.Errorf("%s: Encode: %v", name, err)
						continue
					}
					if err := got.Decode(enc, p); err != nil {
						t.Errorf("%s: Decode: %v\n% x", name, err, enc)
						continue
					}
					if !same(got, wm) {
						t.Errorf("%s:\n got %+v\nwant %+v", name, got, wm)
					}
					again, err := got.Encode(nil, p)
					if err != nil || !bytes.Equal(again, enc) {
						t.Errorf("%s: decode then encode: %v\n got % x\nwant % x", name, err, again, enc)
					}
					jsonRoundTrip(t, name, got, enc, p)
					runs++
				}
			}
		}
	}
	if runs < len(mod.Messages)*8 {
		t.Errorf("only %d round trips", runs)
	}
	t.Logf("%d round trips over %d messages", runs, len(mod.Messages))
}
