// Package atomicfile writes files so that a reader, or a run that fails
// half-way, never sees one half-written: bytes go to a temporary file in the
// same directory, which is synced and then renamed over the target.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// WriteFile replaces path with data, or leaves it as it was.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// WriteFiles writes files (name → bytes) into dir, creating dir if needed.
// Every file is written to a temporary file first and renamed only when all
// were written, so a failure to write any leaves dir as it was.
func WriteFiles(dir string, files map[string][]byte, perm os.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	tmps := make([]string, 0, len(names))
	cleanup := func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	for _, name := range names {
		tmp, err := writeTemp(filepath.Join(dir, name), files[name], perm)
		if err != nil {
			cleanup()
			return err
		}
		tmps = append(tmps, tmp)
	}
	for i, name := range names {
		if err := os.Rename(tmps[i], filepath.Join(dir, name)); err != nil {
			cleanup()
			return err
		}
	}
	return nil
}

// writeTemp writes data to a new temporary file beside path and syncs it.
func writeTemp(path string, data []byte, perm os.FileMode) (string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s: is a directory", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // it names the temporary file, which the user never asked for
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Chmod(perm), f.Close())
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return f.Name(), nil
}
