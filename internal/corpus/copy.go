package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Manifests are the corpus's manifests: MANIFEST.md lists the five protocol
// pages, MANIFEST-chapter.md the chapter's other pages.
var Manifests = []string{"MANIFEST.md", "MANIFEST-chapter.md"}

// Copy makes a corpus in a temporary directory holding the English and
// Chinese pages of the given majors, with the real manifests' rows for
// them only, and returns it.
func Copy(tb testing.TB, majors ...int) string {
	tb.Helper()
	src := Dir(tb)
	dst := tb.TempDir()
	for _, name := range Manifests {
		copyRows(tb, src, dst, name, majors)
	}
	return dst
}

// copyRows copies the manifest name from src to dst with the rows of majors
// only, and the pages those rows list.
func copyRows(tb testing.TB, src, dst, name string, majors []int) {
	tb.Helper()
	manifest, err := os.ReadFile(filepath.Join(src, name))
	if err != nil {
		tb.Fatal(err)
	}
	var kept []byte
	for _, line := range bytes.SplitAfter(manifest, []byte("\n")) {
		if p, ok := bytes.CutPrefix(line, []byte("| `")); ok {
			path := string(p[:bytes.IndexByte(p, '`')])
			parts := strings.Split(path, "/")
			if len(parts) != 3 {
				continue
			}
			if major, err := strconv.Atoi(parts[1]); err != nil || !slices.Contains(majors, major) {
				continue
			}
			data, err := os.ReadFile(filepath.Join(src, path))
			if err != nil {
				tb.Fatal(err)
			}
			WriteFile(tb, filepath.Join(dst, path), data)
		}
		kept = append(kept, line...)
	}
	WriteFile(tb, filepath.Join(dst, name), kept)
}

// SetPage replaces a page of the corpus at dir and its checksum in the
// manifest that lists it, as a careful vandal would.
func SetPage(tb testing.TB, dir, page string, data []byte) {
	tb.Helper()
	old, err := os.ReadFile(filepath.Join(dir, page))
	if err != nil {
		tb.Fatal(err)
	}
	oldSum, newSum := sha256.Sum256(old), sha256.Sum256(data)
	for _, name := range Manifests {
		manifest, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		if bytes.Count(manifest, []byte(hex.EncodeToString(oldSum[:]))) != 1 {
			continue
		}
		manifest = bytes.Replace(manifest, []byte(hex.EncodeToString(oldSum[:])), []byte(hex.EncodeToString(newSum[:])), 1)
		WriteFile(tb, filepath.Join(dir, name), manifest)
		WriteFile(tb, filepath.Join(dir, page), data)
		return
	}
	tb.Fatalf("no manifest lists %s's checksum once", page)
}

// WriteFile writes a file, creating its directory, or fails the test.
func WriteFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}
