package server

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// Server serves every connection of a listener with one Handler, and
// routes each CancelRequest to the session whose process ID and key it
// names (the key compared in constant time).
type Server struct {
	Config
	Handler Handler
	// OnError, when set, sees the error that ended each session (a
	// client's protocol violation, a failed authentication), nil not.
	OnError func(error)

	mu       sync.Mutex
	sessions map[uint32]*Conn
	conns    int // connections being served, for MaxConns
}

// Serve accepts connections until l is closed or ctx ends, each session
// in a goroutine of its own.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Go(func() {
			if err := s.ServeConn(ctx, nc); err != nil && s.OnError != nil {
				s.OnError(err)
			}
		})
	}
}

// ServeConn serves one connection and closes it.
func (s *Server) ServeConn(ctx context.Context, nc net.Conn) error {
	defer nc.Close()
	cfg := s.Config
	cfg.OnCancel = s.cancel
	s.mu.Lock()
	s.conns++
	cfg.full = s.MaxConns > 0 && s.conns > s.MaxConns
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.conns--
		s.mu.Unlock()
	}()
	// A shutdown does not wait for a client still in its startup phase.
	expired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(deadlinePassed); close(expired) })
	c, err := Accept(nc, &cfg)
	if testHookAccepted != nil {
		testHookAccepted()
	}
	if !stop() && err == nil {
		// The shutdown came as the start-up ended: Serve still owes the
		// session its 57P01, which needs a write deadline not in the past.
		<-expired
		nc.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		if errors.Is(err, ErrCancelRequest) {
			return nil
		}
		return err
	}
	s.mu.Lock()
	if s.sessions == nil {
		s.sessions = map[uint32]*Conn{}
	}
	s.sessions[c.ProcessID] = c
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, c.ProcessID)
		s.mu.Unlock()
	}()
	return c.Serve(ctx, s.Handler)
}

// testHookAccepted, when a test sets it, runs between Accept and the end of
// its shutdown watch: where a shutdown that races the start-up's end lands.
var testHookAccepted func()

func (s *Server) cancel(processID uint32, key []byte) {
	s.mu.Lock()
	c := s.sessions[processID]
	s.mu.Unlock()
	if c != nil && c.CheckCancel(processID, key) {
		c.Cancel()
	}
	if s.Config.OnCancel != nil {
		s.Config.OnCancel(processID, key)
	}
}
