package emit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckAcceptsTheCommittedCodec(t *testing.T) {
	dir := filepath.Join("..", "..", "codec")
	paths, _ := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	files := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = data
	}
	if len(files) < 80 {
		t.Fatalf("only %d generated files in codec/", len(files))
	}
	if err := Check(dir, files); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRefusesCodeThatDoesNotCompile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.go"), []byte("package codec\n\ntype Params struct{ Major int }\n"), 0o644)
	files := map[string][]byte{"query_gen.go": []byte("package codec\n\nfunc (p Params) Minor() int { return p.Minor }\n\nvar _ = undefinedHelper\n")}
	err := Check(dir, files)
	if err == nil || !strings.Contains(err.Error(), "nothing was written") ||
		!strings.Contains(err.Error(), "query_gen.go:3:") || !strings.Contains(err.Error(), "undefined: undefinedHelper") {
		t.Fatalf("got %v", err)
	}
	// The generated files alone are checked too: Params is then undefined.
	if err := Check(t.TempDir(), files); err == nil || !strings.Contains(err.Error(), "undefined: Params") {
		t.Errorf("empty dir: got %v", err)
	}
}
