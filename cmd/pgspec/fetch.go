package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"time"

	"github.com/pgspec/pgspec/gen/extract"
	"github.com/pgspec/pgspec/gen/fetch"
	"github.com/pgspec/pgspec/internal/atomicfile"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["fetch"] = command{summary: "download a major's protocol chapter pages into a corpus for extract",
		more: "English pages come from the PostgreSQL website (" + fetch.DefaultBaseURL["en"] + "<major>/), devel included;\n" +
			"Chinese ones from " + fetch.DefaultBaseURL["zh"] + "<major>/. Each page's URL, size, sha256 and date go\n" +
			"into DIR/MANIFEST.md; nothing is written unless every page was fetched and accepted.", run: runFetch}
}

// now stamps fetched pages; tests replace it.
var now = time.Now

func runFetch(args []string, stdout, stderr io.Writer) int {
	c := newCLI("fetch", stdout, stderr)
	major := c.String("major", "", "PostgreSQL `major` to fetch: a number such as 20, or devel (required)")
	lang := c.String("lang", "en", "language: en or zh")
	out := c.String("out", "", "corpus `directory` to write <lang>/<major>/*.html and MANIFEST.md into (required)")
	base := c.String("base-url", "", "fetch <major>/<page> from this `URL` instead of the language's site")
	retries := c.Int("retries", 3, "further attempts after a transient failure (network error, HTTP 5xx or 429)")
	timeout := c.Duration("timeout", 2*time.Minute, "time allowed for the whole fetch: the five pages (fetched at once) and their retries")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	switch {
	case *major == "":
		return c.usageError("--major is required")
	case *out == "":
		return c.usageError("--out DIR is required")
	case *lang != "en" && *lang != "zh":
		return c.usageError("unknown language %q (want en or zh)", *lang)
	case *retries < 0:
		return c.usageError("--retries %d: want 0 or more", *retries)
	}
	specs, err := spec.LoadAll(spec.Embedded())
	if err != nil {
		return c.fail(1, "%v", err)
	}
	req := fetch.Request{Major: *major, Lang: *lang, BaseURL: *base, Retries: *retries, Backoff: 500 * time.Millisecond,
		Newest: specs[len(specs)-1].Major, Progress: func(line string) { fmt.Fprintln(stderr, "pgspec fetch: "+line) }}
	if err := req.Check(); err != nil {
		return c.usageError("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	pages, err := fetch.Fetch(ctx, &http.Client{}, req, now)
	if err != nil {
		return c.fail(1, "nothing written:\n%v", err)
	}
	manifestPath := filepath.Join(*out, extract.ManifestFile)
	manifest, err := os.ReadFile(manifestPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c.fail(1, "%v", err)
	}
	if manifest, err = fetch.UpdateManifest(manifest, pages); err != nil {
		return c.fail(1, "%s: %v", manifestPath, err)
	}
	files := map[string][]byte{}
	for _, p := range pages {
		files[path.Base(p.Path)] = p.Data
	}
	dir := filepath.Join(*out, filepath.FromSlash(path.Dir(pages[0].Path)))
	if err := atomicfile.WriteFiles(dir, files, 0o644); err != nil {
		return c.fail(1, "%v", err)
	}
	if err := atomicfile.WriteFile(manifestPath, manifest, 0o644); err != nil {
		return c.fail(1, "%v", err)
	}
	for _, p := range pages {
		fmt.Fprintf(stdout, "%s  %s  %d bytes  sha256 %s  from %s\n", p.Path, p.Release, p.Size, p.SHA256[:12], p.URL)
	}
	return 0
}
