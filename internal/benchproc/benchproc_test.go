package benchproc

import (
	"os"
	"testing"
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
	t.Setenv("BENCHPROC_N", "x")
	if n := EnvInt("BENCHPROC_N", 7); n != 7 {
		t.Errorf("EnvInt of x: %d", n)
	}
}
