// Package site is what pgspec serve runs: the version-difference matrix
// as its index, a page per message and major in both languages rendered
// from export's pg.center records, the matrix as JSON and the records.
// Matrix pages and exports are built once, when the handler is made, from
// the same model as the committed files; message pages and records are
// rendered on request.
package site

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/gen/export"
	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

// pagePolicy lets a page run its own inline style and script and load
// nothing else, as the pages' own meta elements say too.
const pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

var langs = []matrix.Lang{matrix.English, matrix.Chinese}

// site holds the rendered documents, and the exports records are made
// from on request.
type site struct {
	majors []int
	// page is the committed matrix page, index the site's (linked to the
	// message pages), by language.
	page    []byte
	index   map[matrix.Lang][]byte
	matrix  map[matrix.Lang][]byte
	exports map[matrix.Lang]*export.Export
	// records lists the records: slug, name, majors and address, in matrix row order.
	records []byte
}

type indexEntry struct {
	Slug   string `json:"slug"`
	Name   string `json:"name"`
	Majors []int  `json:"majors"`
	URL    string `json:"url"`
}

// New renders every document of h, the committed page opening in lang, and returns the handler that serves them:
//
//	GET /, /zh/                    the matrix, its rows and details linked to the message pages
//	GET /protocol/SLUG/?v=N[&against=M], /zh/protocol/SLUG/?v=N[&against=M]
//	                               the message at major N (default: the newest that has it), in
//	                               English or Chinese, compared with M (default: the major before N)
//	GET /protocol/, /zh/protocol/  every message and replication command, linked to its newest page
//	GET /matrix.html               the matrix page as committed (spec/matrix.html)
//	GET /matrix.json[?lang=zh]     the matrix as data (also /zh/matrix.json)
//	GET /records/                  the slugs with their majors and records' addresses
//	GET /records/SLUG.json[?lang=zh][&major=N][&against=M]
//	                               export's record behind the message page
func New(h *matrix.History, lang matrix.Lang) (http.Handler, error) {
	s := &site{matrix: map[matrix.Lang][]byte{}, exports: map[matrix.Lang]*export.Export{}, index: map[matrix.Lang][]byte{}}
	var err error
	if s.page, err = h.HTML(lang); err != nil {
		return nil, err
	}
	for _, sp := range h.Specs {
		s.majors = append(s.majors, sp.Major)
	}
	for _, l := range langs {
		if s.matrix[l], err = h.JSON(l); err != nil {
			return nil, err
		}
		if s.exports[l], err = export.New(h, l); err != nil {
			return nil, err
		}
		if s.index[l], err = h.SiteHTML(l, func(slug string, major int) string { return pageURL(l, slug, major) }, listURL(l)); err != nil {
			return nil, err
		}
	}
	var index []indexEntry
	for _, it := range s.exports[matrix.English].Items {
		index = append(index, indexEntry{Slug: it.Slug, Name: it.Name, Majors: s.exports[matrix.English].Majors(it.Slug), URL: "/records/" + it.Slug + ".json"})
	}
	if s.records, err = spec.Marshal(index); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	for _, l := range langs {
		prefix := langPrefix(l)
		mux.HandleFunc("GET "+prefix+"/{$}", func(w http.ResponseWriter, r *http.Request) { s.serveHTML(w, s.index[l]) })
		mux.HandleFunc("GET "+prefix+"/protocol/{slug}/{$}", func(w http.ResponseWriter, r *http.Request) { s.serveMessage(w, r, l) })
		list, err := renderList(s.exports[l], l)
		if err != nil {
			return nil, err
		}
		mux.HandleFunc("GET "+prefix+"/protocol/{$}", func(w http.ResponseWriter, r *http.Request) { s.serveHTML(w, list) })
	}
	mux.HandleFunc("GET /matrix.html", func(w http.ResponseWriter, r *http.Request) { s.serveHTML(w, s.page) })
	mux.HandleFunc("GET /matrix.json", s.serveMatrix)
	mux.HandleFunc("GET /zh/matrix.json", func(w http.ResponseWriter, r *http.Request) { write(w, "application/json", s.matrix[matrix.Chinese]) })
	mux.HandleFunc("GET /records/{$}", func(w http.ResponseWriter, r *http.Request) { write(w, "application/json", s.records) })
	mux.HandleFunc("GET /records/{file}", s.serveRecord)
	return mux, nil
}

func (s *site) serveHTML(w http.ResponseWriter, page []byte) {
	w.Header().Set("Content-Security-Policy", pagePolicy)
	write(w, "text/html; charset=utf-8", page)
}

// serveMessage answers a message page: ?v is the major, &against the
// other side of the comparison.
func (s *site) serveMessage(w http.ResponseWriter, r *http.Request, l matrix.Lang) {
	e := s.exports[l]
	slug := r.PathValue("slug")
	it := e.Item(slug)
	if it == nil {
		http.Error(w, fmt.Sprintf("no message %q: the matrix at / links every message's pages", slug), http.StatusNotFound)
		return
	}
	majors := e.Majors(slug)
	major, ok := majorParam(w, r, "v", majors[len(majors)-1])
	if !ok {
		return
	}
	against, ok := majorParam(w, r, "against", e.Previous(major))
	if !ok {
		return
	}
	rec, err := e.Record(it, major, against)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	latest := e.Item(slug).Versions[fmt.Sprint(majors[len(majors)-1])].Signature
	page, err := renderMessage(e, s.majors, l, rec, major, latest)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.serveHTML(w, page)
}

func (s *site) serveMatrix(w http.ResponseWriter, r *http.Request) {
	if l, ok := language(w, r); ok {
		write(w, "application/json", s.matrix[l])
	}
}

func (s *site) serveRecord(w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	slug, isJSON := strings.CutSuffix(file, ".json")
	l, ok := language(w, r)
	if !ok {
		return
	}
	e := s.exports[l]
	it := e.Item(slug)
	if !isJSON || it == nil {
		http.Error(w, fmt.Sprintf("no record %q: the records are /records/SLUG.json, listed at /records/", file), http.StatusNotFound)
		return
	}
	majors := e.Majors(slug)
	major, ok := majorParam(w, r, "major", majors[len(majors)-1])
	if !ok {
		return
	}
	against, ok := majorParam(w, r, "against", e.Previous(major))
	if !ok {
		return
	}
	rec, err := e.Record(it, major, against)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	data, err := spec.Marshal(rec)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	write(w, "application/json", data)
}

// majorParam reads a major from the query, def when absent; a value that
// is no number is answered 400 here (one outside the corpus is the
// record's error).
func majorParam(w http.ResponseWriter, r *http.Request, name string, def int) (int, bool) {
	q := r.URL.Query().Get(name)
	if q == "" {
		return def, true
	}
	n, err := strconv.Atoi(q)
	if err != nil || n <= 0 {
		http.Error(w, fmt.Sprintf("%s=%q: want a major such as 18", name, q), http.StatusBadRequest)
		return 0, false
	}
	return n, true
}

// language reads the lang query parameter, English when absent; anything
// else is answered 400 here.
func language(w http.ResponseWriter, r *http.Request) (matrix.Lang, bool) {
	q := r.URL.Query().Get("lang")
	if q == "" {
		return matrix.English, true
	}
	l, err := matrix.ParseLang(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return "", false
	}
	return l, true
}

func write(w http.ResponseWriter, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(data)
}
