package site

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/internal/corpus"
	"github.com/pgspec/pgspec/spec"
)

// committed compares the committed spec's majors under its overlay's layout.
func committed(t *testing.T) *matrix.History {
	t.Helper()
	dir := os.DirFS(filepath.Join(corpus.Root(), "spec"))
	specs, err := spec.LoadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := spec.LoadOverlay(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := matrix.Build(specs, matrix.ModelLayout(ov))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(t *testing.T, srv *httptest.Server, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

func TestServe(t *testing.T) {
	h := committed(t)
	handler, err := New(h, matrix.English)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(corpus.Root(), "spec", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	// The page and the JSON are the committed files, byte for byte.
	for _, path := range []string{"/", "/matrix.html"} {
		code, h, body := get(t, srv, path)
		if code != 200 || h.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") || body != read("matrix.html") {
			t.Errorf("GET %s: %d %v, page equal to spec/matrix.html: %t", path, code, h, body == read("matrix.html"))
		}
	}
	if code, h, body := get(t, srv, "/matrix.json"); code != 200 || h.Get("Content-Type") != "application/json" || body != read("matrix.json") {
		t.Errorf("GET /matrix.json: %d %v, equal to spec/matrix.json: %t", code, h, body == read("matrix.json"))
	}
	var zh struct{ Layers []struct{ Title string } }
	if code, _, body := get(t, srv, "/matrix.json?lang=zh"); code != 200 || json.Unmarshal([]byte(body), &zh) != nil || len(zh.Layers) == 0 || zh.Layers[1].Title != "逻辑复制格式" {
		t.Errorf("GET /matrix.json?lang=zh: %d, layers %+v", code, zh.Layers)
	}

	// The index lists one record per slug with its majors; each address
	// answers its record, at the newest major by default.
	code, _, body := get(t, srv, "/records/")
	var index []struct {
		Slug, Name, URL string
		Majors          []int
	}
	if err := json.Unmarshal([]byte(body), &index); code != 200 || err != nil || len(index) != len(h.Rows) {
		t.Fatalf("GET /records/: %d, %d entries (want %d), %v", code, len(index), len(h.Rows), err)
	}
	var bkd string
	var bkdMajors []int
	for _, e := range index {
		if e.Slug == "backend-key-data" {
			bkd, bkdMajors = e.URL, e.Majors
		}
	}
	if bkd != "/records/backend-key-data.json" || len(bkdMajors) != len(h.Specs) {
		t.Fatalf("index entry of backend-key-data: %q %v", bkd, bkdMajors)
	}
	type record struct {
		Major string
		Item  struct {
			Slug     string
			Versions map[string]struct{ Tables []struct{ Title string } }
		}
		Comparison struct{ Left, Right, Status, Classification string }
	}
	fetch := func(path string) record {
		t.Helper()
		code, _, body := get(t, srv, path)
		var rec record
		if err := json.Unmarshal([]byte(body), &rec); code != 200 || err != nil || rec.Item.Slug != "backend-key-data" {
			t.Fatalf("GET %s: %d %v %q", path, code, err, body)
		}
		return rec
	}
	newest := strconv.Itoa(h.Specs[len(h.Specs)-1].Major)
	if rec := fetch(bkd); rec.Major != newest || len(rec.Item.Versions) != len(h.Specs) {
		t.Errorf("GET %s: major %s, %d versions", bkd, rec.Major, len(rec.Item.Versions))
	}
	rec := fetch(bkd + "?lang=zh&major=18")
	if c := rec.Comparison; c.Left != "17" || c.Right != "18" || c.Status != "changed" || c.Classification != "wire change" {
		t.Errorf("17 → 18 comparison: %+v", c)
	}
	if title := rec.Item.Versions["18"].Tables[0].Title; title != "按手册顺序排列的字段" {
		t.Errorf("record in Chinese: table title %q", title)
	}
	if c := fetch(bkd + "?major=18&against=12").Comparison; c.Left != "12" || c.Classification != "wire change" {
		t.Errorf("12 against 18: %+v", c)
	}

	// Wrong requests are told what is wrong.
	for _, c := range []struct {
		method, path string
		code         int
		msg          string
	}{
		{"GET", "/records/no-such-message.json", 404, `no record "no-such-message.json"`},
		{"GET", "/records/backend-key-data", 404, `no record "backend-key-data"`},
		{"GET", "/records/backend-key-data.json?lang=fr", 400, `unknown language "fr"`},
		{"GET", "/records/backend-key-data.json?major=x", 400, `major="x": want a major such as 18`},
		{"GET", "/records/backend-key-data.json?major=9", 404, "major 9 is not in the spec"},
		{"GET", "/records/backend-key-data.json?major=18&against=99", 404, "major 99 is not in the spec"},
		{"GET", "/records/logical-stream-abort.json?major=13", 404, `message "logical-stream-abort" is not documented in 13`},
		{"GET", "/matrix.json?lang=de", 400, `unknown language "de"`},
		{"GET", "/spec/pg18.json", 404, "404 page not found"},
		{"POST", "/", 405, "Method Not Allowed"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(body), c.msg) {
			t.Errorf("%s %s: %d %q, want %d %q", c.method, c.path, resp.StatusCode, body, c.code, c.msg)
		}
	}
}
