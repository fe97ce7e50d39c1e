package cdc

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/atomicfile"
	"github.com/pgspec/pgspec/internal/pgtest"
)

// The crash test's child is this test binary run again with childEnv set
// to the server's address: it consumes slot cdc_crash into the file
// $CDC_OUT and starts from the last End that file holds. Like an
// application that writes to its store in batches, it keeps the
// transactions delivered in memory and stores them (rows and Ends in one
// write, made durable) only at every third batch and the last, and then
// confirms: what it was delivered and had not stored when it dies must
// come again, what it stored must not.
const childEnv = "CDC_CRASH_CHILD"

// batchRows is how many rows each batch (one transaction) of the crash
// workload inserts: batches 5 and 11 (2000 rows of 200 bytes) are far
// past logical_decoding_work_mem, streamed, and spilled past the child's
// 64 kB limit.
func batchRows(batch int) int {
	if batch == 5 || batch == 11 {
		return 2000
	}
	return 3
}

// stores says whether the child stores and confirms at the end of batch.
func stores(batch, last int) bool { return batch%3 == 0 || batch == last }

// child is what the crash child is told, by environment:
//
//	CDC_LAST         the batch to end at
//	CDC_ANNOUNCE     a batch whose delivery it announces ($CDC_OUT.delivered)
//	CDC_HANG         a batch inside whose delivery (at its 100th row) it
//	                 announces itself ($CDC_OUT.inside: its Stats and the spill
//	                 files it holds open) and waits to be killed
//	CDC_HANG_STORED  a batch after whose storing, before confirming, it waits
//	                 to be killed
//	CDC_STOP_AFTER   a batch after whose confirmation has reached the server it
//	                 stops ($CDC_OUT.stopped) and starts again from its file
//	CDC_CUT          once stopped, the bytes its next connection reads before
//	                 it breaks ($CDC_OUT.cut), after which it starts again
type child struct {
	out, spill                               string
	last, announce, hang, hangStored, stopAt int
	cut                                      int64
	stopped                                  bool
}

func env(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

func crashChild() int {
	time.AfterFunc(2*time.Minute, func() { os.Exit(3) }) // never outlive the test
	out := os.Getenv("CDC_OUT")
	ch := &child{out: out, spill: out + ".spill", last: env("CDC_LAST"), announce: env("CDC_ANNOUNCE"), hang: env("CDC_HANG"),
		hangStored: env("CDC_HANG_STORED"), stopAt: env("CDC_STOP_AFTER"), cut: int64(env("CDC_CUT"))}
	for {
		done, err := ch.consumeOnce()
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			return 1
		}
		if done {
			return 0
		}
	}
}

// consumeOnce runs one consumer from the file's last End; done says batch
// last is stored.
func (ch *child) consumeOnce() (done bool, err error) {
	start, err := storedEnd(ch.out)
	if err != nil {
		return false, err
	}
	f, err := os.OpenFile(ch.out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var c *Consumer
	var cc *cutConn
	var nc net.Conn
	defer func() { nc.Close() }()
	for attempt := 0; ; attempt++ { // the killed child's walsender may still hold the slot
		var conn *session.Conn
		conn, nc, err = dial(os.Getenv(childEnv), pgtest.Replication, true, func(nc net.Conn) net.Conn {
			cc = &cutConn{Conn: nc}
			if ch.stopped {
				cc.left = ch.cut
			}
			return cc
		})
		if err != nil {
			return false, err
		}
		c, err = New(conn, Config{Slot: "cdc_crash", Publications: []string{"cdc_crash_pub"}, CreateSlot: true, Start: start,
			MemoryLimit: 64 << 10, SpillDir: ch.spill, StatusInterval: 20 * time.Millisecond})
		var se *session.Error
		if errors.As(err, &se) && se.SQLState() == "55006" && attempt < 100 {
			nc.Close()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if err != nil {
			return false, err
		}
		break
	}
	if err := atomicfile.WriteFile(ch.out+".ready", nil, 0o644); err != nil {
		return false, err
	}
	var held []string // delivered, not stored: lost if the child dies
	rows, batch := 0, 0
	err = c.Run(func(e Event) error {
		switch e := e.(type) {
		case *Insert:
			var id, b int32
			if err := e.New.Values[0].Scan(&id); err != nil {
				return err
			}
			if err := e.New.Values[1].Scan(&b); err != nil {
				return err
			}
			batch = int(b)
			held = append(held, fmt.Sprintf("row %d %d\n", b, id))
			if rows++; rows == 100 && batch == ch.hang {
				if err := atomicfile.WriteFile(ch.out+".inside", []byte(ch.holding(c)), 0o644); err != nil {
					return err
				}
				select {} // SIGKILL comes here, mid-transaction
			}
		case *Commit:
			held = append(held, "commit "+e.EndLSN.String()+"\n")
			rows = 0
			if batch == ch.announce {
				if err := atomicfile.WriteFile(ch.out+".delivered", nil, 0o644); err != nil {
					return err
				}
			}
			if !stores(batch, ch.last) {
				return nil
			}
			if _, err := f.WriteString(strings.Join(held, "")); err != nil {
				return err
			}
			held = held[:0]
			if err := f.Sync(); err != nil {
				return err
			}
			if batch == ch.hangStored {
				if err := atomicfile.WriteFile(ch.out+".inside", nil, 0o644); err != nil {
					return err
				}
				select {} // SIGKILL comes here: stored, not confirmed
			}
			if err := c.Confirm(e.EndLSN); err != nil {
				return err
			}
			if batch == ch.last {
				done = true
				return ErrStop
			}
			if batch == ch.stopAt && !ch.stopped {
				time.Sleep(200 * time.Millisecond) // a status update or ten
				ch.stopped = true
				return ErrStop
			}
		}
		return nil
	})
	switch {
	case cc.cut:
		ch.cut = 0
		return false, atomicfile.WriteFile(ch.out+".cut", []byte(err.Error()), 0o644) // start again from the file
	case err == nil && !done:
		return false, atomicfile.WriteFile(ch.out+".stopped", nil, 0o644)
	}
	return done, err
}

// holding says what the child holds of streamed transactions: the bytes
// spilled and the spill files it has open, and names those left in the
// spill directory.
func (ch *child) holding(c *Consumer) string {
	open := 0
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, ch.spill) {
			open++
		}
	}
	names, _ := os.ReadDir(ch.spill)
	return fmt.Sprintf("spilled %d open %d listed %d", c.Stats().Spilled, open, len(names))
}

