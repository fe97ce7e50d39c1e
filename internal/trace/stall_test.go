package trace

import (
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgspec/pgspec/internal/pgtest"
)

// stalledWriter is an output nobody reads: its Write never returns until
// the test ends (a paused pager, an unread FIFO).
type stalledWriter struct{ release chan struct{} }

func (w stalledWriter) Write(b []byte) (int, error) {
	<-w.release
	return len(b), nil
}

// closedWriter is an output whose reader has gone (`pgtrace trace | head`).
type closedWriter struct{}

func (closedWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// rowsQuery returns 60,000 rows: about 6 MB of lines, more than a stalled
// output buffers before it drops lines.
const rowsQuery = "select g, repeat('x', 40) from generate_series(1, 60000) g"

// TestStalledOutputDoesNotHoldTraffic: with an output that never takes a
// line, sessions through the proxy still run to their end at full speed;
// the lines that could not be written are counted, logged and summed up,
// and the proxy is not clean.
func TestStalledOutputDoesNotHoldTraffic(t *testing.T) {
	s := pgtest.Get(t)
	for _, c := range []struct {
		name string
		out  func(t *testing.T) io.Writer
	}{
		{"stalled", func(t *testing.T) io.Writer {
			w := stalledWriter{make(chan struct{})}
			t.Cleanup(func() { close(w.release) })
			return w
		}},
		{"closed", func(*testing.T) io.Writer { return closedWriter{} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := startTrace(t, Options{Upstream: s.Addr(), Out: c.out(t)})
			start := time.Now()
			for range 3 {
				conn := connect(t, tr.addr, pgtest.SCRAMUser, nil)
				res, err := conn.SimpleQuery(rowsQuery)
				if err != nil {
					t.Fatal(err)
				}
				if len(res) != 1 || len(res[0].Rows) != 60000 {
					t.Fatalf("got %d results, want 60000 rows", len(res))
				}
				conn.Close()
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("three sessions took %s", took)
			}
			waitOpen(t, tr, 0)
			if tr.Dropped() == 0 {
				t.Fatal("no line counted as dropped")
			}
			if tr.Clean() {
				t.Error("Clean() with dropped lines")
			}
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(tr.log.String(), "; traffic is not held back") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(tr.log.String(), "; traffic is not held back") {
				t.Errorf("log does not report the dropped lines:\n%s", tr.log)
			}
			var sum strings.Builder
			tr.Summary(&sum)
			if !strings.Contains(sum.String(), "lines dropped: ") {
				t.Errorf("summary does not count dropped lines:\n%s", &sum)
			}
		})
	}
}
