package model

import (
	"slices"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// TestManual renders resolved layouts in the manual's notation. The
// expectations are read from the manual (en/<major>/protocol-message-formats.html
// and protocol-logicalrep-message-formats.html) with the overlay's decisions
// applied: BackendKeyData's secret key is an Int32 the codec carries as four
// raw bytes up to 17 and a Byten of 4 to 256 bytes under protocol 3.2 from 18.
func TestManual(t *testing.T) {
	specs, ov := loadCommitted(t)
	major := func(n int) *spec.Spec {
		for _, s := range specs {
			if s.Major == n {
				return s
			}
		}
		t.Fatalf("no pg%d", n)
		return nil
	}
	for _, c := range []struct {
		major int
		slug  string
		want  []string
	}{
		{17, "backend-key-data", []string{"Byte1('K')", "Int32 length", "Int32", "Byte4"}},
		{18, "backend-key-data", []string{"Byte1('K')", "Int32 length", "Int32", "Byten (3.0: 4 bytes) (3.2: 4–256 bytes)"}},
		{18, "parameter-description", []string{"Byte1('t')", "Int32 length", "Int16 count", "repeated { Int32 }"}},
		// protocol-logicalrep-message-formats.html, Update: Byte1('N') then TupleData.
		{14, "logical-update", []string{"Byte1('U')", "Int32 [streamed] [logical protocol 2+]", "Int32", "Byte1('K' | 'O')?",
			"TupleData [if OldKind set]", "Byte1('N')", "TupleData"}},
	} {
		l, err := Resolve(major(c.major), c.slug, ov)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range l.Items {
			got = append(got, it.Manual())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("pg%d %s: %q, want %q", c.major, c.slug, got, c.want)
		}
	}
}
