package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestRun runs the client against PostgreSQL 15 as the SCRAM replication
// user: the server negotiates protocol 3.0, and every step prints what the
// server computed.
func TestRun(t *testing.T) {
	s := pgtest.Get(t)
	var out bytes.Buffer
	err := run(s.Addr(), session.Config{User: pgtest.Replication.Name, Password: pgtest.Replication.Password, Database: pgtest.Database}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	table := "exampleclient_" + strconv.Itoa(os.Getpid())
	want := `PostgreSQL 15, SCRAM-SHA-256, protocol 3.0
100000 rows, sum 5000050000, <nil>
6 * 7 = 42
insert into TABLE: id=1 note=row 1
insert into TABLE: id=2 note=row 2
insert into TABLE: id=3 note=row 3
streamed transaction: 5000 inserts
`
	if got := out.String(); got != strings.ReplaceAll(want, "TABLE", table) {
		t.Errorf("got\n%s\nwant\n%s", got, strings.ReplaceAll(want, "TABLE", table))
	}
}

// TestShorterThanPglogrepl: the yardstick is the same client on
// pgconn and pglogrepl, 148 lines. Counted are lines of code: neither blank
// nor only a comment (the file has no block comments).
func TestShorterThanPglogrepl(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(src)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "//") {
			n++
		}
	}
	t.Logf("main.go: %d lines of code, %d lines in all", n, bytes.Count(src, []byte("\n")))
	if n > 148 {
		t.Errorf("main.go has %d lines of code, more than the 148 of its pgconn + pglogrepl version", n)
	}
}
