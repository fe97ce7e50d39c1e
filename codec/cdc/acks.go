package cdc

import (
	"fmt"
	"slices"
	"sync"
)

// Acks keeps what the server may be told: the commit boundaries delivered
// to the application, the last one it confirmed, and where the stream was
// last idle. It is safe for concurrent use: the application confirms from
// any goroutine while the consumer reads.
type Acks struct {
	mu sync.Mutex
	// pending are the boundaries delivered and not yet confirmed, in order.
	pending   []LSN
	confirmed LSN
	// idle is the server's WAL end at a keepalive that found every
	// transaction delivered: nothing before it is still to come.
	idle LSN
	// received is the end of the WAL the server has sent.
	received LSN
}

// NewAcks starts from start, the position everything before is done.
func NewAcks(start LSN) *Acks { return &Acks{confirmed: start} }

// delivered records a boundary handed to the application.
func (a *Acks) delivered(end LSN) {
	a.mu.Lock()
	a.pending = append(a.pending, end)
	a.mu.Unlock()
}

// Confirm says the application has made everything up to end, the End of
// a Boundary it received, safe. Confirming an earlier boundary again does
// nothing; a position that is no boundary delivered is an error.
func (a *Acks) Confirm(end LSN) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if end <= a.confirmed {
		return nil
	}
	if i, found := slices.BinarySearch(a.pending, end); found {
		a.confirmed = end
		a.pending = append(a.pending[:0], a.pending[i+1:]...)
		return nil
	}
	return fmt.Errorf("cdc: confirm %s: not the end of a transaction delivered and not yet confirmed", end)
}

// keepalive records the server's WAL end at a keepalive; idle says the
// stream has no transaction open or held.
func (a *Acks) keepalive(walEnd LSN, idle bool) {
	a.mu.Lock()
	if idle && walEnd > a.idle {
		a.idle = walEnd
	}
	a.received = max(a.received, walEnd)
	a.mu.Unlock()
}

// sent notes WAL the server sent.
func (a *Acks) sent(walEnd LSN) {
	a.mu.Lock()
	a.received = max(a.received, walEnd)
	a.mu.Unlock()
}

// Positions are what a standby status update reports: written is what
// arrived; flushed everything the application confirmed, or, when it has
// confirmed all it received, the last position the stream was idle at (so
// that an idle slot does not hold WAL back), as PostgreSQL's own
// subscriber does.
func (a *Acks) Positions() (written, flushed LSN) {
	a.mu.Lock()
	defer a.mu.Unlock()
	flushed = a.confirmed
	if len(a.pending) == 0 {
		flushed = max(flushed, a.idle)
	}
	return max(a.received, flushed), flushed
}

// Confirmed is the last boundary the application confirmed (the start
// until it confirms one): the Config.Start of the consumer that takes
// over when this one stops in the same process (a cut connection).
func (a *Acks) Confirmed() LSN {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.confirmed
}
