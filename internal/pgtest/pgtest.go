// Package pgtest starts one throwaway PostgreSQL 15 server per test binary so
// that codec, client and proxy tests talk to a real peer instead of a mock.
//
// Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// and call Get(t) in each test that needs the server. The server is started
// lazily on the first Get, so a package whose server tests are filtered out
// by -run never pays for initdb. Without the binaries Get skips the test, or
// fails it when the CI environment variable is set.
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// BinDir is where Debian's postgresql-15 package installs the server and its clients.
const BinDir = "/usr/lib/postgresql/15/bin"

// A User is a role the server knows, with the authentication pg_hba requires of it over TCP.
type User struct {
	Name, Password string
	// Method is the pg_hba method for TCP connections from 127.0.0.1.
	Method string
}

// The roles every server has. Superuser connects without a password (trust),
// the others exercise one authentication method each; Replication may open
// physical and logical replication connections with SCRAM.
var (
	Superuser   = User{Name: "postgres", Method: "trust"}
	SCRAMUser   = User{Name: "scram_user", Password: "scram-secret ü", Method: "scram-sha-256"}
	MD5User     = User{Name: "md5_user", Password: "md5-secret", Method: "md5"}
	PlainUser   = User{Name: "password_user", Password: "clear-secret", Method: "password"}
	Replication = User{Name: "repl_user", Password: "repl-secret", Method: "scram-sha-256"}
)

// roles are the test roles the server is given beside the superuser.
var roles = []User{SCRAMUser, MD5User, PlainUser, Replication}

// Database is the database the roles own and tests work in.
const Database = "pgspec"

// Server is a running throwaway PostgreSQL.
type Server struct {
	// Dir holds everything the server writes: data/, sock/ and server.log.
	Dir string
	// Host and Port are the TCP address the server listens on.
	Host string
	Port int
	// SocketDir is the unix socket directory.
	SocketDir string
	// Log is the server's log file, shown when a test fails.
	Log string

	cred *syscall.Credential // postgres OS user when running as root, else nil

	logMu    sync.Mutex
	logShown int64 // how much of Log failures have already shown
}

// Addr is the server's TCP address, host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Bin is the path of one of PostgreSQL's programs, e.g. Bin("psql").
func Bin(name string) string { return filepath.Join(BinDir, name) }

// Env is the environment for a libpq client (psql, pgbench, pg_recvlogical …)
// connecting to addr as u: the host and port, the user, its password and the database.
func Env(addr string, u User) []string {
	host, port, _ := net.SplitHostPort(addr)
	env := append(os.Environ(),
		"PGHOST="+host, "PGPORT="+port, "PGUSER="+u.Name, "PGDATABASE="+Database,
		"PGSSLMODE=disable", "PGGSSENCMODE=disable", "PGCONNECT_TIMEOUT=10", "PGAPPNAME=pgspec-test")
	if u.Password != "" {
		env = append(env, "PGPASSWORD="+u.Password)
	}
	return env
}

var (
	once    sync.Once
	shared  *Server
	errOnce error
)

// errNoBinaries marks a machine without PostgreSQL 15.
var errNoBinaries = errors.New("PostgreSQL 15 binaries not found under " + BinDir + " (run .ci/install-postgres.sh)")

// Get returns the package's shared server, starting it on first use. It skips
// tb when PostgreSQL is not installed, unless CI is set, where it fails.
func Get(tb testing.TB) *Server {
	tb.Helper()
	once.Do(func() { shared, errOnce = start() })
	if errOnce != nil {
		if mayskip(errOnce, os.Getenv("CI")) {
			tb.Skip(errOnce)
		}
		tb.Fatal(errOnce)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("server log %s:\n%s", shared.Log, shared.newLog(8<<10))
		}
	})
	return shared
}

// mayskip says whether a server that could not start lets a test skip: only
// when PostgreSQL is not installed, and never in CI (ci is $CI), where a
// skipped server test would hide a missing install step.
func mayskip(err error, ci string) bool {
	return errors.Is(err, errNoBinaries) && ci == ""
}

