package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFetchArguments(t *testing.T) {
	wantFailures(t, 2, []usageCase{
		{[]string{"fetch", "-out", "x"}, "pgspec fetch: --major is required"},
		{[]string{"fetch", "-major", "20"}, "pgspec fetch: --out DIR is required"},
		{[]string{"fetch", "-major", "20", "-out", "x", "-lang", "fr"}, `pgspec fetch: unknown language "fr" (want en or zh)`},
		{[]string{"fetch", "-major", "20", "-out", "x", "-retries", "-1"}, "pgspec fetch: --retries -1: want 0 or more"},
		{[]string{"fetch", "-major", "20", "-out", "x", "extra"}, `pgspec fetch: unexpected argument "extra"`},
		{[]string{"fetch", "-major", "20.1", "-out", "x"}, `pgspec fetch: major "20.1": want a number such as 20, or devel`},
		{[]string{"fetch", "-major", "20", "-out", "x", "-base-url", "ftp://example.org/"}, `pgspec fetch: base URL "ftp://example.org/": want an http or https URL`},
		{[]string{"fetch", "-major", "9", "-out", "x", "-base-url", "http://127.0.0.1:1/"}, "pgspec fetch: major 9: no site has it"},
		{[]string{"fetch", "-major", "99", "-out", "x", "-base-url", "http://127.0.0.1:1/"}, "pgspec fetch: major 99: no site has it yet"},
	})
}

// A refused fetch names every refused URL and writes nothing: no page, no
// manifest, not even the directory.
func TestFetchRefusedWritesNothing(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "docs")
	code, stdout, stderr := pgspec(t, "fetch", "-major", "20", "-out", out, "-base-url", srv.URL+"/docs/", "-retries", "0")
	// A line per page as it is refused, then the summary.
	if code != 1 || stdout != "" || !strings.Contains(stderr, "\npgspec fetch: nothing written:\n"+srv.URL+"/docs/20/protocol-message-formats.html: HTTP 404 Not Found\n") ||
		strings.Count(stderr, "HTTP 404 Not Found") != 22 || strings.Count(stderr, "pgspec fetch: "+srv.URL+"/docs/20/") != 11 ||
		!strings.HasSuffix(stderr, "/docs/20/logicaldecoding-output-plugin.html: HTTP 404 Not Found\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused fetch created its output directory")
	}
}
