package fetch

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgspec/pgspec/gen/extract"
	"github.com/pgspec/pgspec/internal/corpus"
)

var stamp = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func now() time.Time { return stamp }

// site serves the corpus pages of a language and major at
// /docs/<as>/<page>, through edit when it is set.
func site(t *testing.T, lang, major, as string, edit func(w http.ResponseWriter, r *http.Request, page []byte) bool) *httptest.Server {
	t.Helper()
	docs := corpus.Dir(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file, ok := strings.CutPrefix(r.URL.Path, "/docs/"+as+"/")
		data, err := os.ReadFile(filepath.Join(docs, lang, major, filepath.Base(file)))
		if !ok || err != nil {
			http.NotFound(w, r)
			return
		}
		if edit != nil && edit(w, r, data) {
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func readCorpus(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fetchFrom(srv *httptest.Server, major, lang string, retries int) ([]Page, error) {
	return Fetch(context.Background(), srv.Client(), Request{Major: major, Lang: lang, BaseURL: srv.URL + "/docs/", Retries: retries, Backoff: time.Millisecond}, now)
}

// The five protocol pages and the chapter's other five come as the corpus
// has them; 18 has no pgoutput page of the logical decoding chapter.
func TestFetchesTheChapterPages(t *testing.T) {
	srv := site(t, "zh", "18", "18", nil)
	pages, err := fetchFrom(srv, "18", "zh", 0)
	if err != nil {
		t.Fatal(err)
	}
	manifest := append(readCorpus(t, "MANIFEST.md"), readCorpus(t, "MANIFEST-chapter.md")...)
	kinds := append(slices.Clone(extract.Pages), extract.PageOverview, extract.PageFlow, extract.PageSASL, extract.PageLogicalReplication, extract.PageChanges)
	if len(pages) != len(kinds) {
		t.Fatalf("%d pages, want %d", len(pages), len(kinds))
	}
	for i, p := range pages {
		want := "zh/18/" + kinds[i].File
		if p.Path != want || p.URL != srv.URL+"/docs/18/"+kinds[i].File || p.Release != "18.3" || p.Major != 18 || p.Lang != "zh" ||
			p.Size != len(p.Data) || !p.Date.Equal(stamp) || !bytes.Contains(manifest, []byte(want+"` | zh | 18 | 18.3 (translation base) | ")) {
			t.Errorf("page %d: %s %s %s %d %s", i, p.Path, p.URL, p.Release, p.Size, p.Date)
		}
		if !bytes.Contains(manifest, []byte("`"+p.SHA256+"`")) {
			t.Errorf("%s: sha256 %s is not the corpus's", p.Path, p.SHA256)
		}
	}
}

func TestDevelNamesItsMajor(t *testing.T) {
	srv := site(t, "en", "19", "devel", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
		w.Write(bytes.ReplaceAll(page, []byte("PostgreSQL 19rc1 Documentation"), []byte("PostgreSQL 20devel Documentation")))
		return true
	})
	pages, err := fetchFrom(srv, "devel", "en", 0)
	if err != nil || len(pages) != 11 || pages[0].Path != "en/20/protocol-message-formats.html" || pages[0].Release != "20devel" ||
		pages[10].Path != "en/20/logicaldecoding-output-plugin.html" {
		t.Fatalf("%v %v", err, pages)
	}
	// A release candidate served as devel is not a devel snapshot.
	if _, err := fetchFrom(site(t, "en", "19", "devel", nil), "devel", "en", 0); err == nil || !strings.Contains(err.Error(), "the page of PostgreSQL 19rc1, not a devel snapshot") {
		t.Errorf("rc as devel: %v", err)
	}
}

// Every refusal names the URL and the reason, and nothing is returned.
func TestRefusals(t *testing.T) {
	types := "protocol-message-types.html"
	for _, c := range []struct {
		name            string
		lang, major, as string // served
		askMajor        string
		edit            func(w http.ResponseWriter, r *http.Request, page []byte) bool
		want            string
	}{
		{"another major", "en", "19", "20", "20", nil,
			"/docs/20/protocol-message-formats.html: the page of PostgreSQL 19rc1, not 20"},
		{"another language", "zh", "18", "18", "18", nil,
			"/docs/18/protocol-replication.html: a page in zh, not en"},
		{"another chapter", "en", "18", "18", "18", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
			if strings.HasSuffix(r.URL.Path, "/protocol-replication.html") {
				w.Write(readCorpus(t, "en/18/"+types))
				return true
			}
			return false
		}, "/docs/18/protocol-replication.html: no section PROTOCOL-REPLICATION: not the protocol-replication.html page of the protocol chapter"},
		{"HTTP error", "en", "18", "18", "18", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
			if strings.HasSuffix(r.URL.Path, types) {
				http.Error(w, "gone", http.StatusGone)
				return true
			}
			return false
		}, "/docs/18/protocol-message-types.html: HTTP 410 Gone"},
		{"redirect elsewhere", "en", "18", "18", "18", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
			if strings.HasSuffix(r.URL.Path, types) {
				http.Redirect(w, r, "/docs/18/index.html", http.StatusFound)
				return true
			}
			return false
		}, "/docs/18/protocol-message-types.html: redirected to {srv}/docs/18/index.html, not the page asked for"},
		{"too big", "en", "18", "18", "18", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
			if strings.HasSuffix(r.URL.Path, types) {
				w.Write(make([]byte, MaxPage+1))
				return true
			}
			return false
		}, "/docs/18/protocol-message-types.html: more than 8388608 bytes"},
		{"invalid UTF-8", "en", "18", "18", "18", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
			if strings.HasSuffix(r.URL.Path, types) {
				i := bytes.Index(page, []byte("</head>"))
				w.Write(append(page[:i:i], append([]byte("\xff"), page[i:]...)...))
				return true
			}
			return false
		}, "/docs/18/protocol-message-types.html: invalid UTF-8 at byte offset {off}"},
	} {
		srv := site(t, c.lang, c.major, c.as, c.edit)
		off := bytes.Index(readCorpus(t, "en/18/"+types), []byte("</head>"))
		want := srv.URL + strings.NewReplacer("{srv}", srv.URL, "{off}", strconv.Itoa(off)).Replace(c.want)
		pages, err := fetchFrom(srv, c.askMajor, "en", 0)
		if pages != nil || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", c.name, err, want)
		}
	}
}

