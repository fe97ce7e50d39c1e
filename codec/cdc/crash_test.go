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
	"github.com/pgspec/pgspec/internal/pgtest"
)

// The crash test's child is this test binary run again with childEnv set
// to the server's address: it consumes slot cdc_crash into the file
// $CDC_OUT, each transaction's rows and its End in one write made durable
// before it confirms, and starts from the last End that file holds.
const childEnv = "CDC_CRASH_CHILD"

// batchRows is how many rows each batch of the crash workload inserts:
// batch 5 (2000 rows of 200 bytes) is far past logical_decoding_work_mem
// and streamed.
func batchRows(batch int) int {
	if batch == 5 {
		return 2000
	}
	return 3
}

// crashChild consumes until it has stored batch $CDC_LAST. With $CDC_HANG
// set to a batch it stops inside that batch's transaction (having
// announced it in $CDC_OUT.inside) and waits to be killed; with $CDC_CUT
// set to a byte count its first connection breaks once that much of the
// stream has arrived, and it carries on with a new one.
func crashChild() int {
	if err := runChild(); err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		return 1
	}
	return 0
}

func runChild() error {
	out := os.Getenv("CDC_OUT")
	last, _ := strconv.Atoi(os.Getenv("CDC_LAST"))
	hang, _ := strconv.Atoi(os.Getenv("CDC_HANG"))
	cut, _ := strconv.ParseInt(os.Getenv("CDC_CUT"), 10, 64)
	time.AfterFunc(2*time.Minute, func() { os.Exit(3) }) // never outlive the test
	f, err := os.OpenFile(out, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		done, err := consumeOnce(f, last, hang, &cut)
		if done || err != nil {
			return err
		}
	}
}

// consumeOnce runs one consumer from the file's last End; done says batch
// last is stored.
func consumeOnce(f *os.File, last, hang int, cut *int64) (done bool, err error) {
	start, err := storedEnd(f.Name())
	if err != nil {
		return false, err
	}
	var c *Consumer
	var cc *cutConn
	for attempt := 0; ; attempt++ { // the killed child's walsender may still hold the slot
		conn, nc, err := dial(os.Getenv(childEnv), pgtest.Replication, true, func(nc net.Conn) net.Conn {
			cc = &cutConn{Conn: nc, left: *cut}
			return cc
		})
		if err != nil {
			return false, err
		}
		c, err = New(conn, Config{Slot: "cdc_crash", Publications: []string{"cdc_crash_pub"}, CreateSlot: true, Start: start,
			MemoryLimit: 64 << 10, SpillDir: filepath.Dir(f.Name()), StatusInterval: 20 * time.Millisecond})
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
	if err := os.WriteFile(f.Name()+".ready", nil, 0o644); err != nil {
		return false, err
	}
	var rows []string
	err = c.Run(func(e Event) error {
		switch e := e.(type) {
		case *Insert:
			var id, batch int32
			if err := e.New.Values[0].Scan(&id); err != nil {
				return err
			}
			if err := e.New.Values[1].Scan(&batch); err != nil {
				return err
			}
			rows = append(rows, fmt.Sprintf("row %d %d\n", batch, id))
			if len(rows) == 100 && int(batch) == hang {
				if err := os.WriteFile(f.Name()+".inside", nil, 0o644); err != nil {
					return err
				}
				select {} // SIGKILL comes here, mid-transaction
			}
			if int(batch) == last && len(rows) == batchRows(last) {
				done = true
			}
		case *Commit:
			rec := strings.Join(rows, "") + "commit " + e.EndLSN.String() + "\n"
			rows = rows[:0]
			if _, err := f.WriteString(rec); err != nil {
				return err
			}
			if err := f.Sync(); err != nil {
				return err
			}
			if err := c.Confirm(e.EndLSN); err != nil {
				return err
			}
			if done {
				return ErrStop
			}
		}
		return nil
	})
	if cc.wasCut {
		*cut = 0
		return false, os.WriteFile(f.Name()+".cut", []byte(err.Error()), 0o644) // start again from the file
	}
	return done, err
}

// cutConn breaks the connection once left bytes have been read (0: never).
type cutConn struct {
	net.Conn
	left   int64
	wasCut bool
}

func (c *cutConn) Read(b []byte) (int, error) {
	if c.left == 0 {
		return c.Conn.Read(b)
	}
	n, err := c.Conn.Read(b[:min(int64(len(b)), c.left)])
	if c.left -= int64(n); c.left == 0 {
		c.wasCut = true
		c.Conn.Close()
	}
	return n, err
}

// storedEnd is the last End in the child's file, 0 if none.
func storedEnd(name string) (LSN, error) {
	f, err := os.Open(name)
	if err != nil {
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

// TestCrash kills the consumer (a child process, SIGKILL) in the middle of
// a streamed transaction, commits more while it is down, then restarts it
// and cuts its connection in the middle of another transaction: the file
// the child keeps must hold every committed row exactly once, batch by
// batch in commit order, and the slot must end at the last End confirmed.
func TestCrash(t *testing.T) {
	su := setup(t)
	srv := pgtest.Get(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	child := func(env ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + srv.Addr(), "CDC_OUT=" + out}, env...)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	waitFor := func(name string, cmd *exec.Cmd) {
		t.Helper()
		for range 1500 {
			if _, err := os.Stat(name); err == nil {
				os.Remove(name)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Kill()
		t.Fatalf("%s never appeared", name)
	}
	batch := func(b int) {
		do(t, su, fmt.Sprintf("insert into cdc_crash select %d*10000 + g, %d, repeat('c', 200) from generate_series(1, %d) g", b, b, batchRows(b)))
	}
	do(t, su, "truncate cdc_crash")
	t.Cleanup(func() { dropSlot(t, su, "cdc_crash") })

	first := child("CDC_LAST=10", "CDC_HANG=5")
	waitFor(out+".ready", first)
	for b := 1; b <= 8; b++ {
		batch(b)
	}
	waitFor(out+".inside", first)
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child: %v, want killed", err)
	}
	batch(9)
	batch(10)
	second := child("CDC_LAST=10", "CDC_CUT=200000") // inside batch 5, streamed again from its start
	if err := second.Wait(); err != nil {
		t.Fatalf("restarted child: %v", err)
	}

	if why, err := os.ReadFile(out + ".cut"); err != nil || !strings.Contains(string(why), "use of closed network connection") {
		t.Errorf("the restarted child's connection was not cut: %q, %v", why, err)
	}
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
	for bt := 1; bt <= 10; bt++ {
		for i := 1; i <= batchRows(bt); i++ {
			line := fmt.Sprintf("row %d %d", bt, bt*10000+i)
			if seen[line] != 1 {
				t.Errorf("%s stored %d times", line, seen[line])
			}
			delete(seen, line)
		}
	}
	if len(seen) != 0 || commits != 10 || fmt.Sprint(order) != "[1 2 3 4 5 6 7 8 9 10]" {
		t.Errorf("stored %d commits, batches in order %v, rows no batch inserted: %v", commits, order, seen)
	}
	end, err := storedEnd(out)
	if err != nil {
		t.Fatal(err)
	}
	var slot string
	for range 250 {
		if slot = scalar(t, su, "select confirmed_flush_lsn from pg_replication_slots where slot_name = 'cdc_crash'"); slot == end.String() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if slot != end.String() {
		t.Errorf("slot confirmed at %s, want the last End stored, %s", slot, end)
	}
}
