package extract

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ManifestFile is the corpus manifest: the "## Files" table lists every
// page the corpus must hold, with its provenance and checksum. pgspec fetch
// writes every page it fetches there.
const ManifestFile = "MANIFEST.md"

// ChapterManifestFile is a second manifest, optional, with the same "## Files"
// table: the shared corpus lists the protocol chapter's other pages there.
// A page listed in both is an error.
const ChapterManifestFile = "MANIFEST-chapter.md"

// manifestEntry is one row of the corpus MANIFEST.md "Files" table.
type manifestEntry struct {
	Lang                              string
	Major                             int
	Upstream, Origin, HowMade, SHA256 string
	// File is the manifest that lists the page.
	File string
}

// readManifests reads ManifestFile and, when the corpus has it,
// ChapterManifestFile into one table.
func readManifests(docs fs.FS) (map[string]manifestEntry, error) {
	out := map[string]manifestEntry{}
	for _, name := range []string{ManifestFile, ChapterManifestFile} {
		f, err := docs.Open(name)
		if name == ChapterManifestFile && errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		rows, err := parseManifest(f, name)
		f.Close()
		if err != nil {
			return nil, err
		}
		for p, e := range rows {
			if first, dup := out[p]; dup {
				return nil, fmt.Errorf("%s: %s is listed in %s too: keep one row", name, p, first.File)
			}
			out[p] = e
		}
	}
	return out, nil
}

// parseManifest reads the "## Files" table "| path | language | major | upstream version |
// origin | how made | sha256 |" table of the manifest file, keyed by path. A
// path listed twice, or whose language or major columns disagree with the
// path, is an error.
func parseManifest(r io.Reader, file string) (map[string]manifestEntry, error) {
	out := map[string]manifestEntry{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	inFiles := false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "## ") {
			inFiles = text == "## Files"
		}
		if !inFiles || !strings.HasPrefix(text, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(text, "|"), " | ")
		if len(cells) != 7 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 7", file, line, len(cells))
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		p := strings.Trim(cells[0], "`")
		if _, dup := out[p]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", file, line, p)
		}
		e := manifestEntry{
			Lang:     cells[1],
			Upstream: cells[3],
			Origin:   cells[4],
			HowMade:  cells[5],
			SHA256:   strings.Trim(cells[6], "`"),
			File:     file,
		}
		if lang, major, _, ok := pagePath(p); ok {
			if n, err := strconv.Atoi(cells[2]); err != nil || n != major || e.Lang != lang {
				return nil, fmt.Errorf("%s:%d: %s: language %q and major %q do not match the path", file, line, p, cells[1], cells[2])
			}
			e.Major = major
		}
		out[p] = e
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no file table found", file)
	}
	return out, nil
}

// pagePath splits a corpus page path "en/18/protocol-replication.html".
func pagePath(p string) (lang string, major int, file string, ok bool) {
	parts := strings.Split(p, "/")
	if len(parts) != 3 || parts[0] != "en" && parts[0] != "zh" {
		return "", 0, "", false
	}
	major, err := strconv.Atoi(parts[1])
	if err != nil || major <= 0 || strconv.Itoa(major) != parts[1] {
		return "", 0, "", false
	}
	return parts[0], major, parts[2], true
}

// corpusPlan is what the manifest says the corpus holds: the majors with
// English pages, and which of them have Chinese ones too.
type corpusPlan struct {
	majors  []int
	chinese map[int]bool
}

// planCorpus checks the manifests against themselves and against the corpus
// directories: every language directory of a listed major must list all
// pages of that major (PagesOf) and exist, Chinese needs English, and every
// major directory on disk must be listed. It returns every problem at once.
func planCorpus(docs fs.FS, manifest map[string]manifestEntry) (*corpusPlan, error) {
	listed := map[string]map[string]bool{} // "en/18" → page files
	for p, e := range manifest {
		lang, major, file, ok := pagePath(p)
		if !ok {
			continue
		}
		if !slices.ContainsFunc(PagesOf(major), func(k PageKind) bool { return k.File == file }) {
			return nil, fmt.Errorf("%s: %s is not one of the protocol pages of %d", e.File, p, major)
		}
		dir := path.Join(lang, strconv.Itoa(major))
		if listed[dir] == nil {
			listed[dir] = map[string]bool{}
		}
		listed[dir][file] = true
	}
	var errs []error
	plan := &corpusPlan{chinese: map[int]bool{}}
	for _, dir := range sortedDirs(listed) {
		lang, major, _, _ := pagePath(dir + "/x")
		for _, k := range PagesOf(major) {
			if !listed[dir][k.File] {
				errs = append(errs, fmt.Errorf("%s: lists %s but not %s/%s", ManifestFile, dir, dir, k.File))
			}
		}
		if st, err := fs.Stat(docs, dir); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Errorf("%s: the directory is missing; %s lists its pages", dir, ManifestFile))
		}
		switch {
		case lang == "en":
			plan.majors = append(plan.majors, major)
		case listed["en/"+strconv.Itoa(major)] == nil:
			errs = append(errs, fmt.Errorf("%s: %s lists Chinese pages of %d but no English ones", dir, ManifestFile, major))
		default:
			plan.chinese[major] = true
		}
	}
	for _, lang := range []string{"en", "zh"} {
		entries, err := fs.ReadDir(docs, lang)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("corpus: %w", err))
		}
		for _, e := range entries {
			dir := lang + "/" + e.Name()
			if _, _, _, ok := pagePath(dir + "/x"); ok && e.IsDir() && listed[dir] == nil {
				errs = append(errs, fmt.Errorf("%s: not in %s: list its pages (pgspec fetch does) or remove it", dir, ManifestFile))
			}
		}
	}
	if len(plan.majors) == 0 {
		errs = append(errs, fmt.Errorf("%s: lists no English pages", ManifestFile))
	}
	if len(errs) > 0 {
		return nil, joinErrs(errs)
	}
	sort.Ints(plan.majors)
	return plan, nil
}

// sortedDirs returns the keys of listed, English first, by major.
func sortedDirs(listed map[string]map[string]bool) []string {
	dirs := make([]string, 0, len(listed))
	for d := range listed {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		li, mi, _, _ := pagePath(dirs[i] + "/x")
		lj, mj, _, _ := pagePath(dirs[j] + "/x")
		if li != lj {
			return li < lj
		}
		return mi < mj
	})
	return dirs
}
