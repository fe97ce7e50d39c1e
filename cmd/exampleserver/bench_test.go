package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	wire "github.com/jeroenrinzema/psql-wire"

	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/benchproc"
	"github.com/pgspec/pgspec/internal/pgtest"
)

// BenchmarkServers is `make bench-server` (not CI): the example server
// and a github.com/jeroenrinzema/psql-wire server answering the same
// pgbench workload from the same table — pgbench's built-in select-only
// script (-S: pgbench_accounts' balance by aid), simple, extended and
// prepared, 4 clients — each a process of its own, in
// alternating rounds (EXAMPLESERVER_BENCH_ROUNDS, 3, of
// EXAMPLESERVER_BENCH_SECONDS, 5, each; the median counts). Before any
// load, each server's memory per idle session: its RSS growth with 500
// idle authenticated sessions, in a fresh process of its own (measured
// after a load run, a server whose heap the load grew and that returns it
// meanwhile shows less, even less than nothing). psql-wire's handler
// matches the one query (and the two catalog queries pgbench sends first)
// with a regular expression and a map; the example server
// lexes and plans it with its SQL, so the comparison is, if anything,
// unfair to pgspec.
func BenchmarkServers(b *testing.B) {
	if _, err := os.Stat(pgtest.Bin("pgbench")); err != nil {
		b.Skip(err)
	}
	seconds, rounds := benchproc.EnvInt("EXAMPLESERVER_BENCH_SECONDS", 5), benchproc.EnvInt("EXAMPLESERVER_BENCH_ROUNDS", 3)
	for _, name := range []string{"pgspec", "psql-wire"} {
		s := startBench(b, name)
		perSession := idleMemory(b, s, 500)
		s.stop()
		b.ReportMetric(perSession, "KiB-per-idle-session-"+name)
	}
	servers := []*benchProcess{startBench(b, "pgspec"), startBench(b, "psql-wire")}
	fmt.Printf("pgbench -S -n (built-in select-only), 4 clients; %d alternating rounds of %d s, median tps; server CPU per transaction\n", rounds, seconds)
	fmt.Printf("%-12s %12s %12s %10s %22s\n", "mode", "pgspec", "psql-wire", "ratio", "CPU µs/tx pgspec|wire")
	for _, mode := range []string{"simple", "extended", "prepared"} {
		tps := map[string][]float64{}
		spent, done := map[string]time.Duration{}, map[string]float64{}
		for range rounds {
			for _, s := range servers {
				before := benchproc.MustCPU(b, s.cmd.Process.Pid)
				r := pgbenchTPS(b, s.addr, "-S", "-n", "-M", mode, "-c", "4", "-j", "4", "-T", strconv.Itoa(seconds))
				spent[s.name] += benchproc.MustCPU(b, s.cmd.Process.Pid) - before
				tps[s.name] = append(tps[s.name], r)
				done[s.name] += r * float64(seconds)
			}
		}
		ours, theirs := benchproc.Median(tps["pgspec"]), benchproc.Median(tps["psql-wire"])
		perTx := func(name string) float64 { return float64(spent[name].Microseconds()) / done[name] }
		fmt.Printf("%-12s %12.0f %12.0f %9.2f× %10.1f | %.1f\n", mode, ours, theirs, ours/theirs, perTx("pgspec"), perTx("psql-wire"))
		b.ReportMetric(ours/theirs, "x-psql-wire-"+mode)
	}
}

// idleMemory is the RSS growth, in KiB per session, of the server s with n
// idle sessions, measured after one session came and went (what a server
// sets up once is no session's) and once the sessions settled.
func idleMemory(b *testing.B, s *benchProcess, n int) float64 {
	for _, c := range idleSessions(b, s.addr, 1) {
		c.Close()
	}
	time.Sleep(200 * time.Millisecond)
	before := benchproc.MustRSS(b, s.cmd.Process.Pid)
	conns := idleSessions(b, s.addr, n)
	time.Sleep(500 * time.Millisecond)
	after := benchproc.MustRSS(b, s.cmd.Process.Pid)
	for _, c := range conns {
		c.Close()
	}
	perSession := float64(after-before) / float64(n) / 1024
	fmt.Printf("%-10s RSS %6d KiB idle, %6d KiB with %d idle sessions: %5.1f KiB per session (a fresh process, before any load)\n", s.name, before>>10, after>>10, n, perSession)
	return perSession
}

// idleSessions opens n sessions to addr, each up to its first
// ReadyForQuery.
func idleSessions(b *testing.B, addr string, n int) []net.Conn {
	var conns []net.Conn
	for range n {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(20 * time.Second))
		if err := session.NewConn(nc).Startup(session.Config{User: "app", Protocol: session.Protocol30}); err != nil {
			b.Fatal(err)
		}
		conns = append(conns, nc)
	}
	return conns
}

// benchProcess is a server run by TestHelperBenchServer in a process of
// its own.
type benchProcess struct {
	name, addr string
	cmd        *exec.Cmd
}

