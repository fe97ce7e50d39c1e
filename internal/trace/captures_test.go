package trace_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/internal/trace"
)

// captureMajors and captureKinds name the committed captures of real traffic
// (testdata/captures, recorded by make captures): pgNN-KIND.FORMAT.gz, the
// server listening on port 5400+NN; dumpcap wrote the pcapng ones, tcpdump
// the pcap ones.
var (
	captureMajors = []int{13, 15, 17, 18, 19}
	captureKinds  = []struct{ name, format string }{
		{"sessions", "pcapng"}, {"logical", "pcap"}, {"physical", "pcapng"}, {"backup", "pcap"},
	}
)

const capturesDir = "../../testdata/captures"

// TestCaptures decodes every message of every committed capture the way
// `pgtrace decode` does and fails on any gap, undecodable message or
// re-encoding that differs from the bytes on the wire; then it checks that
// the workloads the README lists are really in each file, so that a capture
// recorded empty or cut short cannot pass.
func TestCaptures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(capturesDir, "pg*.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, major := range captureMajors {
		for _, kind := range captureKinds {
			want = append(want, fmt.Sprintf("pg%d-%s.%s.gz", major, kind.name, kind.format))
		}
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("captures in %s:\n got %v\nwant %v", capturesDir, got, want)
	}
	everywhere := map[string]int64{}
	for _, major := range captureMajors {
		for _, kind := range captureKinds {
			name := fmt.Sprintf("pg%d-%s", major, kind.name)
			t.Run(name, func(t *testing.T) {
				seen := decodeCapture(t, filepath.Join(capturesDir, name+"."+kind.format+".gz"), kind.format, major)
				seen.check(t, expected(kind.name, major))
				checkDetails(t, kind.name, major, seen)
				for slug, n := range seen.count {
					everywhere[slug] += n
				}
			})
		}
	}
	for _, m := range codec.NewMessages() {
		_, missing := notCaptured[m.Slug()]
		// A message no captured major documents (a new major's) waits for
		// that major's captures.
		missing = missing || !slices.ContainsFunc(captureMajors, m.Majors().Has)
		if n := everywhere[m.Slug()]; (n == 0) != missing {
			t.Errorf("%s: %d messages in the captures; notCaptured says %v: record it (make captures) or say why not", m.Slug(), n, missing)
		}
	}
}

// notCaptured are the messages of the codec that no capture holds, and why
// (testdata/captures/README.md says more).
var notCaptured = map[string]string{
	"authentication-gss":            "needs a Kerberos KDC",
	"authentication-gss-continue":   "needs a Kerberos KDC",
	"gss-response":                  "needs a Kerberos KDC",
	"authentication-sspi":           "Windows servers only",
	"authentication-kerberos-v5":    "no server since 9.4 sends it",
	"authentication-scm-credential": "no server since 9.1 sends it",
	"gssenc-request":                "a server built with GSSAPI answers 'G', and nothing after it can be decoded",
	"gssenc-response":               "comes only after a gssenc-request",
	"logical-tuple-data":            "a part of Insert, Update and Delete, never a message of its own",
}

// seen is what one capture held: messages per slug over both directions and
// every layer, and the decoded lines for details the counts do not show.
type seen struct {
	count map[string]int64
	lines []captureLine
}

// captureLine is the part of a JSON line (internal/trace/line.schema.json) the test reads.
type captureLine struct {
	Session  int64            `json:"session"`
	Dir      string           `json:"dir"`
	Messages []map[string]any `json:"messages"`
}

// pcapngMagic opens a pcapng file; pcap files open with a4 b2 c3 d4 or its reverse.
var pcapngMagic = []byte{0x0a, 0x0d, 0x0d, 0x0a}

