package trace

import (
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
