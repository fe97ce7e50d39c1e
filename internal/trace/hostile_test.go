package trace

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/pgtest"
	"github.com/pgspec/pgspec/internal/testcert"
)

// fakeServer accepts connections and, when trusting, answers the startup
// packet with AuthenticationOk and ReadyForQuery; everything else it reads
// and discards. It stands in for a server in the attacks that never get
// past the proxy.
func fakeServer(t testing.TB, trusting bool) string {
	t.Helper()
	var hello []byte
	for _, m := range []codec.Message{&codec.AuthenticationOk{}, &codec.ReadyForQuery{TxStatus: 'I'}} {
		hello, _ = m.Encode(hello, codec.Params{})
	}
	return serveAt(t, "127.0.0.1:0", func(c net.Conn) {
		if trusting {
			if _, err := codec.NewFrameReader(c).NextUntagged(); err != nil {
				return
			}
			c.Write(hello)
		}
		io.Copy(io.Discard, c)
	})
}

// serveAt accepts connections on addr until the test ends and hands each to
// handle in a goroutine of its own, closing it afterwards.
func serveAt(t testing.TB, addr string, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return l.Addr().String()
}

// allocated is how many bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func startupPacket(t testing.TB) []byte {
	t.Helper()
	b, err := (&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "mallory"}}}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHugeMessageBeforeAuthentication: three clients announce a 1 GiB
// message after their StartupMessage, before authenticating, and send 16 MiB
// of it. The proxy drops each after the message's 5 header bytes, as
// PostgreSQL does: it allocates next to nothing (it used to buffer what
// came, 840 MB of RSS for one such client).
func TestHugeMessageBeforeAuthentication(t *testing.T) {
	tr := startTrace(t, Options{Upstream: fakeServer(t, false)})
	body := make([]byte, 1<<20)
	n := allocated(func() {
		var wg sync.WaitGroup
		for range 3 {
			c := dial(t, tr.addr)
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.Write(startupPacket(t))
				c.Write([]byte{'p', 0x40, 0, 0, 0})
				for range 16 {
					if _, err := c.Write(body); err != nil {
						return
					}
				}
				expectClosed(t, c)
			}()
		}
		wg.Wait()
	})
	t.Logf("allocated %d bytes", n)
	if n > 4<<20 {
		t.Errorf("the proxy allocated %d bytes for three 1 GiB announcements", n)
	}
	if want := "frontend byte offset 22: codec: frame 'p' length 1073741824 (max 65535): message longer than the maximum size; closing the session"; strings.Count(tr.logged(), want) != 3 {
		t.Errorf("log lacks 3 × %q:\n%s", want, tr.log)
	}
}

// TestLargeMessageBoundedLine: an authenticated client's 50 MiB CopyData is
// forwarded whole, but its JSON line is cut to --max-value bytes of the
// value, and the proxy allocates a small multiple of the message (the frame
// buffer as it grows, and the re-encoding) — it used to print a 314 MB line
// and hold 2.2 GB.
func TestLargeMessageBoundedLine(t *testing.T) {
	out := &maxLine{}
	// The server accepts the client and answers its COPY FROM STDIN.
	var hello, copyIn []byte
	for _, m := range []codec.Message{&codec.AuthenticationOk{}, &codec.ReadyForQuery{TxStatus: 'I'}} {
		hello, _ = m.Encode(hello, codec.Params{})
	}
	copyIn, _ = (&codec.CopyInResponse{}).Encode(nil, codec.Params{})
	server := serveAt(t, "127.0.0.1:0", func(c net.Conn) {
		fr := codec.NewFrameReader(c)
		if _, err := fr.NextUntagged(); err != nil {
			return
		}
		c.Write(hello)
		if _, err := fr.Next(); err != nil {
			return
		}
		c.Write(copyIn)
		io.Copy(io.Discard, c)
	})
	tr := startTrace(t, Options{Upstream: server, Out: out, Format: Format{JSON: true}})
	const size = 50 << 20
	msg, err := (&codec.CopyData{Data: bytes.Repeat([]byte("row\n"), size/4)}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, tr.addr)
	c.SetDeadline(time.Now().Add(60 * time.Second))
	c.Write(startupPacket(t))
	fr := codec.NewFrameReader(c)
	for range 2 { // AuthenticationOk, ReadyForQuery
		if _, err := fr.Next(); err != nil {
			t.Fatal(err)
		}
	}
	query, err := (&codec.Query{String: "COPY t FROM STDIN"}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	c.Write(query)
	if m, err := fr.Next(); err != nil || m[0] != 'G' {
		t.Fatalf("CopyInResponse: %q, %v", m, err)
	}
	n := allocated(func() {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		for tr.Stats(Frontend).Identical < 1 {
			time.Sleep(10 * time.Millisecond)
		}
	})
	t.Logf("allocated %d bytes", n)
	if n > 4*size {
		t.Errorf("the proxy allocated %d bytes for a %d-byte message", n, len(msg))
	}
	c.Close()
	waitSessions(t, tr, 0)
	if l := out.max(); l == 0 || l > 2*DefaultMaxValue {
		t.Errorf("longest line %d bytes", l)
	}
	tr.requireClean(t)
}

// maxLine records the longest line written to it.
type maxLine struct {
	mu      sync.Mutex
	longest int
	cur     int
}

func (m *maxLine) Write(b []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range b {
		if c == '\n' {
			m.longest, m.cur = max(m.longest, m.cur), 0
		} else {
			m.cur++
		}
	}
	return len(b), nil
}

func (m *maxLine) max() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.longest
}

