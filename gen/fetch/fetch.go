// Package fetch is the pipeline's first stage, postgresql.org → corpus: it
// downloads a major's pages (the five protocol pages, the chapter's other
// pages and, from 19, pgoutput's page: extract.PagesOf) into the corpus layout extract reads
// (DOCS/<lang>/<major>/<page>.html) and records each page's URL, size, sha256
// and date in the corpus MANIFEST.md.
//
// A page is refused, naming its URL and the reason, when the server answers
// with an HTTP error, redirects to another page, sends more than MaxPage
// bytes, or sends a page of another chapter, language or major. Transient
// failures (network errors, 5xx, 429) are retried a bounded number of times.
// Nothing is written unless every page was fetched and accepted.
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pgspec/pgspec/gen/extract"
)

// Where the pages are published: the PostgreSQL website for English
// (devel included), the Chinese documentation site for Chinese.
var DefaultBaseURL = map[string]string{
	"en": "https://www.postgresql.org/docs/",
	"zh": "http://www.postgres.cn/docs/",
}

// MaxPage bounds a page's size, as extract does.
const MaxPage = extract.MaxPage

// Request says what to fetch.
type Request struct {
	// Major is a major number ("20") or "devel".
	Major string
	// Lang is "en" or "zh".
	Lang string
	// BaseURL is where <major>/<page> is found; DefaultBaseURL[Lang] when empty.
	BaseURL string
	// Retries bounds the further attempts after a transient failure.
	Retries int
	// Backoff is the wait before the first retry; it doubles after each.
	Backoff time.Duration
	// Newest is the newest major of the spec: a major beyond the next two
	// can be on no site yet. 0 sets no bound.
	Newest int
	// Progress, when set, is told what happens to each page as it does
	// (a failed attempt, the page fetched or refused), one line at a time.
	Progress func(line string)
}

// FirstMajor is the first major numbered with one number: before it came
// 9.6, 9.5, …, so "9" is on no site.
const FirstMajor = 10

// Page is one fetched and accepted page.
type Page struct {
	// Path is where the corpus keeps it: "en/20/protocol-replication.html".
	Path    string
	URL     string
	Lang    string
	Major   int
	Release string
	Size    int
	SHA256  string
	Date    time.Time
	Data    []byte
}

