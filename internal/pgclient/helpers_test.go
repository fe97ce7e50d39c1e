package pgclient

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, printDecoded)) }

// decoded sums every test connection's decoded messages per slug, for the
// suite's report (printed with -v).
var (
	decodedMu sync.Mutex
	decoded   = map[string]int{}
)

func printDecoded() {
	decodedMu.Lock()
	defer decodedMu.Unlock()
	total := 0
	for _, slug := range slices.Sorted(maps.Keys(decoded)) {
		fmt.Printf("decoded %-32s %d\n", slug, decoded[slug])
		total += decoded[slug]
	}
	fmt.Printf("decoded total %d\n", total)
}

// connect opens a session as u to the shared server and closes it at the end of the test.
func connect(t *testing.T, u pgtest.User, mod ...func(*Config)) *Conn {
	t.Helper()
	s := pgtest.Get(t)
	cfg := Config{Addr: s.Addr(), User: u.Name, Password: u.Password, Database: pgtest.Database}
	for _, f := range mod {
		f(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatalf("connect as %s: %v", u.Name, err)
	}
	// No test may hang on a server that stopped answering.
	c.NetConn().SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() {
		c.Close()
		decodedMu.Lock()
		for k, v := range c.Decoded {
			decoded[k] += v
		}
		decodedMu.Unlock()
	})
	return c
}

// query runs sql and fails the test on error.
func query(t *testing.T, c *Conn, sql string) []Result {
	t.Helper()
	res, err := c.SimpleQuery(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res
}

// scalar runs a one-row, one-column query and returns the value as text.
func scalar(t *testing.T, c *Conn, sql string) string {
	t.Helper()
	res := query(t, c, sql)
	if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) != 1 {
		t.Fatalf("%s: want one value, got %+v", sql, res)
	}
	return string(res[0].Rows[0][0])
}

// expect receives the next message and fails unless it is a T.
func expect[T codec.Message](t *testing.T, c *Conn) T {
	t.Helper()
	m, err := c.Receive()
	if err != nil {
		t.Fatalf("receive: %v", err)
	}
	got, ok := m.(T)
	if !ok {
		if e, isErr := m.(*codec.ErrorResponse); isErr {
			t.Fatalf("got ErrorResponse %v, want %T", session.NewError(e.Fields), got)
		}
		t.Fatalf("got %s, want %T", m.Slug(), got)
	}
	return got
}
