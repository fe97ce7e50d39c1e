package cdc

import (
	"os"
	"runtime"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/benchproc"
)

// feedLarge streams one transaction of total bytes (inserts of 64 kB
// values, 64 segments) through an Assembler holding at most limit bytes in
// memory, and returns the most heap it saw in use above what was in use
// before, the largest resident set of the process it saw (benchmarks
// only), and the rows delivered. It fails tb when the Assembler holds
// more than limit in memory at any point or a row comes back wrong.
func feedLarge(tb testing.TB, total, limit int64) (peak uint64, rss int64, rows int) {
	const value = 64 << 10
	p := codec.Params{Major: 15, LogicalVersion: 2, Streaming: codec.Streamed}
	enc := func(m codec.Message, p codec.Params) []byte {
		b, err := m.Encode(nil, p)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	insert := enc(&codec.LogicalInsert{Xid: 1, RelationOID: 1, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: make([]byte, value)}}}}, p)
	rel := enc(&codec.LogicalRelation{Xid: 1, RelationOID: 1, Namespace: "public", RelationName: "big", Columns: []codec.RelationColumn{{Name: "v", DataType: 17}}}, p)
	stop := enc(&codec.LogicalStreamStop{}, p)
	commit := enc(&codec.LogicalStreamCommit{Xid: 1, CommitLSN: 1 << 40, TransactionEndLSN: 1<<40 + 8}, codec.Params{Major: 15, LogicalVersion: 2})
	n := int(total / value)
	perSegment := max(n/64, 1)

	a := NewAssembler(AssemblerConfig{Major: 15, LogicalVersion: 2, MemoryLimit: limit, SpillDir: tb.TempDir()})
	defer a.Close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	sample := func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
		if _, bench := tb.(*testing.B); bench { // reading it makes garbage the test would count
			rss = max(rss, benchproc.MustRSS(tb, os.Getpid()))
		}
		if st := a.Stats(); st.InMemory > limit {
			tb.Fatalf("holding %d bytes in memory, limit %d", st.InMemory, limit)
		}
	}
	h := func(e Event) error {
		if ins, ok := e.(*Insert); ok {
			if len(ins.New.Values[0].Raw) != value {
				tb.Fatalf("row %d: %d bytes", rows, len(ins.New.Values[0].Raw))
			}
			if rows++; rows%perSegment == 0 {
				sample()
			}
		}
		return nil
	}
	feed := func(b []byte) {
		if err := a.Feed(0x1000, b, h); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		if i%perSegment == 0 {
			if i > 0 {
				feed(stop)
			}
			feed(enc(&codec.LogicalStreamStart{Xid: 1, FirstSegment: b2i(i == 0)}, codec.Params{Major: 15, LogicalVersion: 2}))
			if i == 0 {
				feed(rel)
			}
			sample()
		}
		feed(insert)
	}
	feed(stop)
	feed(commit)
	return peak, rss, rows
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// TestMemoryBound: a 64 MB streamed transaction through a 1 MB limit
// keeps at most the limit in memory, spills the rest, and uses no more
// heap than the limit and a few buffers; every row comes back.
func TestMemoryBound(t *testing.T) {
	const total, limit = 64 << 20, 1 << 20
	peak, _, rows := feedLarge(t, total, limit)
	if rows != total/(64<<10) {
		t.Errorf("%d rows back, want %d", rows, total/(64<<10))
	}
	t.Logf("heap peak %d bytes above the start with a %d-byte limit", peak, limit)
	if peak > limit+1<<20 {
		t.Errorf("heap grew by %d bytes over a %d-byte limit", peak, limit)
	}
}

// BenchmarkStreamedGB streams a 1 GB transaction through a 16 MB limit
// (make bench-cdc; it writes 1 GB to the temporary directory) and
// reports the most heap in use above the start and the largest resident
// set of the process (the test binary, the recorded stream not loaded).
func BenchmarkStreamedGB(b *testing.B) {
	var peak uint64
	var rss int64
	for b.Loop() {
		p, r, _ := feedLarge(b, 1<<30, 16<<20)
		peak, rss = max(peak, p), max(rss, r)
	}
	b.SetBytes(1 << 30)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
}