// A redirect to the same page elsewhere (http to https, a moved
// directory) is followed; the content still decides.
func TestRedirectToTheSamePageIsFollowed(t *testing.T) {
	srv := site(t, "en", "18", "18", nil)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+strings.Replace(r.URL.Path, "/old/", "/docs/", 1), http.StatusMovedPermanently)
	}))
	defer front.Close()
	pages, err := Fetch(context.Background(), front.Client(), Request{Major: "18", Lang: "en", BaseURL: front.URL + "/old/"}, now)
	if err != nil || len(pages) != 10 || pages[0].URL != front.URL+"/old/18/protocol-message-formats.html" {
		t.Fatalf("%v", err)
	}
}

// Transient failures are retried a bounded number of times; others are not.
func TestRetries(t *testing.T) {
	var calls atomic.Int32
	failFirst := func(n int32, status int) func(w http.ResponseWriter, r *http.Request, page []byte) bool {
		calls.Store(0)
		return func(w http.ResponseWriter, r *http.Request, page []byte) bool {
			if !strings.HasSuffix(r.URL.Path, "protocol-error-fields.html") {
				return false
			}
			if calls.Add(1) <= n {
				http.Error(w, "busy", status)
				return true
			}
			return false
		}
	}
	if _, err := fetchFrom(site(t, "en", "18", "18", failFirst(2, http.StatusServiceUnavailable)), "18", "en", 2); err != nil || calls.Load() != 3 {
		t.Errorf("two 503s then the page, 2 retries: %v after %d requests", err, calls.Load())
	}
	srv := site(t, "en", "18", "18", failFirst(5, http.StatusServiceUnavailable))
	var lines []string
	_, err := Fetch(context.Background(), srv.Client(), Request{Major: "18", Lang: "en", BaseURL: srv.URL + "/docs/", Retries: 2, Backoff: time.Millisecond,
		Progress: func(line string) { lines = append(lines, line) }}, now)
	if err == nil || !strings.Contains(err.Error(), "protocol-error-fields.html: HTTP 503 Service Unavailable (3 attempts failed)") || calls.Load() != 3 {
		t.Errorf("503 always, 2 retries: %v after %d requests", err, calls.Load())
	}
	errorFields := srv.URL + "/docs/18/protocol-error-fields.html: "
	for _, want := range []string{errorFields + "attempt 1 failed (HTTP 503 Service Unavailable); retrying in 1ms", errorFields + "attempt 2 failed (HTTP 503 Service Unavailable); retrying in 2ms",
		errorFields + "HTTP 503 Service Unavailable (3 attempts failed)", srv.URL + "/docs/18/protocol-replication.html: "} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("progress lacks %q: %q", want, lines)
		}
	}
	_, err = fetchFrom(site(t, "en", "18", "18", failFirst(5, http.StatusNotFound)), "18", "en", 2)
	if err == nil || calls.Load() != 1 {
		t.Errorf("404 is not retried: %v after %d requests", err, calls.Load())
	}
	// A body cut short is retried; the page kept is the whole one.
	calls.Store(0)
	srv = site(t, "en", "18", "18", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
		if strings.HasSuffix(r.URL.Path, "protocol-error-fields.html") && calls.Add(1) == 1 {
			w.Header().Set("Content-Length", strconv.Itoa(len(page)))
			w.Write(page[:len(page)/2])
			return true
		}
		return false
	})
	pages, err := fetchFrom(srv, "18", "en", 1)
	if err != nil || calls.Load() != 2 || pages[4].Size != len(readCorpus(t, "en/18/protocol-error-fields.html")) {
		t.Errorf("cut body, 1 retry: %v after %d requests", err, calls.Load())
	}
}

