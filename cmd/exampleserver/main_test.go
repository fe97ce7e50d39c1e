package main

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgspec/pgspec/internal/pgtest"
	"github.com/pgspec/pgspec/internal/testcert"
)

const password = "example-secret"

// start runs the example server for the test: with TLS when pair is not
// nil, with SCRAM when password is not empty.
func start(t *testing.T, pair *testcert.Pair, password string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	var cert, key string
	if pair != nil {
		cert, key = pair.CertFile, pair.KeyFile
	}
	go func() {
		done <- run(ctx, "127.0.0.1:0", cert, key, scaleAccounts, password, func(a net.Addr) { addrs <- a.String() })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	select {
	case a := <-addrs:
		return a
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

// needClients skips the test where PostgreSQL's client programs are
// missing, except in CI.
func needClients(t *testing.T) {
	if _, err := os.Stat(pgtest.Bin("psql")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// client runs one of PostgreSQL's programs against addr with extra
// environment, returning its output and error.
func client(t *testing.T, addr string, env []string, prog string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgtest.Bin(prog), args...)
	cmd.Env = append(pgtest.Env(addr, pgtest.User{Name: "app", Password: password}), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPsql: psql reads rows, sees PostgreSQL's errors, copies in and out,
// in plaintext and over TLS with SCRAM (sslmode=require and verify-full).
func TestPsql(t *testing.T) {
	needClients(t)
	addr := start(t, nil, "")
	out, err := client(t, addr, nil, "psql", "-X", "-A", "-t", "-c", "SELECT name, price FROM items WHERE id = 2", "-c", "SELECT count(*) FROM pgbench_accounts")
	if want := "eraser|0.75\n100000\n"; err != nil || out != want {
		t.Errorf("psql: %v\n%q, want %q", err, out, want)
	}
	cmd := exec.Command(pgtest.Bin("psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", `\copy items (id, name) from stdin`,
		"-c", "SELECT id, name, price FROM items WHERE id = 11", "-c", `\copy items (id, name) to stdout`)
	cmd.Env = pgtest.Env(addr, pgtest.User{Name: "app"})
	cmd.Stdin = strings.NewReader("10\tfrom psql\n11\tanother\\tone\n")
	b, err := cmd.CombinedOutput()
	if want := "COPY 2\n11|another\tone|\n1\tpencil\n2\teraser\n3\truler\n10\tfrom psql\n11\tanother\tone\n"; err != nil || string(b) != want {
		t.Errorf("psql \\copy: %v\n%q\nwant %q", err, b, want)
	}
	out, err = client(t, addr, nil, "psql", "-X", "-c", "SELECT nope FROM items")
	if err == nil || !strings.Contains(out, `ERROR:  column "nope" does not exist`) {
		t.Errorf("psql with an unknown column: %v\n%s", err, out)
	}

	pair := testcert.New(t)
	tlsAddr := start(t, pair, password)
	for _, env := range [][]string{{"PGSSLMODE=require"}, {"PGSSLMODE=verify-full", "PGSSLROOTCERT=" + pair.CAFile, "PGHOST=localhost", "PGCHANNELBINDING=require"}} {
		out, err := client(t, tlsAddr, env, "psql", "-X", "-A", "-t", "-c", `\conninfo`, "-c", "SELECT name FROM items WHERE id = 1")
		if err != nil || !strings.Contains(out, "SSL connection (protocol: TLSv1.3") || !strings.HasSuffix(out, "\npencil\n") {
			t.Errorf("psql %v: %v\n%s", env, err, out)
		}
	}
	out, err = client(t, tlsAddr, []string{"PGSSLMODE=require", "PGPASSWORD=wrong"}, "psql", "-X", "-c", "SELECT 1")
	if err == nil || !strings.Contains(out, `password authentication failed for user "app"`) {
		t.Errorf("psql with a wrong password: %v\n%s", err, out)
	}
}

var processed = regexp.MustCompile(`number of transactions actually processed: (\d+)/(\d+)`)

// TestPgbench: pgbench's built-in select-only script (-S) in its three
// query modes and its built-in TPC-B-like script, with what they send
// first (the scale from pgbench_branches, the partition catalog query,
// VACUUM, TRUNCATE pgbench_history), and a custom TPC-B-like script;
// every transaction succeeds, nothing is reported as ignored, and the
// balances add up afterwards (the accounts', tellers' and branch's sums are
// equal; the history holds the last run's rows, as its TRUNCATE left it).
func TestPgbench(t *testing.T) {
	needClients(t)
	addr := start(t, nil, "")
	tpcb := filepath.Join(t.TempDir(), "tpcb.sql")
	os.WriteFile(tpcb, []byte(`\set aid random(1, 1000)
\set tid random(1, 10)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 1;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, 1, :aid, :delta, CURRENT_TIMESTAMP);
END;
`), 0o600)
	for _, args := range [][]string{
		{"-S", "-M", "simple"}, {"-S", "-M", "extended"}, {"-S", "-M", "prepared"},
		{"-b", "tpcb-like", "-M", "prepared"}, {"-n", "-M", "simple", "-f", tpcb}, {"-b", "tpcb-like", "-M", "extended"},
	} {
		out, err := client(t, addr, nil, "pgbench", append([]string{"-c", "2", "-t", "100"}, args...)...)
		m := processed.FindStringSubmatch(out)
		if err != nil || m == nil || m[1] != "200" || m[2] != "200" || !strings.Contains(out, "number of failed transactions: 0 (0.000%)") ||
			!strings.Contains(out, "scaling factor: 1\n") || strings.Contains(out, "error") {
			t.Errorf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	conn := connect(t, addr, "")
	sum := func(sql string) int64 {
		rows, _ := conn.Query(context.Background(), sql)
		total, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (int64, error) {
			var v int32
			err := r.Scan(&v)
			return int64(v), err
		})
		if err != nil {
			t.Fatal(err)
		}
		var s int64
		for _, v := range total {
			s += v
		}
		return s
	}
	accounts, tellers, branch := sum("SELECT abalance FROM pgbench_accounts"), sum("SELECT tbalance FROM pgbench_tellers"), sum("SELECT bbalance FROM pgbench_branches")
	var history int64
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pgbench_history").Scan(&history); err != nil {
		t.Fatal(err)
	}
	if accounts != tellers || tellers != branch || history != 200 {
		t.Errorf("after 600 TPC-B transactions, the last 200 after a TRUNCATE: accounts %d, tellers %d, branch %d, history %d rows", accounts, tellers, branch, history)
	}
}

// TestPgbenchCatalog: what pgbench's built-in scripts ask before they run
// gets PostgreSQL's answer for an unpartitioned pgbench_accounts in public
// (position 2 in current_schemas(true), no strategy, 0 partitions, as
// PostgreSQL 15 answers after pgbench -i), no row for a table that does
// not exist, and any other catalog query PostgreSQL's error; VACUUM is
// refused in a transaction block and TRUNCATE undone by ROLLBACK.
func TestPgbenchCatalog(t *testing.T) {
	needClients(t)
	addr := start(t, nil, "")
	missing := strings.Replace(partitionQuery, "'pgbench_accounts'", "'nope'", 1)
	out, err := client(t, addr, nil, "psql", "-X", "-A", "-t", "-c", partitionQuery, "-c", missing, "-c", "VACUUM pgbench_branches",
		"-c", "BEGIN", "-c", "TRUNCATE pgbench_accounts", "-c", "SELECT count(*) FROM pgbench_accounts", "-c", "ROLLBACK", "-c", "SELECT count(*) FROM pgbench_accounts")
	if want := "2||0\nVACUUM\nBEGIN\nTRUNCATE TABLE\n0\nROLLBACK\n100000\n"; err != nil || out != want {
		t.Errorf("psql: %v\n%q, want %q", err, out, want)
	}
	for sql, want := range map[string]string{
		"BEGIN; VACUUM pgbench_tellers":                          "ERROR:  VACUUM cannot run inside a transaction block",
		strings.Replace(partitionQuery, "limit 1", "limit 2", 1): `ERROR:  syntax error at or near "."`,
		"VACUUM pgbench_nope":                                    `ERROR:  relation "pgbench_nope" does not exist`,
	} {
		out, err := client(t, addr, nil, "psql", "-X", "-c", sql)
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("psql -c %q: %v\n%s", sql, err, out)
		}
	}
}

// connect opens a pgx connection to addr with extra settings; it is closed
// when the test ends.
func connect(t *testing.T, addr, settings string) *pgx.Conn {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, "host="+host+" port="+port+" user=app password="+password+" dbname=app sslmode=disable "+settings)
	if err != nil {
		t.Fatalf("pgx %s: %v", settings, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestPgx: pgx's Query (prepared and cached statements, binary results),
// Exec, Prepare, CopyFrom (binary COPY), a pipelined batch and a cancel
// request.
func TestPgx(t *testing.T) {
	addr := start(t, nil, password)
	conn := connect(t, addr, "")
	ctx := context.Background()
	var name string
	var price *float64
	var created time.Time
	if err := conn.QueryRow(ctx, "SELECT name, price, created FROM items WHERE id = $1", 3).Scan(&name, &price, &created); err != nil ||
		name != "ruler" || price != nil || !created.Equal(time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("QueryRow: %q %v %v, %v", name, price, created, err)
	}
	tag, err := conn.Exec(ctx, "INSERT INTO items (id, name, price) VALUES ($1, $2, $3), (5, 'stapler', 4.25)", int64(4), "glue", 2.5)
	if err != nil || tag.String() != "INSERT 0 2" {
		t.Errorf("Exec: %v, %v", tag, err)
	}
	if _, err := conn.Prepare(ctx, "byname", "SELECT id FROM items WHERE name = $1"); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := conn.QueryRow(ctx, "byname", "stapler").Scan(&id); err != nil || id != 5 {
		t.Errorf("prepared: %d, %v", id, err)
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"id", "name", "price", "created"}, pgx.CopyFromRows([][]any{
		{int64(6), "tape", 1.0, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{int64(7), "clip", nil, nil},
	}))
	if err != nil || n != 2 {
		t.Errorf("CopyFrom: %d, %v", n, err)
	}
	var count int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM items").Scan(&count); err != nil || count != 7 {
		t.Errorf("count after CopyFrom: %d, %v", count, err)
	}
	batch := &pgx.Batch{}
	batch.Queue("SELECT name FROM items WHERE id = $1", int64(6))
	batch.Queue("UPDATE items SET price = price + $1 WHERE id = $2", 0.5, int64(6))
	batch.Queue("SELECT price FROM items WHERE id = $1", int64(6))
	batch.Queue("INSERT INTO items (id, name) VALUES (1, 'duplicate')") // fails when it runs
	batch.Queue("UPDATE items SET price = 0 WHERE id = 6")              // discarded up to Sync
	br := conn.SendBatch(ctx, batch)
	var got []string
	if err := br.QueryRow().Scan(&name); err == nil {
		got = append(got, name)
	}
	if tag, err := br.Exec(); err == nil {
		got = append(got, tag.String())
	}
	if err := br.QueryRow().Scan(&price); err == nil && price != nil {
		got = append(got, strconv.FormatFloat(*price, 'f', -1, 64))
	}
	_, err = br.Exec()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" {
		t.Errorf("the batch's failing insert: %v", err)
	}
	if _, err := br.Exec(); err == nil {
		t.Error("the statement after the failed one ran")
	}
	br.Close()
	// The batch is one implicit transaction: its failure undid the update.
	if err := conn.QueryRow(ctx, "SELECT price FROM items WHERE id = 6").Scan(&price); err != nil || price == nil || *price != 1 {
		t.Errorf("after the failed batch: %v, %v", price, err)
	}
	if strings.Join(got, ",") != "tape,UPDATE 1,1.5" {
		t.Errorf("batch: %v", got)
	}

	var wg sync.WaitGroup
	wg.Go(func() {
		time.Sleep(300 * time.Millisecond)
		if err := conn.PgConn().CancelRequest(ctx); err != nil {
			t.Error(err)
		}
	})
	began := time.Now()
	_, err = conn.Exec(ctx, "SELECT pg_sleep(30)")
	wg.Wait()
	if !errors.As(err, &pe) || pe.Code != "57014" || time.Since(began) > 10*time.Second {
		t.Errorf("cancelled pg_sleep: %v after %v", err, time.Since(began))
	}
	if err := conn.QueryRow(ctx, "SELECT name FROM items WHERE id = 1").Scan(&name); err != nil || name != "pencil" {
		t.Errorf("after the cancel: %q, %v", name, err)
	}
}

// TestPgxTLS: pgx over TLS after SSLRequest and direct (sslnegotiation=
// direct, ALPN), with protocol 3.2 (a 32-byte cancel key) and 3.0 (4
// bytes), and SCRAM-SHA-256-PLUS (channel_binding=require).
func TestPgxTLS(t *testing.T) {
	pair := testcert.New(t)
	addr := start(t, pair, password)
	for _, c := range []struct {
		settings string
		keyLen   int
	}{
		{"sslmode=verify-full host=localhost channel_binding=require max_protocol_version=3.2", 32},
		{"sslmode=verify-full host=localhost sslnegotiation=direct channel_binding=require max_protocol_version=3.2", 32},
		{"sslmode=require sslnegotiation=direct max_protocol_version=3.0", 4},
	} {
		host, port, _ := net.SplitHostPort(addr)
		cfg, err := pgx.ParseConfig("host=" + host + " port=" + port + " user=app password=" + password + " " + c.settings)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.TLSConfig != nil {
			cfg.TLSConfig.RootCAs = pair.Roots
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		conn, err := pgx.ConnectConfig(ctx, cfg)
		cancel()
		if err != nil {
			t.Errorf("%s: %v", c.settings, err)
			continue
		}
		var name string
		err = conn.QueryRow(context.Background(), "SELECT name FROM items WHERE id = 2").Scan(&name)
		_, isTLS := conn.PgConn().Conn().(*tls.Conn)
		if err != nil || name != "eraser" || len(conn.PgConn().SecretKey()) != c.keyLen || !isTLS {
			t.Errorf("%s: %q, %v, key %d bytes, TLS %v", c.settings, name, err, len(conn.PgConn().SecretKey()), isTLS)
		}
		conn.Close(context.Background())
	}
}

// TestBadClientsWhileBenchmarked: clients that break the protocol get
// PostgreSQL's FATAL error while pgbench runs beside them without a failed
// transaction.
func TestBadClientsWhileBenchmarked(t *testing.T) {
	needClients(t)
	addr := start(t, nil, "")
	done := make(chan string, 1)
	go func() {
		out, err := client(t, addr, nil, "pgbench", "-S", "-c", "2", "-T", "2", "-M", "prepared")
		if err != nil {
			out += err.Error()
		}
		done <- out
	}()
	for range 20 {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		// A startup with protocol 1234.5678, which no PostgreSQL speaks.
		nc.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2e})
		b := make([]byte, 512)
		k, _ := nc.Read(b)
		nc.Close()
		if !strings.Contains(string(b[:k]), "unsupported frontend protocol 1234.5678") || !strings.Contains(string(b[:k]), "0A000") {
			t.Errorf("a bad client got %q", b[:k])
		}
	}
	out := <-done
	if !strings.Contains(out, "number of failed transactions: 0 (0.000%)") || !strings.Contains(out, "number of transactions actually processed: ") {
		t.Errorf("pgbench beside bad clients:\n%s", out)
	}
}