func startBench(b *testing.B, name string) *benchProcess {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	p := &benchProcess{name: name, addr: probe.Addr().String()}
	probe.Close()
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestHelperBenchServer$", "-test.bench=^$", "-test.count=1")
	p.cmd.Env = append(os.Environ(), "EXAMPLESERVER_BENCH="+name, "EXAMPLESERVER_BENCH_LISTEN="+p.addr)
	p.cmd.Stderr = os.Stderr
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	benchproc.WaitListening(b, p.addr, name)
	return p
}

// stop ends the server's process; again, it does nothing.
func (p *benchProcess) stop() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// TestHelperBenchServer is not a test but BenchmarkServers' servers, run
// when EXAMPLESERVER_BENCH names one: "pgspec" (the example server) or
// "psql-wire".
func TestHelperBenchServer(t *testing.T) {
	which, addr := os.Getenv("EXAMPLESERVER_BENCH"), os.Getenv("EXAMPLESERVER_BENCH_LISTEN")
	switch which {
	case "":
		return // started by BenchmarkServers only
	case "pgspec":
		if err := run(context.Background(), addr, "", "", scaleAccounts, "", func(net.Addr) {}); err != nil {
			t.Fatal(err)
		}
	case "psql-wire":
		srv, err := wire.NewServer(psqlWireHandler(newDB(scaleAccounts)))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.ListenAndServe(addr); err != nil {
			t.Fatal(err)
		}
	}
}

var workload = regexp.MustCompile(`^(?i)SELECT abalance FROM pgbench_accounts WHERE aid = (\$1|\d+);?$`)

// catalogAnswer is the one row psql-wire's handler gives each catalog
// query pgbench sends before its built-in scripts, as the example server
// answers them.
var catalogAnswer = map[string]struct {
	cols wire.Columns
	row  []any
}{
	"select count(*) from pgbench_branches": {wire.Columns{{Name: "count", Oid: pgtype.Int8OID, Width: 8, TypeModifier: -1}}, []any{int64(1)}},
	partitionQuery: {wire.Columns{{Name: "n", Oid: pgtype.Int4OID, Width: 4, TypeModifier: -1}, {Name: "partstrat", Oid: pgtype.QCharOID, Width: 1, TypeModifier: -1},
		{Name: "count", Oid: pgtype.Int8OID, Width: 8, TypeModifier: -1}}, []any{int32(publicPosition), nil, int64(0)}},
}

// psqlWireHandler answers the benchmark's one query from d's
// pgbench_accounts, as the example server does, and pgbench's catalog
// queries from catalogAnswer.
func psqlWireHandler(d *db) wire.ParseFn {
	t := d.tables["pgbench_accounts"]
	cols := wire.Columns{{Table: int32(t.oid), Name: "abalance", AttrNo: 3, Oid: pgtype.Int4OID, Width: 4, TypeModifier: -1}}
	return func(ctx context.Context, q wire.Query) (wire.PreparedStatements, error) {
		if a, ok := catalogAnswer[q.Query]; ok {
			return wire.Prepared(wire.NewStatement(func(ctx context.Context, w wire.DataWriter, args []wire.Parameter) error {
				if err := w.Row(a.row); err != nil {
					return err
				}
				return w.Complete("SELECT 1")
			}, wire.WithColumns(a.cols))), nil
		}
		m := workload.FindStringSubmatch(strings.TrimSpace(q.Query))
		if m == nil {
			return nil, errors.New("the benchmark server answers pgbench -S only")
		}
		var params []uint32
		if m[1] == "$1" {
			params = []uint32{pgtype.Int4OID}
		}
		return wire.Prepared(wire.NewStatement(func(ctx context.Context, w wire.DataWriter, args []wire.Parameter) error {
			aid := m[1]
			if len(args) == 1 {
				v, err := args[0].Scan(pgtype.Int4OID)
				if err != nil {
					return err
				}
				aid = strconv.Itoa(int(v.(int32)))
			}
			n, err := strconv.Atoi(aid)
			if err != nil {
				return err
			}
			t.mu.RLock()
			i, ok := t.key[int32(n)]
			var balance any
			if ok {
				balance = t.rows[i][2]
			}
			t.mu.RUnlock()
			if ok {
				if err := w.Row([]any{balance}); err != nil {
					return err
				}
			}
			return w.Complete("SELECT " + strconv.Itoa(int(w.Written())))
		}, wire.WithColumns(cols), wire.WithParameters(params))), nil
	}
}

func pgbenchTPS(b *testing.B, addr string, args ...string) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgtest.Bin("pgbench"), args...)
	cmd.Env = pgtest.Env(addr, pgtest.User{Name: "app"})
	out, err := cmd.CombinedOutput()
	tps, tpsErr := benchproc.TPS(out)
	if err != nil || tpsErr != nil || !bytes.Contains(out, []byte("number of failed transactions: 0 ")) {
		b.Fatalf("pgbench %s: %v %v\n%s", strings.Join(args, " "), err, tpsErr, out)
	}
	return tps
}
