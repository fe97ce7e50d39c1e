package trace

import (
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
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
			for !strings.Contains(tr.logged(), "; traffic is not held back") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(tr.logged(), "; traffic is not held back") {
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

// TestStalledLogDoesNotHoldTraffic: with a warnings log nobody reads (a
// stalled stderr), clients past --max-conns are still refused at once, each
// refusal logged; the warnings past what the log holds are counted, summed
// up, and make the proxy not clean.
func TestStalledLogDoesNotHoldTraffic(t *testing.T) {
	log := stalledWriter{make(chan struct{})}
	tr := startTrace(t, Options{Upstream: fakeServer(t, false), MaxConns: 1, Log: log})
	t.Cleanup(func() { close(log.release) }) // before the proxy's cleanup, so that its log can be closed
	dial(t, tr.addr)
	waitOpen(t, tr, 1)
	const refused = 2000 // about 120 kB of warnings, more than the log holds
	for i := range refused {
		c, err := net.DialTimeout("tcp", tr.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write(startupPacket(t))
		m, err := codec.NewFrameReader(c).Next() // written after the warning
		c.Close()
		if err != nil || m[0] != 'E' {
			t.Fatalf("client %d past the limit: %q, %v", i, m, err)
		}
	}
	if n := tr.WarningsDropped(); n <= 0 || n >= refused {
		t.Errorf("%d of %d warnings counted as dropped", n, refused)
	}
	var sum strings.Builder
	tr.Summary(&sum)
	if tr.Clean() || !strings.Contains(sum.String(), "warnings dropped: ") {
		t.Errorf("Clean() %v, summary:\n%s", tr.Clean(), &sum)
	}
}
