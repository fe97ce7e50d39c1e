package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// psqlAs runs one query through psql over TCP as u with password, returning its unaligned output.
func psqlAs(t *testing.T, s *Server, u User, password, sql string) (string, error) {
	t.Helper()
	u.Password = password
	cmd := exec.Command(Bin("psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql)
	cmd.Env = Env(s.Addr(), u)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func TestMaySkip(t *testing.T) {
	other := errors.New("initdb failed")
	for _, c := range []struct {
		err  error
		ci   string
		want bool
	}{
		{errNoBinaries, "", true},
		{errNoBinaries, "true", false},
		{fmt.Errorf("start: %w", errNoBinaries), "", true},
		{other, "", false},
		{other, "true", false},
	} {
		if got := mayskip(c.err, c.ci); got != c.want {
			t.Errorf("mayskip(%v, CI=%q) = %v, want %v", c.err, c.ci, got, c.want)
		}
	}
}

func TestServerSettings(t *testing.T) {
	s := Get(t)
	out, err := psqlAs(t, s, Superuser, "", "select 1, current_setting('wal_level'), current_setting('max_prepared_transactions'), current_setting('server_version_num')::int / 10000")
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	if want := "1|logical|10|15"; out != want {
		t.Errorf("settings = %q, want %q", out, want)
	}
	pid, err := s.PID()
	if err != nil {
		t.Fatal(err)
	}
	// The postmaster's command line names this server's data directory.
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil || !strings.Contains(string(cmdline), "\x00"+s.data()+"\x00") {
		t.Errorf("PID %d is not this server's postmaster: %q, %v", pid, cmdline, err)
	}
}

// TestAuthMethods logs every test role in with its password, checks in the
// server log that the server used the method pg_hba names, and that it
// refuses a wrong password.
func TestAuthMethods(t *testing.T) {
	s := Get(t)
	for _, u := range []User{SCRAMUser, MD5User, PlainUser, Replication} {
		t.Run(u.Name, func(t *testing.T) {
			out, err := psqlAs(t, s, u, u.Password, "select current_user")
			if err != nil {
				t.Fatalf("login: %v\n%s", err, out)
			}
			if out != u.Name {
				t.Errorf("current_user = %q, want %q", out, u.Name)
			}
			log, err := os.ReadFile(s.Log)
			if err != nil {
				t.Fatal(err)
			}
			if want := `identity="` + u.Name + `" method=` + u.Method + " "; !strings.Contains(string(log), want) {
				t.Errorf("server log lacks %q", want)
			}
			out, err = psqlAs(t, s, u, "wrong", "select 1")
			if err == nil || !strings.Contains(out, "authentication failed") {
				t.Errorf("wrong password: err=%v out=%q, want authentication failure", err, out)
			}
		})
	}
}
