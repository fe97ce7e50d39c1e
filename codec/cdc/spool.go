package cdc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/pgspec/pgspec/codec"
)

// DefaultMemoryLimit is how many bytes of streamed transactions a
// Consumer holds in memory when Config.MemoryLimit is 0.
const DefaultMemoryLimit = 64 << 20

// spoolBuffer is the write buffer of a spilled transaction's file.
const spoolBuffer = 32 << 10

// spools holds the streamed transactions not yet committed or aborted, as
// the pgoutput messages the server sent (each a record: Int32 length,
// Int64 WAL start, the message), so that what is held is counted exactly
// and replayed through the same decoder. Past limit bytes in memory the
// largest transactions move to files in dir.
type spools struct {
	limit int64
	dir   string
	inMem int64 // capacity of every mem buffer
	open  map[uint32]*spool
	// spilled counts the bytes written to files, for Stats.
	spilled int64
}

// spool is one streamed transaction: records [0, fileSize) in file, the
// rest in mem.
type spool struct {
	xid      uint32
	mem      []byte
	file     *os.File
	linked   bool // file is still in the directory
	w        *bufio.Writer
	fileSize int64
	// subs is where each subtransaction's first record starts: its abort
	// drops everything from there (later records belong to it or to its
	// own subtransactions, which are aborted with it).
	subs map[uint32]int64
}

func (sp *spool) size() int64 { return sp.fileSize + int64(len(sp.mem)) }

const recordHeader = 12

// start opens the held transaction xid at its first segment, or finds it
// for a later one.
func (s *spools) start(xid uint32, first bool) (*spool, error) {
	sp := s.open[xid]
	switch {
	case first && sp != nil:
		return nil, fmt.Errorf("cdc: Stream Start of transaction %d's first segment again", xid)
	case !first && sp == nil:
		return nil, fmt.Errorf("cdc: Stream Start continues transaction %d, whose first segment the stream did not carry", xid)
	case sp == nil:
		if s.open == nil {
			s.open = map[uint32]*spool{}
		}
		sp = &spool{xid: xid}
		s.open[xid] = sp
	}
	return sp, nil
}

// add holds one message of sp's transaction, sent with xid (the
// transaction's or a subtransaction's).
func (s *spools) add(sp *spool, xid uint32, walStart LSN, msg []byte) error {
	if xid != sp.xid {
		if _, ok := sp.subs[xid]; !ok {
			if sp.subs == nil {
				sp.subs = map[uint32]int64{}
			}
			sp.subs[xid] = sp.size()
		}
	}
	var h [recordHeader]byte
	binary.BigEndian.PutUint32(h[:], uint32(len(msg)))
	binary.BigEndian.PutUint64(h[4:], uint64(walStart))
	rec := len(h) + len(msg)
	// Grow sp.mem only within the limit: spill the largest held
	// transactions until the grown buffer fits, sp itself if need be.
	for sp.file == nil && len(sp.mem)+rec > cap(sp.mem) {
		grown := max(2*cap(sp.mem), len(sp.mem)+rec)
		if s.inMem-int64(cap(sp.mem))+int64(grown) <= s.limit {
			s.inMem += int64(grown - cap(sp.mem))
			sp.mem = append(make([]byte, 0, grown), sp.mem...) // cap exactly grown, unlike append's
			break
		}
		if err := s.spill(s.largest(sp)); err != nil {
			return err
		}
	}
	if sp.file != nil {
		_, err := sp.w.Write(h[:])
		if err == nil {
			_, err = sp.w.Write(msg)
		}
		sp.fileSize += int64(rec)
		s.spilled += int64(rec)
		return s.fileErr(sp, err)
	}
	sp.mem = append(append(sp.mem, h[:]...), msg...)
	return nil
}

// largest is the transaction in memory holding the most of it, sp when
// no other holds any.
func (s *spools) largest(sp *spool) *spool {
	big := sp
	for _, o := range s.open {
		if o.file == nil && cap(o.mem) > cap(big.mem) {
			big = o
		}
	}
	return big
}

