package trace

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/benchproc"
	"github.com/pgspec/pgspec/internal/pgtest"
	"github.com/pgspec/pgspec/internal/testcert"
)

// BenchmarkProxyPgbench is `make bench-proxy` (not CI): pgbench's select-only
// workload (-S, simple and prepared, 4 clients) against a throwaway
// PostgreSQL 15 through a plain io.Copy forwarder and through the pgtrace
// binary with its lines sent to /dev/null, then the same with TLS on both
// sides of pgtrace and of a TLS-terminating forwarder; and pgtrace's RSS
// with 500 idle authenticated sessions open.
//
// On two cores a tps ratio is only worth something when the proxy under
// test is not fighting pgbench and PostgreSQL for a core: pgbench,
// PostgreSQL and the TLS end run on CPU 0, the proxies (processes of their
// own, each sized to one core) on CPU 1. Each workload warms both proxies
// up (a discarded 1 s run each), then runs PGTRACE_BENCH_ROUNDS (21) rounds
// of the forwarder and pgtrace back to back, PGTRACE_BENCH_SECONDS (3)
// each, the order alternating, so that a change in the machine's load falls
// on both; a round's ratio compares two neighbouring runs, and the median
// round's ratio counts, printed with the least and greatest.
func BenchmarkProxyPgbench(b *testing.B) {
	s := pgtest.Get(b)
	seconds, rounds := benchproc.EnvInt("PGTRACE_BENCH_SECONDS", 3), benchproc.EnvInt("PGTRACE_BENCH_ROUNDS", 21)
	if runtime.NumCPU() < 2 {
		b.Fatalf("bench-proxy pins the proxy to a core of its own: needs 2 CPUs, has %d", runtime.NumCPU())
	}
	bin := buildPgtrace(b)
	pgbench(b, s.Addr(), "-i", "-q", "-s", "1")
	postmaster, err := s.PID()
	if err != nil {
		b.Fatal(err)
	}
	if err := benchproc.PinTree(postmaster, loadCPU); err != nil {
		b.Fatal(err)
	}

	forwarder := startForwarder(b, proxyCPU, "PGTRACE_FORWARD="+s.Addr())
	analyzer := startProcess(b, proxyCPU, bin, "trace", "--upstream", s.Addr(), "--max-conns", "1000", "--listen")
	analyzer.start(b)
	fmt.Printf("pgbench -S -c 4 -j 4 and PostgreSQL on CPU %d, the proxy under test alone on CPU %d; per workload a 1 s warm-up of each, then %d rounds of io.Copy forwarder and pgtrace back to back (%d s each, order alternating); pgtrace --format text > /dev/null\n",
		loadCPU, proxyCPU, rounds, seconds)
	fmt.Printf("%-22s %9s %9s %10s %13s %2s %s\n", "workload", "copy tps", "trace tps", "trace/copy", "[least–most]", "n", "CPU µs/tx copy | trace (trace/copy)")
	for _, mode := range []string{"simple", "prepared"} {
		b.ReportMetric(compareProxies(b, "-S -M "+mode, mode, forwarder, analyzer, seconds, rounds), "%-of-forwarder-"+mode)
	}
	analyzer.stop()
	benchTLS(b, s.Addr(), bin, seconds, rounds)

	idle := startProcess(b, proxyCPU, bin, "trace", "--upstream", fakeServer(b, true), "--max-conns", "1000", "--listen")
	idle.start(b)
	before := benchproc.MustRSS(b, idle.cmd.Process.Pid)
	var conns []net.Conn
	for range 500 {
		c, err := net.Dial("tcp", idle.addr)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
		c.Write(startupPacket(b))
	}
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, make([]byte, 15)); err != nil { // AuthenticationOk, ReadyForQuery
			b.Fatal(err)
		}
	}
	after := benchproc.MustRSS(b, idle.cmd.Process.Pid)
	fmt.Printf("pgtrace RSS: %d KiB idle, %d KiB with 500 authenticated idle sessions (%.1f KiB per session)\n",
		before>>10, after>>10, float64(after-before)/500/1024)
	b.ReportMetric(float64(after)/(1<<20), "MiB-RSS-500-idle")
	for _, c := range conns {
		c.Close()
	}
	idle.stop()
}

