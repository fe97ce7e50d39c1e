package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/benchproc"
)

// buildPgtrace builds the command once per test into a temporary directory.
func buildPgtrace(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pgtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// trustingUpstream is a server that lets every client in and answers each
// message after the startup packet with CommandComplete and ReadyForQuery.
func trustingUpstream(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var hello, answer []byte
	for _, m := range []codec.Message{&codec.AuthenticationOk{}, &codec.ReadyForQuery{TxStatus: 'I'}} {
		hello, _ = m.Encode(hello, codec.Params{})
	}
	for _, m := range []codec.Message{&codec.CommandComplete{CommandTag: "SELECT 1"}, &codec.ReadyForQuery{TxStatus: 'I'}} {
		answer, _ = m.Encode(answer, codec.Params{})
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				fr := codec.NewFrameReader(c)
				if _, err := fr.NextUntagged(); err != nil {
					return
				}
				c.Write(hello)
				for {
					if _, err := fr.Next(); err != nil {
						return
					}
					c.Write(answer)
				}
			}()
		}
	}()
	return l.Addr().String()
}

// startPgtrace runs the built command in front of upstream with its
// standard output going to stdout, and returns the process and the
// address it listens on.
// The log is complete once done is closed (pgtrace has exited).
func startPgtrace(t *testing.T, bin, upstream string, stdout *os.File, args ...string) (cmd *exec.Cmd, addr string, log *bytes.Buffer, done <-chan struct{}) {
	t.Helper()
	cmd = exec.Command(bin, append([]string{"trace", "--listen", "127.0.0.1:0", "--upstream", upstream}, args...)...)
	cmd.Stdout = stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatal("pgtrace printed nothing")
	}
	first := lines.Text()
	_, rest, ok := strings.Cut(first, "listening on ")
	addr, _, _ = strings.Cut(rest, ",")
	if !ok {
		t.Fatalf("pgtrace said %q", first)
	}
	log = &bytes.Buffer{}
	read := make(chan struct{})
	go func() {
		defer close(read)
		for lines.Scan() {
			log.WriteString(lines.Text() + "\n")
		}
	}()
	return cmd, addr, log, read
}

// session logs in through addr and sends each query, reading its answer.
func session(t *testing.T, addr string, queries ...string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	out, _ := (&codec.StartupMessage{ProtocolVersion: 196608, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}}).Encode(nil, codec.Params{})
	c.Write(out)
	fr := codec.NewFrameReader(c)
	readyFor := func() {
		for {
			f, err := fr.Next()
			if err != nil {
				t.Fatal(err)
			}
			if f[0] == 'Z' {
				return
			}
		}
	}
	readyFor()
	for _, q := range queries {
		out, _ = (&codec.Query{String: q}).Encode(out[:0], codec.Params{})
		if _, err := c.Write(out); err != nil {
			t.Fatal(err)
		}
		readyFor()
	}
}

// TestLargeMessageMemory: a 100 MB Query costs memory only while it is in
// flight: seconds after it, pgtrace's resident memory is back near idle.
func TestLargeMessageMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100 MB through a built pgtrace")
	}
	bin := buildPgtrace(t)
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	cmd, addr, _, _ := startPgtrace(t, bin, trustingUpstream(t), devnull)
	session(t, addr, "select 1")
	idle := benchproc.MustRSS(t, cmd.Process.Pid)
	session(t, addr, "select '"+strings.Repeat("x", 100<<20)+"'")
	var now int64
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(250 * time.Millisecond) {
		now = benchproc.MustRSS(t, cmd.Process.Pid)
		t.Logf("%4.1fs: RSS %d MiB (idle %d MiB)", time.Since(start).Seconds(), now>>20, idle>>20)
		if now < idle+32<<20 {
			return
		}
	}
	t.Errorf("RSS %d MiB 10 s after a 100 MB Query; idle %d MiB", now>>20, idle>>20)
}

// TestClosedStdout: `pgtrace trace | head` — once the reader of its output
// has gone, pgtrace goes on proxying (no SIGPIPE death), counts the lines
// it could not write, and says so when it stops.
func TestClosedStdout(t *testing.T) {
	bin := buildPgtrace(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd, addr, log, logged := startPgtrace(t, bin, trustingUpstream(t), w)
	w.Close()
	r.Close() // the reader is gone before the first line
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = fmt.Sprintf("select %d", i)
	}
	for range 3 {
		session(t, addr, queries...)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-logged
	err = cmd.Wait()
	st, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if st.Signaled() || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("pgtrace ended with %v; want exit status 1 (lines dropped)\n%s", err, log)
	}
	if !strings.Contains(log.String(), "lines dropped: ") {
		t.Errorf("stderr does not count the dropped lines:\n%s", log)
	}
}
