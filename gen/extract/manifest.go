package extract

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// manifestEntry is one row of the corpus MANIFEST.md "Files" table.
type manifestEntry struct {
	Upstream, Origin, HowMade, SHA256 string
}

// parseManifest reads the "## Files" table "| path | language | major | upstream version |
// origin | how made | sha256 |" table of MANIFEST.md, keyed by path.
func parseManifest(r io.Reader) (map[string]manifestEntry, error) {
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
			return nil, fmt.Errorf("MANIFEST.md:%d: %d columns, want 7", line, len(cells))
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		path := strings.Trim(cells[0], "`")
		out[path] = manifestEntry{
			Upstream: cells[3],
			Origin:   cells[4],
			HowMade:  cells[5],
			SHA256:   strings.Trim(cells[6], "`"),
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("MANIFEST.md: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("MANIFEST.md: no file table found")
	}
	return out, nil
}
