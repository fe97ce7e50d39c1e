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
// PostgreSQL 15 directly, through a plain io.Copy forwarder and through the
// pgtrace binary with its lines sent to /dev/null (both proxies processes of
// their own), in one run, then the tps ratios and CPU per transaction; and pgtrace's RSS with 500 idle
// authenticated sessions open. Each workload runs PGTRACE_BENCH_ROUNDS (3)
// rounds of the three, PGTRACE_BENCH_SECONDS (5) each, and the median counts.
func BenchmarkProxyPgbench(b *testing.B) {
	s := pgtest.Get(b)
	seconds, rounds := benchproc.EnvInt("PGTRACE_BENCH_SECONDS", 5), benchproc.EnvInt("PGTRACE_BENCH_ROUNDS", 3)
	bin := buildPgtrace(b)
	pgbench(b, s.Addr(), "-i", "-q", "-s", "1")

	forwarder := startProcess(b, os.Args[0], "-test.run=^TestHelperForwarder$", "-test.bench=^$", "-test.count=1")
	forwarder.cmd.Env = append(forwarder.cmd.Env, "PGTRACE_FORWARD="+s.Addr())
	forwarder.start(b)
	analyzer := startProcess(b, bin, "trace", "--upstream", s.Addr(), "--max-conns", "1000", "--listen")
	analyzer.start(b)
	fmt.Printf("pgbench -S, 4 clients; per workload %d rounds of direct, io.Copy, pgtrace (%d s each), median tps; pgtrace --format text > /dev/null\n", rounds, seconds)
	fmt.Printf("%-22s %10s %10s %10s %12s %12s %18s\n", "workload", "direct", "io.Copy", "pgtrace", "pgtrace/copy", "copy/direct", "CPU µs/tx copy|trace")
	// CPU per transaction is steadier than tps on a busy machine; both
	// proxies are processes of their own, scheduled alike.
	cpu := map[string]func() time.Duration{"forwarder": func() time.Duration { return benchproc.MustCPU(b, forwarder.cmd.Process.Pid) }, "pgtrace": func() time.Duration { return benchproc.MustCPU(b, analyzer.cmd.Process.Pid) }}
	targets := []struct{ name, addr string }{{"direct", s.Addr()}, {"forwarder", forwarder.addr}, {"pgtrace", analyzer.addr}}
	for _, mode := range []string{"simple", "prepared"} {
		tps := map[string][]float64{}
		spent, done := map[string]time.Duration{}, map[string]float64{}
		for range rounds { // alternating, so that a change in the machine's load falls on all three
			for _, target := range targets {
				var before time.Duration
				if cpu[target.name] != nil {
					before = cpu[target.name]()
				}
				r := pgbenchTPS(b, target.addr, "-n", "-S", "-M", mode, "-c", "4", "-j", "4", "-T", strconv.Itoa(seconds))
				if cpu[target.name] != nil {
					spent[target.name] += cpu[target.name]() - before
				}
				tps[target.name] = append(tps[target.name], r)
				done[target.name] += r * float64(seconds)
			}
		}
		direct, copied, traced := benchproc.Median(tps["direct"]), benchproc.Median(tps["forwarder"]), benchproc.Median(tps["pgtrace"])
		perTx := func(name string) float64 { return float64(spent[name].Microseconds()) / done[name] }
		fmt.Printf("%-22s %10.0f %10.0f %10.0f %11.1f%% %11.1f%% %8.1f | %.1f\n", "-S -M "+mode, direct, copied, traced, 100*traced/copied, 100*copied/direct,
			perTx("forwarder"), perTx("pgtrace"))
		b.ReportMetric(100*traced/copied, "%-of-forwarder-"+mode)
	}
	analyzer.stop()
	benchTLS(b, s.Addr(), bin, seconds, rounds)

	idle := startProcess(b, bin, "trace", "--upstream", fakeServer(b, true), "--max-conns", "1000", "--listen")
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

func buildPgtrace(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "pgtrace")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/pgspec/pgspec/cmd/pgtrace").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// proxyProcess is a proxy run as a process of its own, listening on addr
// (given to it as PGTRACE_LISTEN, and after its arguments when the last is
// --listen), its stdout to /dev/null.
type proxyProcess struct {
	cmd  *exec.Cmd
	addr string
}

func startProcess(b *testing.B, bin string, args ...string) *proxyProcess {
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
	benchproc.WaitListening(b, p.addr, p.cmd.Path)
}

func (p *proxyProcess) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Wait()
}

// benchTLS runs pgbench -S with sslmode=require through a TLS-terminating
// forwarder and through pgtrace --tls-cert --upstream-tls, both in front of
// a TLS end that stands for a server with ssl=on (the test server has it
// off), in alternating rounds, and prints the median tps ratio.
func benchTLS(b *testing.B, server, bin string, seconds, rounds int) {
	certs := testcert.New(b)
	certEnv := []string{"PGTRACE_FORWARD_CERT=" + certs.CertFile, "PGTRACE_FORWARD_KEY=" + certs.KeyFile}
	helper := func(env ...string) *proxyProcess {
		p := startProcess(b, os.Args[0], "-test.run=^TestHelperForwarder$", "-test.bench=^$", "-test.count=1")
		p.cmd.Env = append(p.cmd.Env, env...)
		p.start(b)
		return p
	}
	tlsServer := helper(append(certEnv, "PGTRACE_FORWARD="+server)...)
	forwarder := helper(append(certEnv, "PGTRACE_FORWARD="+tlsServer.addr, "PGTRACE_FORWARD_UPSTREAM_TLS=1")...)
	analyzer := startProcess(b, bin, "trace", "--upstream", tlsServer.addr, "--max-conns", "1000",
		"--tls-cert", certs.CertFile, "--tls-key", certs.KeyFile, "--upstream-tls=verify-full", "--upstream-ca", certs.CAFile,
		"--upstream-server-name", "localhost", "--listen")
	analyzer.start(b)
	fmt.Printf("pgbench -S, 4 clients, sslmode=require, TLS on both sides of the proxy; %d rounds of %d s, median tps\n", rounds, seconds)
	for _, mode := range []string{"simple", "prepared"} {
		tps := map[string][]float64{}
		for range rounds {
			for name, addr := range map[string]string{"forwarder": forwarder.addr, "pgtrace": analyzer.addr} {
				tps[name] = append(tps[name], pgbenchTPS(b, addr, "-n", "-S", "-M", mode, "-c", "4", "-j", "4", "-T", strconv.Itoa(seconds)))
			}
		}
		copied, traced := benchproc.Median(tps["forwarder"]), benchproc.Median(tps["pgtrace"])
		fmt.Printf("%-22s TLS forwarder %8.0f  pgtrace %8.0f  pgtrace/forwarder %5.1f%%\n", "-S -M "+mode+" (TLS)", copied, traced, 100*traced/copied)
		b.ReportMetric(100*traced/copied, "%-of-tls-forwarder-"+mode)
	}
	analyzer.stop()
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

func pgbenchTPS(b *testing.B, addr string, args ...string) float64 {
	out := pgbench(b, addr, args...)
	tps, err := benchproc.TPS([]byte(out))
	if err != nil {
		b.Fatalf("pgbench %s: %v:\n%s", strings.Join(args, " "), err, out)
	}
	return tps
}

func pgbench(b *testing.B, addr string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgtest.Bin("pgbench"), args...)
	cmd.Env = append(pgtest.Env(addr, pgtest.Superuser), "PGSSLMODE=prefer") // TLS where the proxy offers it
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
