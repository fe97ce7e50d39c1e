package trace

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Lines are written off the forwarding path, and the output can never hold
// the traffic back. Each direction formats its lines into a buffer of its
// own, without a lock; before it waits for input it moves them to its sink
// (one uncontended lock per read, not per message). One writer goroutine
// collects the sinks every writeEvery, or sooner when one fills up, and is
// the only one that writes. A sink the writer has not emptied for a while
// (a paused pager, an unread FIFO) stops taking lines at the output's
// limit and counts the lines it refuses; once a write fails (a closed pipe)
// every later line is refused and counted at once. Forwarding never waits.
// The warnings log is an output too, so a stalled stderr holds nothing back
// either.
const (
	writeEvery = 50 * time.Millisecond
	batchSize  = 32 << 10 // a sink this full asks for a write at once
	maxPending = 4 << 20  // a sink of message lines this full drops further lines, counted, until the writer catches up
	maxLogged  = 64 << 10 // the same for warnings, which are rare: about 500 of them
	closeWait  = 2 * time.Second
)

type output struct {
	w     io.Writer
	limit int // a sink's most pending bytes

	mu    sync.Mutex // guards sinks and busy
	sinks map[*sink]bool
	busy  bool // the writer holds lines it has collected and not yet written

	// The writer goroutine's own: the sinks whose lines it took, and those
	// lines in time order.
	taken []*sink
	out   []byte

	dropped  atomic.Int64 // lines never written
	inFlight atomic.Int64 // lines of the write under way
	failed   atomic.Bool  // a write failed: nothing more can be written
	// onDrop, when set, hears the total dropped so far, at most every
	// dropReportEvery, from a goroutine of its own: neither the writer (it
	// may be the one stuck) nor a session waits for it.
	onDrop     func(total int64)
	reportedAt atomic.Int64 // Unix nanoseconds
	reporting  atomic.Bool

	kick    chan struct{}
	flushes chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// dropReportEvery spaces out the reports of dropped lines.
const dropReportEvery = time.Second

// sink is one direction's lines waiting for the writer.
type sink struct {
	o       *output
	mu      sync.Mutex
	pending []byte
	marks   []mark // where each put's lines end in pending
	closed  bool   // the direction ended: forget the sink once collected
	// The lines the writer took, its own until it collects again: taking
	// swaps them with pending, so that lines are copied once, into the
	// writer's merge.
	taken      []byte
	takenMarks []mark
	next       int // the writer's place in takenMarks as it merges
}

// mark is the end of one put's lines and the time they bear.
type mark struct {
	at  int64 // Unix nanoseconds
	end int
}

// newOutput starts the writer of w, whose sinks hold at most limit bytes;
// onDrop (may be nil) hears of dropped lines.
func newOutput(w io.Writer, limit int, onDrop func(total int64)) *output {
	o := &output{w: w, limit: limit, onDrop: onDrop, sinks: map[*sink]bool{}, kick: make(chan struct{}, 1),
		flushes: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go o.run()
	return o
}

func (o *output) run() {
	defer close(o.done)
	tick := time.NewTicker(writeEvery)
	defer tick.Stop()
	for {
		select {
		case <-o.stop:
			o.write()
			return
		case <-tick.C:
		case <-o.kick:
		case done := <-o.flushes:
			o.write()
			close(done)
			continue
		}
		o.write()
	}
}

// flush returns once every line put before it has been written or
// dropped: what a test waits for before it reads the output. It waits for
// a stalled writer too; the proxy itself never calls it.
func (o *output) flush() {
	done := make(chan struct{})
	select {
	case o.flushes <- done:
		<-done
	case <-o.done:
	}
}

// collect takes every sink's pending lines, merged by time: each sink's
// lines are in time order, and merging them puts a query's line before its
// answer's, whichever direction handed its lines over first. It holds the
// sinks only while taking their lines, never while merging or writing.
func (o *output) collect() []byte {
	o.taken = o.taken[:0]
	o.mu.Lock()
	o.busy = true
	for s := range o.sinks {
		s.mu.Lock()
		if len(s.pending) > 0 {
			s.pending, s.taken = s.taken[:0], s.pending
			s.marks, s.takenMarks = s.takenMarks[:0], s.marks
			s.next = 0
			o.taken = append(o.taken, s)
		}
		if s.closed {
			delete(o.sinks, s)
		}
		s.mu.Unlock()
	}
	o.mu.Unlock()
	o.out = o.out[:0]
	h := o.taken // a heap of the sinks by the time of the lines each has next
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(h, i)
	}
	for len(h) > 0 {
		s, start := h[0], 0
		if s.next > 0 {
			start = s.takenMarks[s.next-1].end
		}
		if len(h) == 1 { // the last sink: the rest of its lines at once
			o.out = append(o.out, s.taken[start:]...)
			break
		}
		o.out = append(o.out, s.taken[start:s.takenMarks[s.next].end]...)
		if s.next++; s.next == len(s.takenMarks) {
			h[0], h = h[len(h)-1], h[:len(h)-1]
		}
		down(h, 0)
	}
	return o.out
}

// down moves h[i] down the heap h of sinks being merged (the least time
// of next lines first) to its place; container/heap's, without its calls
// through an interface for every comparison.
func down(h []*sink, i int) {
	next := func(j int) int64 { return h[j].takenMarks[h[j].next].at }
	for {
		least := i
		if l := 2*i + 1; l < len(h) && next(l) < next(least) {
			least = l
		}
		if r := 2*i + 2; r < len(h) && next(r) < next(least) {
			least = r
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}

// write writes what the sinks hold. A failed write (a closed pipe) counts
// the lines as dropped and refuses all later ones: the proxy goes on.
func (o *output) write() {
	lines := o.collect()
	if len(lines) > 0 {
		n := int64(bytes.Count(lines, []byte{'\n'}))
		if o.failed.Load() {
			o.dropN(n)
		} else {
			o.inFlight.Store(n)
			if _, err := o.w.Write(lines); err != nil {
				o.failed.Store(true)
				o.dropN(n)
			}
			o.inFlight.Store(0)
		}
	}
	o.mu.Lock()
	o.busy = false
	o.mu.Unlock()
}

func (o *output) drop(lines []byte) { o.dropN(int64(bytes.Count(lines, []byte{'\n'}))) }

// dropN counts n dropped lines and has them reported.
func (o *output) dropN(n int64) {
	o.dropped.Add(n)
	now := time.Now().UnixNano()
	if o.onDrop == nil || now-o.reportedAt.Load() < int64(dropReportEvery) || !o.reporting.CompareAndSwap(false, true) {
		return
	}
	o.reportedAt.Store(now)
	go func() {
		defer o.reporting.Store(false)
		o.onDrop(o.dropped.Load())
	}()
}

// idle reports whether every line put so far has been written (or dropped).
func (o *output) idle() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.busy {
		return false
	}
	for s := range o.sinks {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n > 0 {
			return false
		}
	}
	return true
}

// Dropped is how many lines were never written.
func (o *output) Dropped() int64 { return o.dropped.Load() }

// sink returns a new direction's sink; close it when the direction ends.
func (o *output) sink() *sink {
	s := &sink{o: o}
	o.mu.Lock()
	o.sinks[s] = true
	o.mu.Unlock()
	return s
}

// put moves lines bearing the time at to the sink, or drops them (counted)
// when the writer has fallen the output's limit behind or the output failed. It
// never waits for the writer.
func (s *sink) put(lines []byte, at time.Time) {
	if len(lines) == 0 {
		return
	}
	if s.o.failed.Load() {
		s.o.drop(lines)
		return
	}
	s.mu.Lock()
	if len(s.pending)+len(lines) > s.o.limit {
		s.mu.Unlock()
		s.o.drop(lines)
		s.o.wake()
		return
	}
	s.pending = append(s.pending, lines...)
	s.marks = append(s.marks, mark{at.UnixNano(), len(s.pending)})
	n := len(s.pending)
	s.mu.Unlock()
	if n >= batchSize {
		s.o.wake()
	}
}

// wake asks the writer to write now, without waiting for it.
func (o *output) wake() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// Write puts b as lines of the current time: a sink is an io.Writer that
// never waits (the warnings log is written through one).
func (s *sink) Write(b []byte) (int, error) {
	s.put(b, time.Now())
	return len(b), nil
}

// close hands the sink's last lines to the writer, which forgets the sink
// once it has taken them.
func (s *sink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.o.wake()
}

// close writes what was put and stops the writer. A writer stuck in a
// write (a reader that never reads) is given closeWait; what it had not
// written by then is counted as dropped.
func (o *output) close() {
	close(o.stop)
	select {
	case <-o.done:
	case <-time.After(closeWait):
		o.failed.Store(true)
		o.dropN(o.inFlight.Load())
		o.mu.Lock()
		for s := range o.sinks {
			s.mu.Lock()
			o.drop(s.pending)
			s.pending, s.marks = nil, nil
			s.mu.Unlock()
		}
		o.mu.Unlock()
	}
}
