package cdc

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// DefaultStatusInterval is how often a Consumer reports its positions when
// Config.StatusInterval is 0: well within wal_sender_timeout (60 s).
const DefaultStatusInterval = 10 * time.Second

// Config says what to consume.
type Config struct {
	// Slot is the replication slot; Publications the publications whose
	// tables it sends.
	Slot         string
	Publications []string
	// CreateSlot creates the slot when it does not exist (with two-phase
	// decoding when the options ask for it).
	CreateSlot bool
	// Options overrides OptionsFor(the server's major).
	Options *PluginOptions
	// Start is the position the application has durably processed
	// everything before (the End of the last Boundary it stored with its
	// data): transactions ending at or before it are not delivered, even
	// when the slot's confirmed position is older because the consumer
	// stopped before it could report it. 0 trusts the slot.
	Start LSN
	// Types decodes values (nil: a new pgtype.Map).
	Types *pgtype.Map
	// MemoryLimit and SpillDir bound streamed transactions held in memory,
	// as AssemblerConfig's do.
	MemoryLimit int64
	SpillDir    string
	// StatusInterval is how often positions are reported (0:
	// DefaultStatusInterval); a keepalive asking for a reply gets one at once.
	StatusInterval time.Duration
}

// Consumer streams a slot's changes over a replication connection.
type Consumer struct {
	conn *session.Conn
	cfg  Config
	// Major is the server's major; Options what the stream was started with.
	Major   int
	Options PluginOptions
	*Acks
	asm *Assembler

	wmu sync.Mutex // status updates come from the reader and the timer
}

// New prepares a consumer on conn, a session started with replication
// "database". It finds the slot (creating it when asked), starts
// replication from max(the slot's confirmed position, cfg.Start) and
// returns; Run then reads the stream.
func New(conn *session.Conn, cfg Config) (*Consumer, error) {
	if err := checkSlotName(cfg.Slot); err != nil {
		return nil, err
	}
	if len(cfg.Publications) == 0 {
		return nil, errors.New("cdc: no publications")
	}
	major, err := session.ParseServerVersion(conn.Server["server_version"])
	if err != nil {
		return nil, err
	}
	c := &Consumer{conn: conn, cfg: cfg, Major: major, Options: OptionsFor(major)}
	if cfg.Options != nil {
		c.Options = *cfg.Options
	}
	if err := c.Options.Check(major); err != nil {
		return nil, err
	}
	confirmed, found, err := c.slot()
	if err != nil {
		return nil, err
	}
	if !found {
		if !cfg.CreateSlot {
			return nil, fmt.Errorf("cdc: slot %s does not exist (set CreateSlot to create it)", cfg.Slot)
		}
		if err := conn.Command(createSlot(cfg.Slot, major, c.Options.TwoPhase), nil); err != nil {
			return nil, fmt.Errorf("cdc: creating slot %s: %w", cfg.Slot, err)
		}
	}
	start := max(confirmed, cfg.Start)
	c.Acks = NewAcks(start)
	c.asm = NewAssembler(AssemblerConfig{Major: major, LogicalVersion: c.Options.ProtoVersion, Parallel: c.Options.Streaming == codec.StreamingParallel,
		Types: cfg.Types, Start: start, MemoryLimit: cfg.MemoryLimit, SpillDir: cfg.SpillDir})
	cmd, err := startReplication(cfg.Slot, start, cfg.Publications, c.Options, major)
	if err != nil {
		return nil, err
	}
	if err := conn.StartReplication(cmd); err != nil {
		return nil, err
	}
	return c, nil
}

// slot reads the slot's confirmed position; found is false when there is
// no such slot. A slot of another plugin or database is an error.
func (c *Consumer) slot() (confirmed LSN, found bool, err error) {
	var row [][]byte
	err = c.conn.Exec("SELECT confirmed_flush_lsn, plugin, database = current_database() FROM pg_replication_slots WHERE slot_name = "+literal(c.cfg.Slot),
		func(m codec.Message) error {
			if d, ok := m.(*codec.DataRow); ok {
				row = d.Clone().Values
			}
			return nil
		})
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("cdc: looking up slot %s: %w", c.cfg.Slot, err)
	case row == nil:
		return 0, false, nil
	case len(row) != 3 || string(row[1]) != "pgoutput" || string(row[2]) != "t":
		return 0, false, fmt.Errorf("cdc: slot %s is not a pgoutput slot of this database (plugin %q)", c.cfg.Slot, row[1])
	case row[0] == nil:
		return 0, true, nil
	}
	confirmed, err = session.ParseLSN(string(row[0]))
	return confirmed, true, err
}

// Stats reports what the consumer holds.
func (c *Consumer) Stats() Stats { return c.asm.Stats() }

// Run reads the stream and calls h with each event until h or the
// connection fails; that error is returned (ErrStop from h ends Run with
// nil). Before it returns it reports the confirmed position once more.
// Held streamed transactions are dropped: the slot sends them again. A
// Consumer runs once; after Run, start a new one on a new connection.
func (c *Consumer) Run(h Handler) error {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { c.ticker(stop) })
	err := c.read(h)
	close(stop)
	wg.Wait()
	if errors.Is(err, ErrStop) {
		err = nil
	}
	return errors.Join(err, c.status(), c.asm.Close())
}

// ErrStop, returned by a Handler, ends Run cleanly.
var ErrStop = errors.New("cdc: stop")

func (c *Consumer) ticker(stop chan struct{}) {
	every := c.cfg.StatusInterval
	if every <= 0 {
		every = DefaultStatusInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if c.status() != nil {
				return // the reader sees the broken connection too
			}
		}
	}
}

// read is Run's loop over the stream.
func (c *Consumer) read(h Handler) error {
	deliver := func(e Event) error {
		if b, ok := e.(Boundary); ok {
			c.delivered(b.End())
		}
		return h(e)
	}
	for {
		// The session's conversation decodes the XLogData inside each
		// CopyData and the pgoutput message inside that, with the Params
		// START_REPLICATION's options and the stream's Stream Start/Stop
		// give.
		s, err := c.conn.ReceiveStep()
		if err != nil {
			return err
		}
		switch m := s.Msg.(type) {
		case *codec.CopyData:
		case *codec.ErrorResponse:
			return session.NewError(m.Fields)
		default:
			return fmt.Errorf("cdc: %s in the replication stream", m.Slug())
		}
		switch sub := s.Sub.(type) {
		case *codec.XLogData:
			if s.Logical == nil {
				return fmt.Errorf("cdc: XLogData at %s without a pgoutput message", LSN(sub.WALStart))
			}
			if err := c.asm.Take(LSN(sub.WALStart), sub.WALData, s.Logical, deliver); err != nil {
				return err
			}
			c.sent(LSN(sub.WALStart))
		case *codec.PrimaryKeepalive:
			c.keepalive(LSN(sub.ServerWALEnd), c.asm.Idle())
			if sub.ReplyRequested != 0 {
				if err := c.status(); err != nil {
					return err
				}
			}
		case nil:
			return errors.New("cdc: a CopyData the replication stream does not carry")
		default:
			return fmt.Errorf("cdc: %s in a logical replication stream", sub.Slug())
		}
	}
}

// status sends a standby status update with the positions Acks allows.
func (c *Consumer) status() error {
	written, flushed := c.Positions()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.conn.SendCopyData(session.StandbyStatus(written, flushed, flushed, time.Now(), false))
}
