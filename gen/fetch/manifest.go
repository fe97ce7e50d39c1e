package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// newManifest is the MANIFEST.md of a corpus pgspec fetch starts.
const newManifest = `# PostgreSQL protocol documentation corpus

Pages downloaded by ` + "`pgspec fetch`" + `; each row records where a page came from, when, its size and its sha256.

## Files

| path | language | major | upstream version | origin | how made | sha256 |
|---|---|---|---|---|---|---|
`

// Row is a page's row in the manifest's file table: origin is the URL,
// "how made" the date and size.
func (p Page) Row() string {
	return fmt.Sprintf("| `%s` | %s | %d | %s | %s | fetched by pgspec fetch on %s, %d bytes | `%s` |",
		p.Path, p.Lang, p.Major, p.Release, p.URL, p.Date.Format(time.RFC3339), p.Size, p.SHA256)
}

// UpdateManifest returns manifest (a new one when blank) with the rows of
// pages: a page already listed has its row replaced where it stands, the
// others are appended to the file table.
func UpdateManifest(manifest []byte, pages []Page) ([]byte, error) {
	if len(bytes.TrimSpace(manifest)) == 0 {
		manifest = []byte(newManifest)
	}
	rows := map[string]string{}
	for _, p := range pages {
		rows[p.Path] = p.Row()
	}
	var out bytes.Buffer
	inFiles, lastRow := false, -1
	lines := bytes.SplitAfter(manifest, []byte("\n"))
	for _, line := range lines {
		text := string(bytes.TrimRight(line, "\n"))
		if strings.HasPrefix(text, "## ") {
			inFiles = text == "## Files"
		}
		if inFiles && strings.HasPrefix(text, "|") {
			if p, ok := rowPath(text); ok {
				if row, fetched := rows[p]; fetched {
					text = row
					delete(rows, p)
				}
			}
			out.WriteString(text + "\n")
			lastRow = out.Len()
			continue
		}
		out.Write(line)
	}
	if lastRow < 0 {
		return nil, errors.New("no \"## Files\" table to record the pages in")
	}
	var added bytes.Buffer
	for _, p := range pages {
		if row, ok := rows[p.Path]; ok {
			added.WriteString(row + "\n")
		}
	}
	b := out.Bytes()
	return append(append(b[:lastRow:lastRow], added.Bytes()...), b[lastRow:]...), nil
}

// rowPath is the path in the first cell of a file table row.
func rowPath(row string) (string, bool) {
	rest, ok := strings.CutPrefix(row, "| `")
	if !ok {
		return "", false
	}
	p, _, ok := strings.Cut(rest, "`")
	return p, ok
}