// Fetch downloads the pages of r (extract.PagesOf its major) with client,
// all at once, checks each and returns them, or an error listing every page
// refused with its URL and reason. ctx bounds the whole fetch; now stamps
// the pages.
func Fetch(ctx context.Context, client *http.Client, r Request, now func() time.Time) ([]Page, error) {
	base, want, err := r.target()
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	progress := func(format string, args ...any) {
		if r.Progress != nil {
			mu.Lock()
			defer mu.Unlock()
			r.Progress(fmt.Sprintf(format, args...))
		}
	}
	kinds := extract.PagesOf(want)
	pages := make([]Page, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, kind := range kinds {
		wg.Go(func() {
			u := base.JoinPath(r.Major, kind.File).String()
			p, err := fetchPage(ctx, client, u, kind, r, want, progress)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", u, err)
				progress("%v", errs[i])
				return
			}
			p.Date = now().UTC()
			pages[i] = p
			progress("%s: %d bytes, %s", u, p.Size, p.Release)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// devel names its major in its release label; every page must agree.
	for _, p := range pages[1:] {
		if p.Major != pages[0].Major {
			return nil, fmt.Errorf("%s: release %s, but %s is %s", p.URL, p.Release, pages[0].URL, pages[0].Release)
		}
	}
	return pages, nil
}

// Check reports what Fetch would refuse in r itself, before asking any
// server: a major, language or base URL it cannot fetch.
func (r Request) Check() error {
	_, _, err := r.target()
	return err
}

// target is where r's pages are and the major they must be of (0 for
// devel, whose pages name their major).
func (r Request) target() (base *url.URL, major int, err error) {
	raw := r.BaseURL
	if _, ok := DefaultBaseURL[r.Lang]; !ok {
		return nil, 0, fmt.Errorf("language %q: want en or zh", r.Lang)
	}
	if raw == "" {
		raw = DefaultBaseURL[r.Lang]
	}
	base, err = url.Parse(raw)
	if err != nil || base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, 0, fmt.Errorf("base URL %q: want an http or https URL", raw)
	}
	if r.Major != "devel" {
		if major, err = strconv.Atoi(r.Major); err != nil || major <= 0 || strconv.Itoa(major) != r.Major {
			return nil, 0, fmt.Errorf("major %q: want a number such as 20, or devel", r.Major)
		}
		switch {
		case major < FirstMajor:
			return nil, 0, fmt.Errorf("major %d: no site has it (majors are numbered %d, %d, … since %d; 9.6 and before are not in the corpus)", major, FirstMajor, FirstMajor+1, FirstMajor)
		case r.Newest > 0 && major > r.Newest+2:
			return nil, 0, fmt.Errorf("major %d: no site has it yet (the spec's newest is %d; fetch %d, or devel)", major, r.Newest, r.Newest+1)
		}
	}
	return base, major, nil
}

// fetchPage gets one page, retrying transient failures (each reported to
// progress), and checks it is the page asked for.
func fetchPage(ctx context.Context, client *http.Client, u string, kind extract.PageKind, r Request, want int, progress func(string, ...any)) (Page, error) {
	var data []byte
	var err error
	wait := r.Backoff
	attempts := 0
	for {
		var transient bool
		attempts++
		data, transient, err = get(ctx, client, u, kind.File)
		if ctx.Err() != nil {
			return Page{}, deadline(attempts)
		}
		if err == nil || !transient || attempts > r.Retries {
			break
		}
		progress("%s: attempt %d failed (%v); retrying in %s", u, attempts, err, wait)
		select {
		case <-ctx.Done():
			return Page{}, deadline(attempts)
		case <-time.After(wait):
		}
		wait *= 2
	}
	if err != nil && attempts > 1 {
		return Page{}, fmt.Errorf("%w (%d attempts failed)", err, attempts)
	}
	if err != nil {
		return Page{}, err
	}
	release, lang, err := extract.Identify(data, u, kind)
	if err != nil {
		var e *extract.Error
		if errors.As(err, &e) {
			err = e.Err
		}
		return Page{}, err
	}
	major, ok := extract.ReleaseMajor(release)
	switch {
	case lang != r.Lang:
		return Page{}, fmt.Errorf("a page in %s, not %s", lang, r.Lang)
	case !ok:
		return Page{}, fmt.Errorf("release label %q names no major", release)
	case want != 0 && major != want:
		return Page{}, fmt.Errorf("the page of PostgreSQL %s, not %d", release, want)
	case want == 0 && !strings.HasSuffix(release, "devel"):
		return Page{}, fmt.Errorf("the page of PostgreSQL %s, not a devel snapshot", release)
	}
	sum := sha256.Sum256(data)
	return Page{
		Path: path.Join(r.Lang, strconv.Itoa(major), kind.File), URL: u, Lang: lang, Major: major,
		Release: release, Size: len(data), SHA256: hex.EncodeToString(sum[:]), Data: data,
	}, nil
}

// deadline is the error of a page the fetch's deadline cut short.
func deadline(attempts int) error {
	return fmt.Errorf("no answer before the deadline (-timeout); %d attempt(s) made", attempts)
}

// errRedirect marks a redirect to a page other than the one asked for.
var errRedirect = errors.New("redirected")

// get makes one attempt; transient says whether another may succeed.
func get(ctx context.Context, client *http.Client, u, file string) (data []byte, transient bool, err error) {
	c := *client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return fmt.Errorf("%w %d times", errRedirect, len(via))
		}
		if path.Base(req.URL.Path) != file {
			return fmt.Errorf("%w to %s, not the page asked for", errRedirect, req.URL)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(err, errRedirect) {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return nil, false, err
		}
		return nil, ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests, fmt.Errorf("HTTP %s", resp.Status)
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, MaxPage+1))
	if err != nil {
		return nil, true, fmt.Errorf("reading the body: %w", err)
	}
	if len(data) > MaxPage {
		return nil, false, fmt.Errorf("more than %d bytes", MaxPage)
	}
	return data, false, nil
}
