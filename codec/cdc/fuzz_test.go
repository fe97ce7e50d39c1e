package cdc

import (
	"encoding/binary"
	"testing"
)

// FuzzAssembler feeds hostile streams: the first byte picks proto_version
// 1–4 (4 with parallel streaming), then messages, each an Int16 length
// and its bytes. A bad frame or order is an error, never a panic, and
// the memory limit holds (1 byte: everything held spills).
func FuzzAssembler(f *testing.F) {
	for _, s := range []*stream{streamedWorkload(f, 2, false), streamedWorkload(f, 4, true)} {
		f.Add(fuzzInput(byte(s.p.LogicalVersion), s.msgs))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		version := int(data[0]%4) + 1
		a := NewAssembler(AssemblerConfig{LogicalVersion: version, Parallel: version == 4, MemoryLimit: 1, SpillDir: t.TempDir()})
		defer a.Close()
		h := func(e Event) error {
			for _, r := range rowsOf(e) {
				for i := range r.Values {
					r.Values[i].Decode()
				}
			}
			return nil
		}
		for b := data[1:]; len(b) >= 2; {
			n := min(int(binary.BigEndian.Uint16(b)), len(b)-2)
			if a.Feed(0x10, b[2:2+n], h) != nil {
				return
			}
			b = b[2+n:]
		}
	})
}

func fuzzInput(version byte, msgs [][]byte) []byte {
	b := []byte{version - 1}
	for _, m := range msgs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(m)))
		b = append(b, m...)
	}
	return b
}

// rowsOf is the rows an event carries.
func rowsOf(e Event) []Row {
	switch e := e.(type) {
	case *Insert:
		return []Row{e.New}
	case *Update:
		return []Row{e.Old, e.New}
	case *Delete:
		return []Row{e.Old}
	}
	return nil
}
