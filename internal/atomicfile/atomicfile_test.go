package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.json")
	for _, want := range []string{"first", "second"} {
		if err := WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	assertOnly(t, filepath.Dir(path), "a.json")
}

// A set of files where one cannot be written (its name is a directory)
// leaves every other file as it was and no temporary file behind.
func TestWriteFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte("old a"), 0o644)
	os.Mkdir(filepath.Join(dir, "b.json"), 0o755)
	err := WriteFiles(dir, map[string][]byte{"a.json": []byte("new a"), "b.json": []byte("new b"), "c.json": []byte("new c")}, 0o644)
	if err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.json")); string(got) != "old a" {
		t.Errorf("a.json = %q after a failed run", got)
	}
	assertOnly(t, dir, "a.json", "b.json")

	os.Remove(filepath.Join(dir, "b.json"))
	if err := WriteFiles(filepath.Join(dir, "new"), map[string][]byte{"c.json": []byte("c")}, 0o644); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, filepath.Join(dir, "new"), "c.json")
}

// An error names the file asked for, never the temporary one.
func TestErrorNamesTheTarget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "m.md")
	err := WriteFile(path, []byte("x"), 0o644)
	if err == nil || err.Error() != path+": no such file or directory" {
		t.Errorf("got %v, want %s: no such file or directory", err, path)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
	for i := range got {
		if got[i] != names[i] {
			t.Fatalf("%s holds %v, want %v", dir, got, names)
		}
	}
}