// spill moves sp's records to a file of its own; what sp holds from now
// on goes there. The file is removed from the directory as soon as it is
// created (the open file lives on until it is closed, on Unix), so that a
// consumer killed with SIGKILL leaves nothing behind for the next start to
// find; where an open file cannot be removed it is removed at drop.
func (s *spools) spill(sp *spool) error {
	f, err := os.CreateTemp(s.dir, fmt.Sprintf("cdc-xid%d-*.spill", sp.xid))
	if err != nil {
		return fmt.Errorf("cdc: transaction %d holds %d bytes, past the memory limit of %d, and cannot spill: %w", sp.xid, sp.size(), s.limit, err)
	}
	sp.linked = os.Remove(f.Name()) != nil
	sp.file, sp.w = f, bufio.NewWriterSize(f, spoolBuffer)
	_, err = sp.w.Write(sp.mem)
	sp.fileSize = int64(len(sp.mem))
	s.spilled += sp.fileSize
	s.inMem -= int64(cap(sp.mem))
	sp.mem = nil
	return s.fileErr(sp, err)
}

func (s *spools) fileErr(sp *spool, err error) error {
	if err != nil {
		return fmt.Errorf("cdc: spilling transaction %d to %s: %w", sp.xid, sp.file.Name(), err)
	}
	return nil
}

// abortSub drops what subtransaction sub of sp's transaction holds.
func (s *spools) abortSub(sp *spool, sub uint32) error {
	off, ok := sp.subs[sub]
	if !ok {
		return nil // it changed nothing that was streamed
	}
	for x, o := range sp.subs {
		if o >= off {
			delete(sp.subs, x)
		}
	}
	if off >= sp.fileSize {
		sp.mem = sp.mem[:off-sp.fileSize]
		return nil
	}
	err := sp.w.Flush()
	if err == nil {
		err = sp.file.Truncate(off)
	}
	if err == nil {
		_, err = sp.file.Seek(off, io.SeekStart)
	}
	sp.fileSize = off
	s.inMem -= int64(cap(sp.mem))
	sp.mem = nil
	return s.fileErr(sp, err)
}

// drop forgets sp's transaction and removes its file.
func (s *spools) drop(sp *spool) error {
	delete(s.open, sp.xid)
	s.inMem -= int64(cap(sp.mem))
	sp.mem = nil
	if sp.file == nil {
		return nil
	}
	err := sp.file.Close()
	if sp.linked {
		err = errors.Join(err, os.Remove(sp.file.Name()))
	}
	return err
}

// close drops every held transaction.
func (s *spools) close() error {
	var errs []error
	for _, sp := range s.open {
		errs = append(errs, s.drop(sp))
	}
	return errors.Join(errs...)
}

// replay calls each with sp's messages in the order they arrived, then
// drops sp. msg is valid during the call.
func (s *spools) replay(sp *spool, each func(walStart LSN, msg []byte) error) error {
	defer s.drop(sp)
	if sp.file != nil {
		if err := sp.w.Flush(); err != nil {
			return s.fileErr(sp, err)
		}
		if _, err := sp.file.Seek(0, io.SeekStart); err != nil {
			return s.fileErr(sp, err)
		}
		r := bufio.NewReaderSize(io.LimitReader(sp.file, sp.fileSize), spoolBuffer)
		var h [recordHeader]byte
		var buf []byte
		for {
			if _, err := io.ReadFull(r, h[:]); err == io.EOF {
				break
			} else if err != nil {
				return s.fileErr(sp, err)
			}
			n := binary.BigEndian.Uint32(h[:])
			if n > codec.DefaultMaxSize {
				return fmt.Errorf("cdc: spill file %s of transaction %d is corrupt: a record of %d bytes", sp.file.Name(), sp.xid, n)
			}
			buf = slices.Grow(buf[:0], int(n))[:n]
			if _, err := io.ReadFull(r, buf); err != nil {
				return s.fileErr(sp, err)
			}
			if err := each(LSN(binary.BigEndian.Uint64(h[4:])), buf); err != nil {
				return err
			}
		}
	}
	for b := sp.mem; len(b) > 0; {
		n := int(binary.BigEndian.Uint32(b))
		if err := each(LSN(binary.BigEndian.Uint64(b[4:])), b[recordHeader:recordHeader+n]); err != nil {
			return err
		}
		b = b[recordHeader+n:]
	}
	return nil
}