// TestConnectionLimit: past MaxConns a client gets PostgreSQL's "too many
// clients" error; once a session ends, a new client is served again.
func TestConnectionLimit(t *testing.T) {
	tr := startTrace(t, Options{Upstream: fakeServer(t, false), MaxConns: 3})
	var held []net.Conn
	for range 3 {
		held = append(held, dial(t, tr.addr))
	}
	waitOpen(t, tr, 3)
	// As PostgreSQL does, the proxy declines encryption first (libpq asks
	// for it by default), then refuses the StartupMessage.
	for _, encryption := range []codec.Message{nil, &codec.SSLRequest{}, &codec.GSSEncRequest{}} {
		c := dial(t, tr.addr)
		if encryption != nil {
			c.Write(wire(t, codec.Params{}, encryption))
			var answer [1]byte
			if _, err := io.ReadFull(c, answer[:]); err != nil || answer[0] != 'N' {
				t.Fatalf("%s past the limit: answer %q, %v; want 'N'", encryption.Slug(), answer, err)
			}
		}
		c.Write(startupPacket(t))
		frame, err := codec.NewFrameReader(c).Next()
		if err != nil {
			t.Fatal(err)
		}
		var be codec.Backend
		m, err := be.Decode(frame, codec.Params{})
		e, ok := m.(*codec.ErrorResponse)
		if err != nil || !ok || !hasField(e, codec.ErrorFieldCode, "53300") || !hasField(e, codec.ErrorFieldMessage, "sorry, too many clients already (pgtrace --max-conns 3)") {
			t.Fatalf("refused client got %v %v", m, err)
		}
	}
	// Bytes sent with the request, before its 'N', are refused before the
	// limit is, as PostgreSQL's ProcessStartupPacket refuses them first.
	for _, req := range []codec.Message{&codec.SSLRequest{}, &codec.GSSEncRequest{}} {
		got := readAll(t, dial(t, tr.addr), withStartup(t, req))
		if len(got) == 0 || got[0] != 'N' || !bytes.Contains(got, []byte("C08P01\x00Mreceived unencrypted data after ")) {
			t.Errorf("%s with a StartupMessage past the limit: %q", req.Slug(), got)
		}
	}
	held[0].Close()
	waitOpen(t, tr, 2)
	dial(t, tr.addr)
	waitOpen(t, tr, 3)
	if !strings.Contains(tr.logged(), "session #6: refused: 3 sessions open (--max-conns)") {
		t.Errorf("log:\n%s", tr.log)
	}
}

func hasField(e *codec.ErrorResponse, code byte, value string) bool {
	for _, f := range e.Fields {
		if f.Code == code && f.Value == value {
			return true
		}
	}
	return false
}

func waitSessions(t *testing.T, tr *tracer, n int) {
	t.Helper()
	waitOpen(t, tr, n)
	for start := time.Now(); !tr.Proxy.out.idle(); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the proxy's lines were not written within 5s")
		}
	}
}