func decodeCapture(t *testing.T, path, format string, major int) seen {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(z)
	if magic, err := br.Peek(4); err != nil || bytes.Equal(magic, pcapngMagic) != (format == "pcapng") {
		t.Fatalf("file starts with %x (%v), want a %s file", magic, err, format)
	}
	var out, log bytes.Buffer
	c, err := trace.DecodeCapture(br, trace.CaptureOptions{Format: trace.Format{JSON: true}, Out: &out, Log: &log, Port: 5400 + major})
	if err != nil {
		t.Fatal(err)
	}
	if log.Len() > 0 {
		t.Errorf("decoder warnings:\n%s", log.String())
	}
	if !c.Clean() || c.Gaps() != 0 {
		var sum strings.Builder
		c.Summary(&sum)
		t.Errorf("capture not decoded cleanly:\n%s", sum.String())
	}
	s := seen{count: map[string]int64{}}
	for _, d := range []trace.Direction{trace.Frontend, trace.Backend} {
		st := c.Stats(d)
		if st.Decoded == 0 || st.Identical != st.Decoded || st.Mismatched != 0 || st.Undecodable != 0 {
			t.Errorf("%v: %d decoded, %d re-encoded identically, %d mismatched, %d undecodable",
				d, st.Decoded, st.Identical, st.Mismatched, st.Undecodable)
		}
		for slug, n := range st.Messages {
			s.count[slug] += n
		}
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l captureLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v: %s", len(s.lines)+1, err, sc.Bytes())
		}
		s.lines = append(s.lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// check fails for each slug seen fewer times than want says (0: never).
func (s seen) check(t *testing.T, want map[string]int64) {
	t.Helper()
	for _, slug := range slices.Sorted(maps.Keys(want)) {
		switch n, least := s.count[slug], want[slug]; {
		case least == 0 && n != 0:
			t.Errorf("%s: %d messages, want none", slug, n)
		case n < least:
			t.Errorf("%s: %d messages, want at least %d", slug, n, least)
		}
	}
}

// expected is, per capture, the least number of messages of each kind the
// workload of record.sh makes the server and its clients exchange (0: the
// message must not be there).
func expected(kind string, major int) map[string]int64 {
	w := map[string]int64{}
	add := func(n int64, slugs ...string) {
		for _, s := range slugs {
			w[s] = n
		}
	}
	// Every capture opens its connections the same way: libpq asks for TLS
	// ('N'), then SCRAM.
	add(1, "ssl-request", "ssl-response", "startup-message", "authentication-sasl", "authentication-sasl-continue",
		"sasl-initial-response", "sasl-response", "authentication-sasl-final", "authentication-ok", "backend-key-data",
		"parameter-status", "ready-for-query", "query", "row-description", "data-row", "command-complete", "terminate")
	switch kind {
	case "sessions":
		add(1, "authentication-cleartext-password", "authentication-md5-password", "notice-response",
			"copy-fail", "parse-complete", "bind-complete", "parameter-description", "no-data", "close",
			"close-complete", "flush", "empty-query-response")
		add(2, "password-message", "notification-response", "copy-out-response", "portal-suspended")
		add(3, "copy-in-response") // psql's text, capturework's binary and abandoned COPY
		add(4, "copy-done", "copy-data")
		add(3, "authentication-sasl", "parse", "bind", "describe", "execute", "sync")
		add(4, "error-response") // wrong password, division by zero, CopyFail, cancel
		add(9, "function-call", "function-call-response")
		if major >= 18 { // psql 3.0, psql 3.2, capturework 3.2
			add(3, "cancel-request")
			add(1, "negotiate-protocol-version") // capturework's unknown _pq_ option
		} else { // psql 3.0, capturework
			add(2, "cancel-request", "negotiate-protocol-version") // 3.2 asked of a 3.0 server
		}
	case "logical":
		add(1, "copy-both-response", "replication-primary-keepalive-message", "replication-standby-status-update",
			"copy-done", "logical-origin", "logical-truncate", "logical-type")
		add(3, "logical-relation", "logical-update")
		add(2, "logical-delete")
		add(10, "logical-begin", "logical-commit", "logical-insert", "replication-xlog-data", "copy-data")
		streaming := []string{"logical-stream-start", "logical-stream-stop", "logical-stream-commit", "logical-stream-abort", "logical-message"}
		twoPhase := []string{"logical-begin-prepare", "logical-prepare", "logical-commit-prepared", "logical-rollback-prepared", "logical-stream-prepare"}
		add(0, streaming...)
		add(0, twoPhase...)
		if major >= 14 {
			add(1, streaming...)
		}
		if major >= 15 {
			add(1, twoPhase...)
		}
	case "physical":
		add(1, "copy-both-response", "replication-primary-keepalive-message", "replication-hot-standby-feedback-message")
		add(2, "replication-xlog-data", "replication-standby-status-update", "copy-done")
		add(0, "replication-request-primary-status-update", "replication-primary-status-update")
		if major >= 19 {
			add(1, "replication-request-primary-status-update", "replication-primary-status-update")
		}
	case "backup":
		sub := []string{"replication-new-archive", "replication-archive-or-manifest-data", "replication-progress-report", "replication-manifest"}
		add(100, "copy-data")
		if major >= 15 { // one COPY carrying the backup's sub-messages
			add(1, "copy-out-response", "copy-done", "replication-new-archive", "replication-progress-report", "replication-manifest")
			add(100, "replication-archive-or-manifest-data")
		} else { // one COPY of raw tar per archive, one for the manifest
			add(2, "copy-out-response", "copy-done")
			add(0, sub...)
		}
	}
	return w
}

// protoVersion finds the pgoutput version a START_REPLICATION asks for.
var protoVersion = regexp.MustCompile(`"proto_version" '(\d+)'`)

// checkDetails checks what the counts cannot show: the cancel key lengths of
// protocol 3.0 and 3.2, the pgoutput versions each logical capture streamed,
// and Stream Abort's LSN and time under version 4.
func checkDetails(t *testing.T, kind string, major int, s seen) {
	keys := map[string]map[float64]int{"backend-key-data": {}, "cancel-request": {}}
	var versions []int
	abortsWithLSN := 0
	for _, l := range s.lines {
		for _, m := range l.Messages {
			slug, _ := m["slug"].(string)
			switch slug {
			case "backend-key-data", "cancel-request":
				key, _ := m["SecretKey"].(map[string]any)
				n, _ := key["bytes"].(float64)
				if key["redacted"] != true {
					t.Errorf("%s key printed: %v", slug, m)
				}
				keys[slug][n]++
			case "query":
				q, _ := m["String"].(string)
				if v := protoVersion.FindStringSubmatch(q); v != nil {
					n, _ := strconv.Atoi(v[1])
					versions = append(versions, n)
				}
			case "logical-stream-abort":
				if _, ok := m["AbortLSN"]; ok {
					abortsWithLSN++
				}
			}
		}
	}
	for slug, sizes := range keys {
		for size, n := range sizes {
			if size != 4 && !(size == 32 && major >= 18) {
				t.Errorf("%d %s with a %v-byte key", n, slug, size)
			}
		}
		if kind == "sessions" && major >= 18 && sizes[32] < 2 {
			t.Errorf("%s: %d with a 32-byte key (protocol 3.2), want at least 2", slug, sizes[32])
		}
	}
	if kind != "logical" {
		return
	}
	want := map[int][]int{13: {1}, 15: {1, 2, 3}}[major]
	if want == nil {
		want = []int{1, 2, 3, 4}
	}
	if !slices.Equal(versions, want) {
		t.Errorf("pgoutput versions streamed %v, want %v", versions, want)
	}
	if (abortsWithLSN > 0) != (major >= 16) {
		t.Errorf("%d Stream Abort with an abort LSN (protocol 4, 16 on)", abortsWithLSN)
	}
}
