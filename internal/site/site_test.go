package site

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/internal/corpus"
)

// committed compares the committed spec's majors under its overlay's
// layout, with its flow rules, as pgspec serve does.
func committed(t *testing.T) *matrix.History {
	t.Helper()
	h, err := matrix.Load(os.DirFS(filepath.Join(corpus.Root(), "spec")))
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

	// /matrix.html is the committed page, byte for byte; the index is the
	// same matrix with its rows linked to the message pages.
	if code, hd, body := get(t, srv, "/matrix.html"); code != 200 || hd.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(hd.Get("Content-Security-Policy"), "default-src 'none'") || body != read("matrix.html") {
		t.Errorf("GET /matrix.html: %d %v, equal to spec/matrix.html: %t", code, hd, body == read("matrix.html"))
	}
	newest := strconv.Itoa(h.Specs[len(h.Specs)-1].Major)
	for _, l := range langs {
		path, want := langPrefix(l)+"/", `<html lang="`+map[matrix.Lang]string{matrix.English: "en", matrix.Chinese: "zh-CN"}[l]+`">`
		link := `<a href="` + pageURL(l, "backend-key-data", h.Specs[len(h.Specs)-1].Major) + `">Backend<wbr>Key<wbr>Data&nbsp;(B)</a>`
		code, hd, body := get(t, srv, path)
		if code != 200 || !strings.Contains(hd.Get("Content-Security-Policy"), "default-src 'none'") || !strings.Contains(body, want) || !strings.Contains(body, link) {
			t.Errorf("GET %s: %d, %s: %t, %s: %t", path, code, want, strings.Contains(body, want), link, strings.Contains(body, link))
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
	if err := json.Unmarshal([]byte(body), &index); code != 200 || err != nil || len(index) != slugs(h) {
		t.Fatalf("GET /records/: %d, %d entries (want %d), %v", code, len(index), slugs(h), err)
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

// A page per message and major in both languages: the record rendered,
// with the comparison, the other majors and the other language linked.
func TestMessagePages(t *testing.T) {
	h := committed(t)
	handler, err := New(h, matrix.English)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()

	code, hd, body := get(t, srv, "/protocol/logical-update/?v=15")
	for _, want := range []string{
		`<html lang="en">`,
		`<h1>Update (logical replication) <span class="major">PostgreSQL 15</span></h1>`,
		`<link rel="alternate" hreflang="zh-CN" href="/zh/protocol/logical-update/?v=15">`,
		`<h2 id="fields-h">Fields in documented order</h2>`,
		`<td>2</td><td><code>Int32 (TransactionId)</code></td><td>Xid of the transaction (only present for streamed transactions). This field is available since protocol version 2.</td>`,
		`Compared 14 → 15 <span class="badge s-changed">changed</span> <span class="badge">annotation change</span>`,
		`<span class="del">-      &#34;format&#34;: &#34;Int32&#34;,</span>`,
		`<span class="add">&#43;      &#34;format&#34;: &#34;Int32 (TransactionId)&#34;,</span>`,
		`<span class="cur" aria-current="page">15</span><a href="/protocol/logical-update/?v=16">16</a>`,
		`<a href="/protocol/logical-update/?v=15&amp;against=13#comparison">13</a>`,
		`<a href="https://www.postgresql.org/docs/15/protocol-logicalrep-message-formats.html#PROTOCOL-LOGICALREP-MESSAGE-FORMATS-UPDATE">PostgreSQL 15 English manual</a>`,
		`<a href="https://ftp.postgresql.org/pub/source/v15.`,
		`<a href="https://www.postgresql.org/docs/15/protocol-replication.html">Streaming replication protocol</a>`,
		`<a href="/records/logical-update.json?against=14&amp;major=15">JSON record</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /protocol/logical-update/?v=15 lacks %s", want)
		}
	}
	if code != 200 || hd.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(hd.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("GET /protocol/logical-update/?v=15: %d %v", code, hd)
	}

	// In Chinese, against 13 on request; the JSON link is that record.
	_, _, body = get(t, srv, "/zh/protocol/logical-update/?v=15&against=13")
	for _, want := range []string{`<html lang="zh-CN">`, `<h1>Update（逻辑复制） <span class="major">PostgreSQL 15</span></h1>`,
		`<h2 id="fields-h">按手册顺序排列的字段</h2>`, `比较 13 → 15 <span class="badge s-changed">有变更</span> <span class="badge">wire change</span>`,
		`<a class="lang" href="/protocol/logical-update/?v=15" hreflang="en" lang="en">English</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /zh/protocol/logical-update/?v=15&against=13 lacks %s", want)
		}
	}
	jsonURL := regexp.MustCompile(`<a href="(/records/[^"]+)">JSON 记录</a>`).FindStringSubmatch(body)
	if jsonURL == nil {
		t.Fatal("no JSON link")
	}
	var rec struct {
		Major      string
		Comparison struct{ Left, Status string }
		Item       struct {
			NameZh string `json:"name_zh"`
		}
	}
	if _, _, js := get(t, srv, html.UnescapeString(jsonURL[1])); json.Unmarshal([]byte(js), &rec) != nil || rec.Major != "15" || rec.Comparison.Left != "13" || rec.Item.NameZh != "Update（逻辑复制）" {
		t.Errorf("GET %s: %+v", jsonURL[1], rec)
	}

	// Without ?v the page is of the newest major that has the message; a
	// major without it is greyed out, not linked.
	_, _, body = get(t, srv, "/protocol/authentication-scm-credential/")
	last := h.Specs[len(h.Specs)-1].Major
	if !strings.Contains(body, `<span class="cur" aria-current="page">15</span>`) || !strings.Contains(body, fmt.Sprintf(`<span class="no" title="not documented in this major">%d</span>`, last)) {
		t.Errorf("authentication-scm-credential without ?v: not the page of 15 with %d greyed out", last)
	}
	// The first major has nothing to compare with.
	if _, _, body := get(t, srv, fmt.Sprintf("/protocol/bind/?v=%d", h.Specs[0].Major)); !strings.Contains(body, "First major of the corpus: nothing earlier to compare with") {
		t.Error("bind at the first major: no baseline")
	}

	// Every message has a page at every major it is in, in both languages.
	pages := 0
	for _, row := range h.Rows {
		for i, sp := range h.Specs {
			if h.Message(row.Slug, i) == nil {
				continue
			}
			for _, l := range langs {
				code, _, body := get(t, srv, pageURL(l, row.Slug, sp.Major))
				if code != 200 || !strings.Contains(body, fmt.Sprintf(`<span class="major">PostgreSQL %d</span>`, sp.Major)) {
					t.Fatalf("GET %s: %d", pageURL(l, row.Slug, sp.Major), code)
				}
				pages++
			}
		}
	}
	t.Logf("%d message pages", pages)

	// /protocol/ lists every message and command by category, each linked
	// to its newest page, and the matrix and each page link to it.
	_, _, body = get(t, srv, "/zh/protocol/")
	for _, want := range []string{`<h1>全部消息与复制命令</h1>`, `<h2>逻辑复制格式 <small>(`, `<h2>复制命令 <small>(`,
		`<li><a href="/zh/protocol/authentication-scm-credential/?v=15">AuthenticationSCMCredential</a> <small>10–15</small></li>`,
		`<a href="/zh/protocol/upload-manifest/?v=` + strconv.Itoa(h.Specs[len(h.Specs)-1].Major) + `">UPLOAD_MANIFEST（复制命令）</a> <small>17–`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /zh/protocol/ lacks %s", want)
		}
	}
	if n := strings.Count(body, "<li><a href="); n != slugs(h) {
		t.Errorf("GET /zh/protocol/: %d entries", n)
	}
	if _, _, body := get(t, srv, "/"); !strings.Contains(body, `· <a href="/protocol/"><span lang="en">All messages and replication commands</span>`) {
		t.Error("the matrix does not link the list")
	}
	if _, _, body := get(t, srv, "/protocol/bind/?v=15"); !strings.Contains(body, `› <a href="/protocol/">Frontend/backend messages</a> ›`) {
		t.Error("a message page does not link the list")
	}

	// The replication commands have pages too.
	_, _, body = get(t, srv, "/protocol/base-backup/?v=15")
	for _, want := range []string{`<h1>BASE_BACKUP (replication command) <span class="major">PostgreSQL 15</span></h1>`,
		`<dt>Synopsis</dt><dd><code>BASE_BACKUP [ ( option [, ...] ) ]`, `<code>LABEL &#39;label&#39;</code>`,
		`Compared 14 → 15 <span class="badge s-changed">changed</span> <span class="badge">wire change</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /protocol/base-backup/?v=15 lacks %s", want)
		}
	}

	for _, c := range []struct {
		path string
		code int
		msg  string
	}{
		{"/protocol/no-such-message/", 404, `no message "no-such-message"`},
		{"/protocol/bind/?v=9", 404, "major 9 is not in the spec"},
		{"/protocol/bind/?v=x", 400, `v="x": want a major such as 18`},
		{"/protocol/bind/?v=15&against=99", 404, "major 99 is not in the spec"},
		{"/zh/protocol/logical-stream-abort/?v=13", 404, `message "logical-stream-abort" is not documented in 13`},
	} {
		if code, _, body := get(t, srv, c.path); code != c.code || !strings.Contains(body, c.msg) {
			t.Errorf("GET %s: %d %q, want %d %q", c.path, code, body, c.code, c.msg)
		}
	}
}

// slugs counts the messages and the replication commands of h's majors.
func slugs(h *matrix.History) int {
	seen := map[string]bool{}
	for _, s := range h.Specs {
		for _, c := range s.Commands {
			seen[c.Slug] = true
		}
	}
	return len(h.Rows) + len(seen)
}
