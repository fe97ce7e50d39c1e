package trace

import (
	"io"
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
	wmu   sync.Mutex // one Write at a time on w
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
	var buf []byte
	for {
		select {
		case <-o.stop:
			o.collect(buf)
			return
		case <-tick.C:
		case <-o.kick:
		}
		buf = o.collect(buf)
	}
}

// collect writes every sink's pending lines; buf is reused between calls.
func (o *output) collect(buf []byte) []byte {
	o.mu.Lock()
	for s := range o.sinks {
		s.mu.Lock()
		buf = append(buf, s.pending...)
		s.pending = s.pending[:0]
		s.mu.Unlock()
	}
	o.mu.Unlock()
	o.write(buf)
	return buf[:0]
}

func (o *output) write(b []byte) {
	if len(b) == 0 {
		return
	}
	o.wmu.Lock()
	defer o.wmu.Unlock()
	o.w.Write(b) // a failing output (a closed pipe) must not stop the proxy
}

// sink returns a new direction's sink; close it when the direction ends.
func (o *output) sink() *sink {
	s := &sink{o: o}
	o.mu.Lock()
	o.sinks[s] = true
	o.mu.Unlock()
	return s
}

// put moves lines to the sink.
func (s *sink) put(lines []byte) {
	if len(lines) == 0 {
		return
	}
	s.mu.Lock()
	s.pending = append(s.pending, lines...)
	n := len(s.pending)
	if n >= maxPending { // the writer is behind: write them here, and wait for it
		s.o.write(s.pending)
		s.pending = s.pending[:0]
	}
	s.mu.Unlock()
	if n >= batchSize && n < maxPending {
		select {
		case s.o.kick <- struct{}{}:
		default:
		}
	}
}

// close writes what the sink holds and forgets it.
func (s *sink) close() {
	s.o.mu.Lock()
	delete(s.o.sinks, s)
	s.o.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.o.write(s.pending)
	s.pending = nil
}

// close writes what was put and stops the writer.
func (o *output) close() {
	close(o.stop)
	<-o.done
}
