package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestDescriptorsMatchTheTypes: every message's descriptor names its type,
// slug and majors, and describes its Go fields one for one, element types
// and parts included, with meanings only on integers of the right width.
func TestDescriptorsMatchTheTypes(t *testing.T) {
	var check func(d *codec.MessageDescriptor, typ reflect.Type)
	seen := map[*codec.MessageDescriptor]bool{}
	check = func(d *codec.MessageDescriptor, typ reflect.Type) {
		if seen[d] {
			return
		}
		seen[d] = true
		if d.Name != typ.Name() || len(d.Fields) != typ.NumField() {
			t.Errorf("%s: descriptor %s with %d fields for %d", typ, d.Name, len(d.Fields), typ.NumField())
			return
		}
		for i := range d.Fields {
			fd, sf := &d.Fields[i], typ.Field(i)
			if fd.Name != sf.Name || fd.Majors&^codec.GeneratedMajors != 0 || fd.Majors == 0 || d.Field(fd.Name) != fd {
				t.Errorf("%s.%s: field %d described as %+v", typ.Name(), sf.Name, i, fd)
			}
			ft := sf.Type
			if ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			switch fd.Meaning {
			case codec.MeaningLSN:
				if ft.Kind() != reflect.Uint64 {
					t.Errorf("%s.%s: an LSN of type %s", typ.Name(), sf.Name, ft)
				}
			case codec.MeaningTimestamp:
				if ft.Kind() != reflect.Int64 {
					t.Errorf("%s.%s: a timestamp of type %s", typ.Name(), sf.Name, ft)
				}
			case codec.MeaningOID, codec.MeaningXid:
				if ft.Kind() != reflect.Uint32 {
					t.Errorf("%s.%s: an OID or xid of type %s", typ.Name(), sf.Name, ft)
				}
			}
			if (fd.Elem != nil) != (ft.Kind() == reflect.Struct) {
				t.Errorf("%s.%s: Elem %v for a %s", typ.Name(), sf.Name, fd.Elem, sf.Type)
			}
			if fd.Elem != nil {
				check(fd.Elem, ft)
			}
			if w := fd.When; w != nil && (w.Field >= len(d.Fields) || d.Fields[w.Field].Wire != codec.WireChoice) {
				t.Errorf("%s.%s: depends on field %d, no choice", typ.Name(), sf.Name, w.Field)
			}
		}
	}
	for _, m := range codec.NewMessages() {
		d := m.Descriptor()
		if d.Slug != m.Slug() || d.Majors != m.Majors() {
			t.Errorf("%T: descriptor says %s %#x", m, d.Slug, d.Majors)
		}
		check(d, reflect.TypeOf(m).Elem())
	}
}

// TestSecretsAreDescribed lists, reviewed by hand, the fields PostgreSQL
// never logs; the descriptors mark exactly those.
func TestSecretsAreDescribed(t *testing.T) {
	want := []string{
		"AuthenticationGSSContinue.Data", "AuthenticationSASLContinue.Data", "AuthenticationSASLFinal.Data",
		"BackendKeyData.SecretKey", "CancelRequest.SecretKey", "GSSResponse.Data", "PasswordMessage.Password",
		"SASLInitialResponse.Data", "SASLResponse.Data",
	}
	var got []string
	for _, m := range codec.NewMessages() {
		d := m.Descriptor()
		for _, fd := range d.Fields {
			if fd.Secret {
				got = append(got, d.Name+"."+fd.Name)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("secret fields:\n got %v\nwant %v", got, want)
	}
}

// TestPayloadsAreDescribed lists, reviewed by hand from the manual, the
// fields that hold a message of another layer: "The payload of each
// CopyData message" of a replication stream is a streaming replication
// message (protocol-replication.html), and a walsender's pgoutput messages
// "are encapsulated inside replication protocol WAL messages"
// (protocol-logicalrep-message-formats.html), XLogData's "section of the
// WAL data stream". The descriptors of every message and element mark
// exactly those, and Payload finds them.
func TestPayloadsAreDescribed(t *testing.T) {
	want := map[string]codec.Layer{
		"CopyData.Data":    codec.LayerStreamingReplication,
		"XLogData.WALData": codec.LayerLogicalReplication,
	}
	got := map[string]codec.Layer{}
	seen := map[*codec.MessageDescriptor]bool{}
	var walk func(d *codec.MessageDescriptor)
	walk = func(d *codec.MessageDescriptor) {
		if seen[d] {
			return
		}
		seen[d] = true
		payload := -1
		for i, fd := range d.Fields {
			if fd.Carries != 0 {
				got[d.Name+"."+fd.Name] = fd.Carries
				payload = i
			}
			if fd.Elem != nil {
				walk(fd.Elem)
			}
		}
		if d.Payload() != payload {
			t.Errorf("%s: Payload() = %d, want %d", d.Name, d.Payload(), payload)
		}
	}
	for _, m := range codec.NewMessages() {
		walk(m.Descriptor())
	}
	if !maps.Equal(got, want) {
		t.Errorf("fields carrying a layer:\n got %v\nwant %v", got, want)
	}
}

// TestDescribedPresenceIsTheWire: for every message, major and state, a
// scalar field changes the encoded bytes exactly when its descriptor says it
// is on the wire (the model fills the message; the codec encodes it).
func TestDescribedPresenceIsTheWire(t *testing.T) {
	mod := loadModel(t)
	types := messagesBySlug()
	checked, absent := 0, 0
	for _, msg := range mod.Messages {
		typ := types[msg.Slug]
		for _, l := range msg.Layouts {
			for _, major := range l.Majors {
				for _, p := range paramSets(major) {
					base := reflect.New(typ)
					(&filler{p: p, major: major}).fill(base.Elem(), l.Items)
					m := base.Interface().(codec.Message)
					enc, err := m.Encode(nil, p)
					if err != nil {
						t.Fatalf("%s/%d/%+v: %v", msg.GoName, major, p, err)
					}
					d := m.Descriptor()
					for i := range d.Fields {
						probe := reflect.New(typ)
						probe.Elem().Set(base.Elem())
						if !bump(probe.Elem().Field(i)) {
							continue
						}
						out, err := probe.Interface().(codec.Message).Encode(nil, p)
						changed := !errors.Is(err, codec.ErrNotOnWire) && (err != nil || !bytes.Equal(out, enc)) // a set field off the wire is refused, not written
						if on := d.OnWire(base.Elem(), i, p); on != changed {
							t.Errorf("%s/%d/%+v: %s is on the wire: descriptor %v, bytes %v", msg.GoName, major, p, d.Fields[i].Name, on, changed)
						} else if !on {
							absent++
						}
						checked++
					}
				}
			}
		}
	}
	if checked < 5000 || absent < 100 {
		t.Errorf("checked only %d fields, %d absent", checked, absent)
	}
	t.Log(fmt.Sprintf("%d fields checked, %d of them absent", checked, absent))
}

// bump changes an integer or string field to another valid value.
func bump(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.String:
		v.SetString(v.String() + "x")
	default:
		return false
	}
	return true
}
