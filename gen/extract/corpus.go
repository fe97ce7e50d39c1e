package extract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/PuerkitoBio/goquery"

	"github.com/pgspec/pgspec/spec"
)

// Corpus is a documentation corpus whose manifests agree with its
// directories. Every page is read through Page, which checks it against
// its manifest row before anyone looks inside.
type Corpus struct {
	fs       fs.FS
	manifest map[string]manifestEntry
	plan     *corpusPlan
}

// OpenCorpus reads the manifests of docs (ManifestFile, and
// ChapterManifestFile when present) and checks them against its
// directories: every listed major and language holds every page of PagesOf
// that major, and nothing else is there. Pages are read later, by Page.
func OpenCorpus(docs fs.FS) (*Corpus, error) {
	manifest, err := readManifests(docs)
	if err != nil {
		return nil, err
	}
	plan, err := planCorpus(docs, manifest)
	if err != nil {
		return nil, err
	}
	return &Corpus{fs: docs, manifest: manifest, plan: plan}, nil
}

// Majors are the majors the corpus has English pages of, ascending.
func (c *Corpus) Majors() []int { return slices.Clone(c.plan.majors) }

// Chinese says whether the corpus has the Chinese pages of major.
func (c *Corpus) Chinese(major int) bool { return c.plan.chinese[major] }

// Page reads lang/major/kind.File (at most MaxPage bytes) and checks it is
// the file its manifest row describes (sha256), valid UTF-8, the page of
// kind (its section) in lang, and parses it. Errors are *Error naming the
// file. The source is the manifest row, with the release the page names.
func (c *Corpus) Page(lang string, major int, kind PageKind) (*goquery.Document, spec.Source, error) {
	name := pageFile(lang, major, kind)
	fail := func(err error) (*goquery.Document, spec.Source, error) {
		return nil, spec.Source{}, &Error{File: name, Err: err}
	}
	entry, ok := c.manifest[name]
	if !ok {
		return fail(errors.New("not listed in " + ManifestFile))
	}
	data, err := readBounded(c.fs, name)
	if err != nil {
		return fail(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != entry.SHA256 {
		return fail(fmt.Errorf("sha256 %s, %s says %s", got, entry.File, entry.SHA256))
	}
	if err := checkUTF8(data); err != nil {
		return fail(err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(data))
	if err != nil {
		return fail(err)
	}
	release, got, err := identify(doc, name, kind)
	if err != nil {
		return nil, spec.Source{}, err
	}
	if got != lang {
		return fail(fmt.Errorf("a page in %s, not %s", got, lang))
	}
	return doc, spec.Source{Lang: lang, Page: kind.File, Release: release, Upstream: entry.Upstream,
		Origin: entry.Origin, HowMade: entry.HowMade, SHA256: entry.SHA256}, nil
}
