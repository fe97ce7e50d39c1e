package benchproc

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSelf reads this process: some CPU time spent, some memory resident;
// a process that does not exist is an error.
func TestSelf(t *testing.T) {
	// Spin until the kernel has counted at least one 10 ms tick.
	spun := 0
	for cpu, _ := CPU(os.Getpid()); cpu == 0 && spun < 1e9; cpu, _ = CPU(os.Getpid()) {
		for range 100000 {
			spun++
		}
	}
	if cpu, err := CPU(os.Getpid()); err != nil || cpu <= 0 {
		t.Errorf("CPU: %v, %v", cpu, err)
	}
	if rss, err := RSS(os.Getpid()); err != nil || rss < 1<<20 {
		t.Errorf("RSS: %d, %v", rss, err)
	}
	if _, err := RSS(-1); err == nil {
		t.Error("RSS of pid -1")
	}
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("Median: %v", m)
	}
	if tps, err := TPS([]byte("latency average = 0.2 ms\ntps = 19933.5 (without initial connection time)\n")); err != nil || tps != 19933.5 {
		t.Errorf("TPS: %v, %v", tps, err)
	}
	if _, err := TPS([]byte("pgbench: error: connection failed")); err == nil {
		t.Error("TPS of output without tps")
	}
	if n, err := Transactions([]byte("number of transactions actually processed: 59800\nlatency average = 0.2 ms\n")); err != nil || n != 59800 {
		t.Errorf("Transactions: %v, %v", n, err)
	}
	if _, err := Transactions([]byte("pgbench: error: connection failed")); err == nil {
		t.Error("Transactions of output without a count")
	}
	t.Setenv("BENCHPROC_N", "x")
	if n := EnvInt("BENCHPROC_N", 7); n != 7 {
		t.Errorf("EnvInt of x: %d", n)
	}
}

// TestPin starts a shell on CPU 0 whose child sleeps, moves both to the last
// CPU and reads where the kernel lets each run.
func TestPin(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := OnCPU(cmd, 0); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	allowed := func(pid int) string {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(data), "Cpus_allowed_list:")
		return strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0])
	}
	var child int
	for start := time.Now(); child == 0; time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
		child, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		if time.Since(start) > 10*time.Second {
			t.Fatal("sh started no sleep")
		}
	}
	if got := allowed(cmd.Process.Pid); got != "0" {
		t.Errorf("started on CPU 0, allowed on %q", got)
	}
	last := runtime.NumCPU() - 1
	if err := PinTree(cmd.Process.Pid, last); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{cmd.Process.Pid, child} {
		if got := allowed(pid); got != strconv.Itoa(last) {
			t.Errorf("pid %d pinned to CPU %d, allowed on %q", pid, last, got)
		}
	}
	if err := PinTree(-1, 0); err == nil {
		t.Error("PinTree of pid -1")
	}
}