// Main runs the tests and stops the shared server, if one was started.
// Under -v it then prints the suite's reports (totals the tests summed).
func Main(m *testing.M, reports ...func()) int {
	code := m.Run()
	if testing.Verbose() {
		for _, report := range reports {
			report()
		}
	}
	if shared != nil {
		if err := shared.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// start runs initdb, writes the configuration, starts the server and creates the roles.
func start() (*Server, error) {
	if _, err := os.Stat(Bin("postgres")); err != nil {
		return nil, errNoBinaries
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, Host: "127.0.0.1", SocketDir: filepath.Join(dir, "sock"), Log: filepath.Join(dir, "server.log")}
	if err := s.setOwner(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.initdb(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	err = s.listen()
	if err == nil {
		err = s.createRoles()
	}
	if err != nil {
		err = fmt.Errorf("%w\nserver log %s:\n%s", err, s.Log, s.newLog(8<<10))
		s.stop()
		return nil, err
	}
	return s, nil
}

// listen starts the server on a free port and waits until it takes
// connections. A free port can be taken between our probe and the
// server's bind: it tries a few times.
func (s *Server) listen() error {
	var err error
	for attempt := 0; ; attempt++ {
		if s.Port, err = freePort(); err != nil {
			return err
		}
		if err = s.run("pg_ctl", "-D", s.data(), "-l", s.Log, "-w", "-t", "60", "-o", "-p "+strconv.Itoa(s.Port), "start"); err == nil || attempt == 2 {
			return err
		}
	}
}

// Standby makes a physical standby of s (pg_basebackup -R over the unix
// socket, as the superuser), starts it and stops it when tb ends: a second
// server with s's roles, which pg_promote moves to a new timeline, the
// history a timeline switch needs.
func (s *Server) Standby(tb testing.TB) *Server {
	tb.Helper()
	st, err := s.standby()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("standby log %s:\n%s", st.Log, st.newLog(8<<10))
		}
		if err := st.stop(); err != nil {
			tb.Error(err)
		}
	})
	return st
}

func (s *Server) standby() (*Server, error) {
	dir, err := os.MkdirTemp("", "pgtest-standby-")
	if err != nil {
		return nil, err
	}
	st := &Server{Dir: dir, Host: s.Host, SocketDir: filepath.Join(dir, "sock"), Log: filepath.Join(dir, "server.log")}
	if err := st.setOwner(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	err = st.run("pg_basebackup", "-D", st.data(), "-h", s.SocketDir, "-p", strconv.Itoa(s.Port), "-U", Superuser.Name, "-R", "-X", "stream", "-c", "fast")
	if err == nil {
		// The copy names the primary's socket directory; the standby has its own.
		err = st.appendFile("postgresql.conf", "unix_socket_directories = '"+st.SocketDir+"'\n")
	}
	if err == nil {
		err = st.listen()
	}
	if err != nil {
		err = fmt.Errorf("standby: %w\nserver log %s:\n%s", err, st.Log, st.newLog(8<<10))
		st.stop()
		return nil, err
	}
	return st, nil
}

func (s *Server) data() string { return filepath.Join(s.Dir, "data") }

// PID is the postmaster's process id, the first line of its postmaster.pid.
func (s *Server) PID() (int, error) {
	data, err := os.ReadFile(filepath.Join(s.data(), "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strconv.Atoi(line)
}

// setOwner prepares Dir for the postgres OS user when we are root, since initdb refuses root.
func (s *Server) setOwner() error {
	if err := os.Mkdir(s.SocketDir, 0o700); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root needs the postgres OS user to run the server: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	for _, p := range []string{s.Dir, s.SocketDir} {
		if err := os.Chown(p, uid, gid); err != nil {
			return err
		}
	}
	// Clients running as root must reach the socket; the server only needs its own dirs.
	return os.Chmod(s.Dir, 0o755)
}

// config is appended to postgresql.conf: logical decoding, two-phase commit,
// replication senders and slots, and small decoding memory so a test's
// transaction of a few hundred kB is streamed.
func (s *Server) config() string {
	return strings.Join([]string{
		"listen_addresses = '127.0.0.1'",
		"unix_socket_directories = '" + s.SocketDir + "'",
		"wal_level = logical",
		"max_prepared_transactions = 10",
		"max_wal_senders = 10",
		"max_replication_slots = 10",
		"logical_decoding_work_mem = 64kB",
		"max_connections = 50",
		"fsync = off",
		"full_page_writes = off",
		"ssl = off",
		"log_min_messages = warning",
		"log_connections = on",
		"log_line_prefix = '%m [%p] %u@%d '",
		"",
	}, "\n")
}

// hba lets the superuser in without a password and each test role only with
// its own method; replication lines cover physical ("replication") and
// logical (a database name) connections.
func hba() string {
	var b strings.Builder
	b.WriteString("local all postgres trust\nlocal replication postgres trust\n")
	for _, u := range append([]User{Superuser}, roles...) {
		fmt.Fprintf(&b, "host all %s 127.0.0.1/32 %s\n", u.Name, u.Method)
	}
	for _, u := range []User{Superuser, Replication} {
		fmt.Fprintf(&b, "host replication %s 127.0.0.1/32 %s\n", u.Name, u.Method)
	}
	return b.String()
}

func (s *Server) initdb() error {
	if err := s.run("initdb", "-D", s.data(), "-U", Superuser.Name, "-A", "trust", "-E", "UTF8", "--locale=C", "-N"); err != nil {
		return err
	}
	if err := s.appendFile("postgresql.conf", s.config()); err != nil {
		return err
	}
	return s.writeFile("pg_hba.conf", hba())
}

// createRoles creates the test database and the test roles, each password
// stored as its method needs it (md5 auth only works against an md5 hash).
func (s *Server) createRoles() error {
	var sql strings.Builder
	fmt.Fprintf(&sql, "CREATE DATABASE %s;\n", Database)
	for _, u := range roles {
		enc := "scram-sha-256"
		if u.Method == "md5" {
			enc = "md5"
		}
		attrs := "LOGIN"
		if u == Replication {
			attrs += " REPLICATION"
		}
		fmt.Fprintf(&sql, "SET password_encryption = '%s'; CREATE ROLE %s %s PASSWORD '%s'; GRANT ALL ON DATABASE %s TO %s;\n",
			enc, u.Name, attrs, u.Password, Database, u.Name)
	}
	if err := s.Psql("postgres", sql.String()); err != nil {
		return err
	}
	// PG 15 no longer lets everyone create in public; the test roles need to.
	return s.Psql(Database, "GRANT ALL ON SCHEMA public TO PUBLIC;")
}

// Psql runs a script as the superuser over the unix socket in database db,
// each statement on its own (so CREATE DATABASE may follow other statements).
func (s *Server) Psql(db, sql string) error {
	cmd := exec.Command(Bin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", s.SocketDir, "-p", strconv.Itoa(s.Port), "-U", Superuser.Name, "-d", db, "-f", "-")
	cmd.Stdin = strings.NewReader(sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("psql %q: %v\n%s", sql, err, out)
	}
	return nil
}

// run runs one of the server programs as the server's OS user.
func (s *Server) run(prog string, args ...string) error {
	cmd := exec.Command(Bin(prog), args...)
	cmd.Dir = s.Dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return nil
}

// appendFile and writeFile change a file initdb wrote, keeping its owner and mode.
func (s *Server) appendFile(name, text string) error {
	return s.editFile(name, text, os.O_APPEND|os.O_WRONLY)
}

func (s *Server) writeFile(name, text string) error {
	return s.editFile(name, text, os.O_TRUNC|os.O_WRONLY)
}

func (s *Server) editFile(name, text string, flag int) error {
	f, err := os.OpenFile(filepath.Join(s.data(), name), flag, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// stop shuts the server down and removes its directory; the log goes with it,
// so failures print it before this runs.
func (s *Server) stop() error {
	var err error
	if _, statErr := os.Stat(filepath.Join(s.data(), "postmaster.pid")); statErr == nil {
		err = s.run("pg_ctl", "-D", s.data(), "-m", "fast", "-w", "-t", "30", "stop")
	}
	return errors.Join(err, os.RemoveAll(s.Dir))
}

// newLog returns at most the last n bytes of what the server logged since
// the previous failure showed it, so that failing subtests and their parent
// do not repeat each other.
func (s *Server) newLog(n int) string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	b, err := os.ReadFile(s.Log)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	b, s.logShown = b[min(s.logShown, int64(len(b))):], int64(len(b))
	return lastLines(b, n)
}

// lastLines returns the whole lines within the last n bytes of b.
func lastLines(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// freePort asks the kernel for an unused TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