// waitOpen waits until n sessions are open.
func waitOpen(t *testing.T, tr *tracer, n int) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		tr.sessMu.Lock()
		got := len(tr.sessions)
		tr.sessMu.Unlock()
		if got == n {
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("%d sessions, want %d", got, n)
		}
	}
}

// TestStartupTimeout: a client that sends its startup packet a byte at a
// time is cut off when StartupTimeout has passed since it connected,
// however steadily it sends.
func TestStartupTimeout(t *testing.T) {
	tr := startTrace(t, Options{Upstream: fakeServer(t, false), StartupTimeout: 300 * time.Millisecond})
	c := dial(t, tr.addr)
	start := time.Now()
	for _, b := range startupPacket(t) {
		if _, err := c.Write([]byte{b}); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	expectClosed(t, c)
	if took := time.Since(start); took < 300*time.Millisecond || took > 3*time.Second {
		t.Errorf("closed after %s", took)
	}
	if want := "session #1: not authenticated within 300ms (--startup-timeout); closing the session"; !strings.Contains(tr.logged(), want) {
		t.Errorf("log lacks %q:\n%s", want, tr.log)
	}
}

// TestIdleTimeout: an authenticated session in which neither side sends
// anything is closed after IdleTimeout; one that keeps talking is not.
func TestIdleTimeout(t *testing.T) {
	tr := startTrace(t, Options{Upstream: fakeServer(t, true), IdleTimeout: time.Second})
	idle, busy := dial(t, tr.addr), dial(t, tr.addr)
	idle.Write(startupPacket(t))
	busy.Write(startupPacket(t))
	syncMsg, _ := (&codec.Sync{}).Encode(nil, codec.Params{})
	start := time.Now()
	for time.Since(start) < 2500*time.Millisecond {
		if _, err := busy.Write(syncMsg); err != nil {
			t.Fatalf("the busy session was closed: %v\n%s", err, tr.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	expectClosed(t, idle)
	if want := "session #1: idle for "; !strings.Contains(tr.logged(), want) || strings.Contains(tr.logged(), "session #2: idle") {
		t.Errorf("log:\n%s", tr.log)
	}
}

// TestUndecodableStartupRelaysAnswer: a startup packet the codec cannot
// decode is forwarded as received (without --strict), and the server's
// answer reaches the client.
func TestUndecodableStartupRelaysAnswer(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr()})
	c := dial(t, tr.addr)
	// Protocol 1.0 with no parameter list (not even its terminator).
	packet := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), 1<<16)
	c.Write(packet)
	// PostgreSQL answers a client of protocol 1.0 or 2.0 in protocol 2's
	// format ('E', then the message as a C string) and hangs up.
	answer, err := io.ReadAll(c)
	if err != nil || answer[0] != 'E' || !bytes.Contains(answer, []byte("unsupported frontend protocol 1.0")) {
		t.Fatalf("relayed %q %v\nlog:\n%s", answer, err, tr.log)
	}
	for _, want := range []string{"warning: frontend message at byte offset 0: StartupMessage undecodable: codec: decode StartupMessage.Parameters at byte 8: missing zero terminator", "forwarded as received", "relaying the rest of the session undecoded"} {
		if !strings.Contains(tr.logged(), want) {
			t.Errorf("log lacks %q:\n%s", want, tr.log)
		}
	}
}

