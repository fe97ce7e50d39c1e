// Package corpus locates the documentation corpus (../shared/docs) for tests.
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the corpus directory: $PGSPEC_DOCS when set (the Makefile sets
// it from DOCS), else ../shared/docs beside the repository. Without a corpus
// the test is skipped, except under CI where that is a failure.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("PGSPEC_DOCS")
	if dir == "" {
		dir = filepath.Join(Root(), "..", "shared", "docs")
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.md")); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("corpus not found at %s (set PGSPEC_DOCS): %v", dir, err)
		}
		tb.Skipf("corpus not found at %s (set PGSPEC_DOCS)", dir)
	}
	return dir
}

// Root is the repository's top directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