// cutConn breaks the connection once left bytes have been read (0: never).
type cutConn struct {
	net.Conn
	left int64
	cut  bool
}

func (c *cutConn) Read(b []byte) (int, error) {
	if c.left == 0 {
		return c.Conn.Read(b)
	}
	n, err := c.Conn.Read(b[:min(int64(len(b)), c.left)])
	if c.left -= int64(n); c.left == 0 {
		c.cut = true
		c.Conn.Close()
	}
	return n, err
}

// storedEnd is the last End in the child's file, 0 if none.
func storedEnd(name string) (LSN, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	defer f.Close()
	var end LSN
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "commit "); ok {
			if end, err = session.ParseLSN(s); err != nil {
				return 0, err
			}
		}
	}
	return end, sc.Err()
}

// TestCrash runs the consumer in a child process that stores in batches
// (see childEnv) through three restarts, each at a place where a wrong
// position loses or repeats transactions:
//
//  1. killed (SIGKILL) inside streamed batch 5, spilled to disk, with
//     batch 4 delivered but not stored while the stream went on and sat
//     idle: the slot must stay at batch 3, the last End stored;
//  2. restarted from batch 3, killed after storing batch 6 and before
//     confirming it: the slot still says batch 3, the child's file batch 6;
//  3. restarted from batch 6, not the slot's position; stopped after
//     confirming batch 9 while batch 10 had begun before it and not yet
//     committed (the position is inside batch 10), restarted there, its
//     connection cut inside streamed batch 11, restarted again.
//
// The file must then hold every committed row exactly once, batch by batch
// in commit order, the slot end at the last End stored, and the spill
// directory never list a file.
func TestCrash(t *testing.T) {
	su := setup(t)
	srv := pgtest.Get(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	spill := out + ".spill"
	if err := os.Mkdir(spill, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + srv.Addr(), "CDC_OUT=" + out, "CDC_LAST=12"}, env...)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { // a failed test leaves no child holding the slot
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		return cmd
	}
	waitFor := func(name string, cmd *exec.Cmd) string {
		t.Helper()
		for range 1500 {
			if b, err := os.ReadFile(name); err == nil {
				os.Remove(name)
				return string(b)
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Kill()
		t.Fatalf("%s never appeared", name)
		return ""
	}
	kill := func(cmd *exec.Cmd) {
		t.Helper()
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("child: %v, want killed", err)
		}
	}
	insert := func(c *session.Conn, b int) {
		do(t, c, fmt.Sprintf("insert into cdc_crash select %d*10000 + g, %d, repeat('c', 200) from generate_series(1, %d) g", b, b, batchRows(b)))
	}
	batch := func(b int) { insert(su, b) }
	stored := func() LSN {
		t.Helper()
		end, err := storedEnd(out)
		if err != nil {
			t.Fatal(err)
		}
		return end
	}
	slot := func() LSN {
		t.Helper()
		lsn, err := session.ParseLSN(scalar(t, su, "select confirmed_flush_lsn from pg_replication_slots where slot_name = 'cdc_crash'"))
		if err != nil {
			t.Fatal(err)
		}
		return lsn
	}
	// slotAt waits for the slot to say want and fails if it says more.
	slotAt := func(want LSN, when string) {
		t.Helper()
		got := slot()
		for i := 0; got < want && i < 250; i++ {
			time.Sleep(20 * time.Millisecond)
			got = slot()
		}
		if got != want {
			t.Fatalf("%s: the slot is confirmed at %s, want %s", when, got, want)
		}
	}
	spillClean := func(when string) {
		t.Helper()
		if names, err := os.ReadDir(spill); err != nil || len(names) != 0 {
			t.Errorf("%s: the spill directory lists %v (%v)", when, names, err)
		}
	}
	do(t, su, "truncate cdc_crash")
	t.Cleanup(func() { dropSlot(t, su, "cdc_crash") })

	// 1.
	first := run("CDC_ANNOUNCE=4", "CDC_HANG=5")
	waitFor(out+".ready", first)
	for b := 1; b <= 4; b++ {
		batch(b)
	}
	waitFor(out+".delivered", first)
	do(t, su, "insert into cdc_s values (1, 'not published to the slot')") // WAL the slot skips: an idle keepalive
	time.Sleep(300 * time.Millisecond)
	for b := 5; b <= 8; b++ {
		batch(b)
	}
	holding := waitFor(out+".inside", first)
	time.Sleep(300 * time.Millisecond)
	end3 := stored()
	slotAt(end3, "batch 4 delivered, not stored")
	var spilled, open, listed int
	if _, err := fmt.Sscanf(holding, "spilled %d open %d listed %d", &spilled, &open, &listed); err != nil || spilled == 0 || open == 0 || listed != 0 {
		t.Errorf("inside batch 5 the child held %q (%v): want bytes spilled to a file open and not listed", holding, err)
	}
	kill(first)
	spillClean("after SIGKILL mid-spill")

	// 2.
	second := run("CDC_HANG_STORED=6")
	waitFor(out+".inside", second)
	time.Sleep(300 * time.Millisecond)
	slotAt(end3, "batch 6 stored, not confirmed")
	if stored() <= end3 {
		t.Fatal("the second child stored nothing past batch 3")
	}
	kill(second)

	// 3.
	tenth, _ := connect(t, pgtest.Superuser, false)
	do(t, tenth, "begin")
	insert(tenth, 10)
	inside, err := session.ParseLSN(scalar(t, tenth, "select pg_current_wal_insert_lsn()"))
	if err != nil {
		t.Fatal(err)
	}
	batch(9)
	third := run("CDC_STOP_AFTER=9", "CDC_CUT=100000")
	waitFor(out+".stopped", third)
	end9 := stored()
	slotAt(end9, "batch 9 confirmed")
	if end9 <= inside {
		t.Fatalf("batch 9 ends at %s, before batch 10's rows (%s): the restart is not inside a transaction", end9, inside)
	}
	do(t, tenth, "commit")
	batch(11)
	batch(12)
	if err := third.Wait(); err != nil {
		t.Fatalf("third child: %v", err)
	}
	if why, err := os.ReadFile(out + ".cut"); err != nil || !strings.Contains(string(why), "use of closed network connection") {
		t.Errorf("the third child's connection was not cut: %q, %v", why, err)
	}
	spillClean("at the end")

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var order []int
	commits := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var bt, id int
		if _, err := fmt.Sscanf(line, "row %d %d", &bt, &id); err == nil {
			seen[line]++
			if len(order) == 0 || order[len(order)-1] != bt {
				order = append(order, bt)
			}
			continue
		}
		commits++
	}
	for bt := 1; bt <= 12; bt++ {
		for i := 1; i <= batchRows(bt); i++ {
			line := fmt.Sprintf("row %d %d", bt, bt*10000+i)
			if seen[line] != 1 {
				t.Errorf("%s stored %d times", line, seen[line])
			}
			delete(seen, line)
		}
	}
	if len(seen) != 0 || commits != 12 || fmt.Sprint(order) != "[1 2 3 4 5 6 7 8 9 10 11 12]" {
		t.Errorf("stored %d commits, batches in order %v, rows no batch inserted: %v", commits, order, seen)
	}
	slotAt(stored(), "at the end")
}
