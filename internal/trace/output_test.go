package trace

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOutputMergesDirections: the writer puts the lines of both directions
// in the order of their times, so that a query's line comes before its
// answer's whichever direction hands its lines over first.
func TestOutputMergesDirections(t *testing.T) {
	var b syncBuffer
	o := newOutput(&b, maxPending, nil)
	front, back := o.sink(), o.sink()
	t0 := time.Now()
	back.put([]byte("answer 1\n"), t0.Add(1*time.Millisecond))
	front.put([]byte("query 1\n"), t0)
	back.put([]byte("answer 2\n"), t0.Add(3*time.Millisecond))
	front.put([]byte("query 2\n"), t0.Add(2*time.Millisecond))
	back.close()
	front.close()
	o.close()
	if got, want := b.String(), "query 1\nanswer 1\nquery 2\nanswer 2\n"; got != want {
		t.Errorf("written:\n%s\nwant:\n%s", got, want)
	}
}

// TestOutputMergesSessions: the lines of many sinks, each in time order,
// come out in the order of their times, however the sinks' times
// interleave.
func TestOutputMergesSessions(t *testing.T) {
	var b syncBuffer
	o := newOutput(&b, maxPending, nil)
	sinks := make([]*sink, 7)
	for i := range sinks {
		sinks[i] = o.sink()
	}
	t0 := time.Now()
	var want strings.Builder
	for n := range 200 {
		line := fmt.Sprintf("line %d\n", n)
		want.WriteString(line)
		// Sink n*n%7 takes line n: each sink's lines in order, the sinks' interleaved unevenly.
		sinks[n*n%7].put([]byte(line), t0.Add(time.Duration(n)*time.Microsecond))
	}
	for _, s := range sinks {
		s.close()
	}
	o.close()
	if got := b.String(); got != want.String() {
		t.Errorf("written:\n%s\nwant:\n%s", got, want.String())
	}
}
