package trace

import "io"

// batchSize is how many bytes of lines a direction collects before it hands
// them to the writer; it also hands them over before it waits for input.
const batchSize = 32 << 10

// output writes lines off the forwarding path: each direction formats into
// a batch of its own and hands whole batches to one writer goroutine, so
// the forwarding goroutines neither wait for a write nor share a lock per
// line. When the writer falls more than a few batches behind, handing over
// waits: lines are never dropped, and memory stays bounded.
type output struct {
	w       io.Writer
	batches chan []byte
	free    chan []byte // written batches, for reuse
	done    chan struct{}
}

func newOutput(w io.Writer) *output {
	o := &output{w: w, batches: make(chan []byte, 64), free: make(chan []byte, 64), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		for b := range o.batches {
			o.w.Write(b) // a failing output (a closed pipe) must not stop the proxy
			select {
			case o.free <- b[:0]:
			default:
			}
		}
	}()
	return o
}

// batch returns an empty batch to fill.
func (o *output) batch() []byte {
	select {
	case b := <-o.free:
		return b
	default:
		return make([]byte, 0, batchSize+batchSize/2)
	}
}

// send hands a batch over and returns an empty one.
func (o *output) send(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	o.batches <- b
	return o.batch()
}

// close writes what was sent and stops the writer.
func (o *output) close() {
	close(o.batches)
	<-o.done
}