// TestCancelRequest32ByteKeyStrict: a protocol 3.2 CancelRequest (a 32-byte
// key on a connection of its own) passes a --strict proxy decoded and
// re-encoded identically, its key redacted.
func TestCancelRequest32ByteKeyStrict(t *testing.T) {
	tr := startTrace(t, Options{Upstream: fakeServer(t, false), Strict: true, Out: &syncBuffer{}})
	frame, err := (&codec.CancelRequest{ProcessID: 4242, SecretKey: bytes.Repeat([]byte{0xa5}, 32)}).Encode(nil, codec.Params{ProtocolMinor: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, tr.addr)
	c.Write(frame)
	c.(*net.TCPConn).CloseWrite()
	expectClosed(t, c)
	if st := tr.Stats(Frontend); st.Identical != 1 || st.Undecodable+st.Mismatched != 0 || tr.logged() != "" {
		t.Errorf("counts %+v, log %q", st, tr.log)
	}
	if lines := tr.lines(t); !strings.Contains(lines, "CancelRequest ProcessID=4242 SecretKey=<redacted 32 bytes>") {
		t.Errorf("lines: %s", lines)
	}
}

// TestClientHalfClose: a client that sends a query and shuts down its
// writing side still gets the server's answer, as it does from PostgreSQL
// itself (which answers the query, then sees the end of input).
func TestClientHalfClose(t *testing.T) {
	s := pgtest.Get(t)
	tr := startTrace(t, Options{Upstream: s.Addr(), Out: &syncBuffer{}})
	c, _, _ := startRaw(t, tr.addr)
	q, err := (&codec.Query{String: "select 'after half-close'"}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	c.Write(q)
	c.(*net.TCPConn).CloseWrite()
	answer, err := io.ReadAll(c)
	if err != nil || !bytes.Contains(answer, []byte("after half-close")) || answer[len(answer)-6] != 'Z' {
		t.Fatalf("the half-closed client got %q %v\nlog:\n%s", answer, err, tr.log)
	}
	// The lines are in time order across directions: the query before its answer.
	lines := tr.lines(t)
	if q, row := strings.Index(lines, "F @39 Query "), strings.Index(lines, "B @444 DataRow "); q < 0 || row < q {
		t.Errorf("the query's line does not come before its answer's:\n%s", lines)
	}
}

// TestAuthenticationMessageLimit: before authenticating, a client message
// may have a length field of up to 65,535 (PostgreSQL's
// PG_MAX_AUTH_TOKEN_LENGTH, which it compares with the length field, not
// counting the tag) and no more.
func TestAuthenticationMessageLimit(t *testing.T) {
	answer, err := (&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'M', Value: "got it"}}}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	server := serveAt(t, "127.0.0.1:0", func(c net.Conn) {
		fr := codec.NewFrameReader(c)
		if _, err := fr.NextUntagged(); err != nil {
			return
		}
		if _, err := fr.Next(); err == nil {
			c.Write(answer)
		}
	})
	tr := startTrace(t, Options{Upstream: server})
	for _, n := range []int{65535, 65536} {
		c := dial(t, tr.addr)
		c.Write(startupPacket(t))
		msg := binary.BigEndian.AppendUint32([]byte{'p'}, uint32(n))
		msg = append(msg, bytes.Repeat([]byte{'x'}, n-5)...)
		c.Write(append(msg, 0))
		got, _ := io.ReadAll(c)
		if forwarded := bytes.Equal(got, answer); forwarded != (n == 65535) {
			t.Errorf("length %d: the client got %q; log:\n%s", n, got, tr.log)
		}
	}
	if want := "frontend byte offset 22: codec: frame 'p' length 65536 (max 65535)"; strings.Count(tr.logged(), want) != 1 {
		t.Errorf("log lacks %q once:\n%s", want, tr.log)
	}
}

// TestConnectionLimitPsql: psql, which asks for SSL first by default, reads
// the proxy's "too many clients" as it reads PostgreSQL's: after 'N', or
// inside TLS when the proxy terminates it (sslmode=require).
func TestConnectionLimitPsql(t *testing.T) {
	s := pgtest.Get(t)
	certs := testcert.New(t)
	for _, c := range []struct {
		sslmode string
		tls     *tls.Config
	}{{"prefer", nil}, {"require", certs.Server()}} {
		tr := startTrace(t, Options{Upstream: s.Addr(), MaxConns: 1, ClientTLS: c.tls})
		connect(t, tr.addr, pgtest.SCRAMUser, nil)
		waitOpen(t, tr, 1)
		cmd := exec.Command(pgtest.Bin("psql"), "-X", "-c", "select 1")
		cmd.Env = append(pgtest.Env(tr.addr, pgtest.SCRAMUser), "PGSSLMODE="+c.sslmode)
		out, err := cmd.CombinedOutput()
		if want := "FATAL:  sorry, too many clients already (pgtrace --max-conns 1)"; err == nil || !strings.Contains(string(out), want) {
			t.Errorf("psql (sslmode=%s) past the limit: %v\n%s\nwant %q", c.sslmode, err, out, want)
		}
	}
}
