// Package benchproc measures other processes for the benchmarks that run
// servers and proxies as processes of their own: CPU time and resident
// memory from /proc, pgbench's tps, and the median of repeated samples.
package benchproc

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// CPU is a process's user and system CPU time, from /proc/PID/stat
// (clock ticks of 10 ms).
func CPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the parenthesised command name; utime and stime are the 14th and 15th.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("benchproc: /proc/%d/stat has %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("benchproc: /proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// RSS is a process's resident set size in bytes, from /proc/PID/status.
func RSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("benchproc: no VmRSS in /proc/%d/status", pid)
}

// Median is the middle of v (the upper one of an even count).
func Median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// EnvInt is the positive integer in environment variable name, def when
// it is unset or not one.
func EnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// MustCPU and MustRSS are CPU and RSS for a benchmark or test, which fails
// when the process cannot be read.
func MustCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	d, err := CPU(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func MustRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	n, err := RSS(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// TPS is the transactions per second pgbench printed in out.
func TPS(out []byte) (float64, error) {
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("benchproc: pgbench printed no tps")
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// WaitListening waits up to ten seconds for what, a process just started,
// to accept connections on addr, and fails tb if it never does.
func WaitListening(tb testing.TB, addr, what string) {
	tb.Helper()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Since(start) > 10*time.Second {
			tb.Fatalf("%s never listened on %s", what, addr)
		}
	}
}

var txLine = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)

// Transactions is the number of transactions pgbench printed in out.
func Transactions(out []byte) (int64, error) {
	m := txLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("benchproc: pgbench printed no transaction count")
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

// OnCPU makes cmd, not yet started, run on CPU cpu alone (through taskset),
// so that a Go program it runs sizes GOMAXPROCS to that one core from its start.
func OnCPU(cmd *exec.Cmd, cpu int) error {
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		return fmt.Errorf("benchproc: pinning %s to a CPU needs taskset (util-linux): %w", cmd.Path, err)
	}
	cmd.Args = append([]string{taskset, "-c", strconv.Itoa(cpu)}, cmd.Args...)
	cmd.Path = taskset
	return nil
}

// PinTree moves the running process pid, all its threads and all its
// descendants to CPU cpu; the processes they fork later inherit it.
func PinTree(pid, cpu int) error {
	out, err := exec.Command("taskset", "-a", "-p", "-c", strconv.Itoa(cpu), strconv.Itoa(pid)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("benchproc: taskset -p %d: %v: %s", pid, err, out)
	}
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return err
	}
	for _, f := range strings.Fields(string(children)) {
		child, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("benchproc: /proc/%d children: %q", pid, f)
		}
		if err := PinTree(child, cpu); err != nil {
			if _, gone := os.Stat(fmt.Sprintf("/proc/%d", child)); gone != nil {
				continue // exited meanwhile
			}
			return err
		}
	}
	return nil
}