// Check refuses, before anything is fetched, what Fetch would refuse
// without asking a server.
func TestBadRequests(t *testing.T) {
	for _, c := range []struct {
		r    Request
		want string
	}{
		{Request{Major: "x20", Lang: "en", BaseURL: "http://127.0.0.1:1/"}, `major "x20": want a number such as 20, or devel`},
		{Request{Major: "20", Lang: "fr"}, `language "fr": want en or zh`},
		{Request{Major: "20", Lang: "en", BaseURL: "ftp://example.org/"}, `base URL "ftp://example.org/": want an http or https URL`},
		{Request{Major: "020", Lang: "en"}, `major "020": want a number such as 20, or devel`},
		{Request{Major: "20", Lang: "en", BaseURL: "127.0.0.1:8080/docs/"}, `base URL "127.0.0.1:8080/docs/": want an http or https URL`},
		{Request{Major: "9", Lang: "en", BaseURL: "http://127.0.0.1:1/"}, "major 9: no site has it (majors are numbered 10, 11, … since 10; 9.6 and before are not in the corpus)"},
		{Request{Major: "99", Lang: "en", BaseURL: "http://127.0.0.1:1/", Newest: 19}, "major 99: no site has it yet (the spec's newest is 19; fetch 20, or devel)"},
	} {
		if _, err := Fetch(context.Background(), http.DefaultClient, c.r, now); err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v, want %q", c.r, err, c.want)
		}
		if err := c.r.Check(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: Check: got %v, want %q", c.r, err, c.want)
		}
	}
}

// The pages are asked for at once: each request waits here until all have
// arrived, which one page after another never would.
func TestFetchesInParallel(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(len(extract.PagesOf(18)))
	srv := site(t, "en", "18", "18", func(w http.ResponseWriter, r *http.Request, page []byte) bool {
		arrived.Done()
		arrived.Wait()
		return false
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var lines []string
	pages, err := Fetch(ctx, srv.Client(), Request{Major: "18", Lang: "en", BaseURL: srv.URL + "/docs/", Progress: func(line string) { lines = append(lines, line) }}, now)
	if err != nil || len(pages) != len(extract.PagesOf(18)) || pages[0].Path != "en/18/protocol-message-formats.html" {
		t.Fatalf("%v", err)
	}
	if len(lines) != len(pages) || !strings.HasSuffix(lines[0], " bytes, 18.6") {
		t.Errorf("progress: %q", lines)
	}
}

// A server that accepts and never answers costs the deadline and no more:
// every page says so, with the attempts made.
func TestSilentServerMeetsTheDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Fetch(ctx, &http.Client{}, Request{Major: "18", Lang: "en", BaseURL: "http://" + ln.Addr().String() + "/docs/", Retries: 3, Backoff: time.Millisecond}, now)
	if err == nil || strings.Count(err.Error(), "no answer before the deadline (-timeout); 1 attempt(s) made") != len(extract.PagesOf(18)) {
		t.Errorf("got %v", err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("took %s against a 300ms deadline", elapsed)
	}
}