// The cores bench-proxy pins to: the load (pgbench, PostgreSQL, the TLS
// end standing for a server with ssl=on) and the proxy under test.
const loadCPU, proxyCPU = 0, 1

// compareProxies runs pgbench -S -M mode through copy and trace as the
// benchmark's comment says, prints the workload's line and returns the
// median round's tps ratio trace/copy in percent. CPU per transaction is
// each proxy's user+system time over all its rounds divided by the
// transactions pgbench counted in them.
func compareProxies(b *testing.B, workload, mode string, copy, trace *proxyProcess, seconds, rounds int) float64 {
	run := func(p *proxyProcess, seconds int) (tps float64, tx int64, cpu time.Duration) {
		before := benchproc.MustCPU(b, p.cmd.Process.Pid)
		out := pgbench(b, p.addr, "-n", "-S", "-M", mode, "-c", "4", "-j", "4", "-T", strconv.Itoa(seconds))
		cpu = benchproc.MustCPU(b, p.cmd.Process.Pid) - before
		tps, err := benchproc.TPS([]byte(out))
		if err == nil {
			tx, err = benchproc.Transactions([]byte(out))
		}
		if err != nil {
			b.Fatalf("pgbench through %s: %v:\n%s", p.cmd.Args, err, out)
		}
		return tps, tx, cpu
	}
	run(copy, 1) // warm-up: connections, caches, the proxies' heaps
	run(trace, 1)
	var ratios, copyTPS, traceTPS []float64
	var tx [2]int64
	var cpu [2]time.Duration
	for i := range rounds {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		var tps [2]float64
		for _, k := range order {
			t, n, c := run([]*proxyProcess{copy, trace}[k], seconds)
			tps[k], tx[k], cpu[k] = t, tx[k]+n, cpu[k]+c
		}
		copyTPS, traceTPS = append(copyTPS, tps[0]), append(traceTPS, tps[1])
		ratios = append(ratios, 100*tps[1]/tps[0])
	}
	perTx := func(k int) float64 { return float64(cpu[k].Microseconds()) / float64(tx[k]) }
	median := benchproc.Median(ratios)
	fmt.Printf("%-22s %9.0f %9.0f %9.1f%% [%5.1f–%5.1f] %2d %.1f | %.1f (%.2f×)\n", workload,
		benchproc.Median(copyTPS), benchproc.Median(traceTPS), median, slices.Min(ratios), slices.Max(ratios), rounds,
		perTx(0), perTx(1), perTx(1)/perTx(0))
	return median
}

func buildPgtrace(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "pgtrace")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/pgspec/pgspec/cmd/pgtrace").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// proxyProcess is a proxy run as a process of its own on one CPU, listening
// on addr (given to it as PGTRACE_LISTEN, and after its arguments when the
// last is --listen), its stdout to /dev/null.
type proxyProcess struct {
	cmd  *exec.Cmd
	addr string
}

func startProcess(b *testing.B, cpu int, bin string, args ...string) *proxyProcess {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	if args[len(args)-1] == "--listen" {
		args = append(args, addr)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PGTRACE_LISTEN="+addr)
	if err := benchproc.OnCPU(cmd, cpu); err != nil {
		b.Fatal(err)
	}
	return &proxyProcess{cmd: cmd, addr: addr}
}

func (p *proxyProcess) start(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { null.Close() })
	p.cmd.Stdout, p.cmd.Stderr = null, os.Stderr
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	benchproc.WaitListening(b, p.addr, strings.Join(p.cmd.Args, " "))
}

func (p *proxyProcess) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Wait()
}

