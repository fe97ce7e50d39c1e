package trace

import (
	"cmp"
	"io"
	"slices"
	"sync"
	"time"
)

// Lines are written off the forwarding path. Each direction formats its
// lines into a buffer of its own, without a lock; before it waits for input
// it moves them to its sink (one uncontended lock per read, not per
// message). One writer goroutine collects the sinks every writeEvery, or
// sooner when one fills up, and writes them out, so that forwarding
// neither waits for the output nor wakes another goroutine per read.
const (
	writeEvery = 50 * time.Millisecond
	batchSize  = 32 << 10 // a sink this full asks for a write at once
	maxPending = 4 << 20  // a sink this full is written by its own direction: lines are never dropped
)

type output struct {
	w     io.Writer
	wmu   sync.Mutex // one collect or write at a time on w; guards buf, out, spans
	buf   []byte     // the sinks' lines, as collected
	out   []byte     // the same lines in time order
	spans []span
	mu    sync.Mutex // guards sinks
	sinks map[*sink]bool
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

// sink is one direction's lines waiting for the writer.
type sink struct {
	o       *output
	mu      sync.Mutex
	pending []byte
	marks   []mark // where each put's lines end in pending
	closed  bool   // the direction ended: forget the sink once collected
}

// mark is the end of one put's lines and the time they bear.
type mark struct {
	at  int64 // Unix nanoseconds
	end int
}

// span is one put's lines in output.buf.
type span struct {
	at         int64
	start, end int
}

func newOutput(w io.Writer) *output {
	o := &output{w: w, sinks: map[*sink]bool{}, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
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
			o.collect()
			return
		case <-tick.C:
		case <-o.kick:
		}
		o.collect()
	}
}

// collect writes every sink's pending lines. Each sink's lines are in time
// order; merging them by time puts a query's line before its answer's,
// whichever direction handed its lines over first.
func (o *output) collect() {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	o.buf, o.spans = o.buf[:0], o.spans[:0]
	o.mu.Lock()
	for s := range o.sinks {
		s.mu.Lock()
		base, start := len(o.buf), 0
		o.buf = append(o.buf, s.pending...)
		for _, m := range s.marks {
			o.spans = append(o.spans, span{m.at, base + start, base + m.end})
			start = m.end
		}
		s.pending, s.marks = s.pending[:0], s.marks[:0]
		if s.closed {
			delete(o.sinks, s)
		}
		s.mu.Unlock()
	}
	o.mu.Unlock()
	slices.SortStableFunc(o.spans, func(a, b span) int { return cmp.Compare(a.at, b.at) })
	o.out = o.out[:0]
	for _, sp := range o.spans {
		o.out = append(o.out, o.buf[sp.start:sp.end]...)
	}
	if len(o.out) > 0 {
		o.w.Write(o.out) // a failing output (a closed pipe) must not stop the proxy
	}
}

// sink returns a new direction's sink; close it when the direction ends.
func (o *output) sink() *sink {
	s := &sink{o: o}
	o.mu.Lock()
	o.sinks[s] = true
	o.mu.Unlock()
	return s
}

// put moves lines bearing the time at to the sink.
func (s *sink) put(lines []byte, at time.Time) {
	if len(lines) == 0 {
		return
	}
	s.mu.Lock()
	s.pending = append(s.pending, lines...)
	s.marks = append(s.marks, mark{at.UnixNano(), len(s.pending)})
	n := len(s.pending)
	if n >= maxPending { // the writer is behind: write them here, and wait for it
		s.o.wmu.Lock()
		s.o.w.Write(s.pending)
		s.o.wmu.Unlock()
		s.pending, s.marks = s.pending[:0], s.marks[:0]
	}
	s.mu.Unlock()
	if n >= batchSize && n < maxPending {
		select {
		case s.o.kick <- struct{}{}:
		default:
		}
	}
}

// close writes what the sink holds, with the other sinks' lines up to now
// in time order, and forgets it.
func (s *sink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.o.collect()
}

// close writes what was put and stops the writer.
func (o *output) close() {
	close(o.stop)
	<-o.done
}