// benchTLS compares pgbench -S with sslmode=require through a
// TLS-terminating forwarder and through pgtrace --tls-cert --upstream-tls,
// both in front of a TLS end (on the load's core) that stands for a server
// with ssl=on (the test server has it off), as compareProxies does.
func benchTLS(b *testing.B, server, bin string, seconds, rounds int) {
	certs := testcert.New(b)
	certEnv := []string{"PGTRACE_FORWARD_CERT=" + certs.CertFile, "PGTRACE_FORWARD_KEY=" + certs.KeyFile}
	tlsServer := startForwarder(b, loadCPU, append(certEnv, "PGTRACE_FORWARD="+server)...)
	forwarder := startForwarder(b, proxyCPU, append(certEnv, "PGTRACE_FORWARD="+tlsServer.addr, "PGTRACE_FORWARD_UPSTREAM_TLS=1")...)
	analyzer := startProcess(b, proxyCPU, bin, "trace", "--upstream", tlsServer.addr, "--max-conns", "1000",
		"--tls-cert", certs.CertFile, "--tls-key", certs.KeyFile, "--upstream-tls=verify-full", "--upstream-ca", certs.CAFile,
		"--upstream-server-name", "localhost", "--listen")
	analyzer.start(b)
	for _, mode := range []string{"simple", "prepared"} {
		b.ReportMetric(compareProxies(b, "-S -M "+mode+" (TLS)", mode, forwarder, analyzer, seconds, rounds), "%-of-tls-forwarder-"+mode)
	}
	analyzer.stop()
}

// startForwarder starts TestHelperForwarder on cpu with env (its settings).
func startForwarder(b *testing.B, cpu int, env ...string) *proxyProcess {
	p := startProcess(b, cpu, os.Args[0], "-test.run=^TestHelperForwarder$", "-test.bench=^$", "-test.count=1")
	p.cmd.Env = append(p.cmd.Env, env...)
	p.start(b)
	return p
}

// TestHelperForwarder is not a test but the benchmark's baseline, run as a
// process of its own when PGTRACE_FORWARD names an upstream: a proxy that
// copies bytes both ways and does nothing else. With PGTRACE_FORWARD_CERT
// and _KEY it takes up its clients' SSLRequest with TLS first; with
// PGTRACE_FORWARD_UPSTREAM_TLS it asks its upstream for TLS.
func TestHelperForwarder(t *testing.T) {
	upstream := os.Getenv("PGTRACE_FORWARD")
	if upstream == "" {
		return // started by BenchmarkProxyPgbench only
	}
	var server *tls.Config
	if cert := os.Getenv("PGTRACE_FORWARD_CERT"); cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, os.Getenv("PGTRACE_FORWARD_KEY"))
		if err != nil {
			t.Fatal(err)
		}
		server = &tls.Config{Certificates: []tls.Certificate{pair}}
	}
	upstreamTLS := os.Getenv("PGTRACE_FORWARD_UPSTREAM_TLS") != ""
	serveAt(t, os.Getenv("PGTRACE_LISTEN"), func(c net.Conn) {
		if server != nil {
			if _, err := io.ReadFull(c, make([]byte, 8)); err != nil { // SSLRequest
				return
			}
			c.Write([]byte{'S'})
			c = tls.Server(c, server)
		}
		u, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		if upstreamTLS {
			req, _ := (&codec.SSLRequest{}).Encode(nil, codec.Params{})
			u.Write(req)
			if _, err := io.ReadFull(u, make([]byte, 1)); err != nil {
				return
			}
			u = tls.Client(u, &tls.Config{InsecureSkipVerify: true})
		}
		defer u.Close()
		go func() { io.Copy(c, u); c.Close() }()
		io.Copy(u, c)
	})
	select {} // until the benchmark kills it
}

func pgbench(b *testing.B, addr string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgtest.Bin("pgbench"), args...)
	if err := benchproc.OnCPU(cmd, loadCPU); err != nil {
		b.Fatal(err)
	}
	cmd.Env = append(pgtest.Env(addr, pgtest.Superuser), "PGSSLMODE=prefer") // TLS where the proxy offers it
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
