package fetch

import (
	"strings"
	"testing"
)

func page(p, sum string) Page {
	return Page{Path: p, Lang: "en", Major: 20, Release: "20devel", URL: "https://www.postgresql.org/docs/devel/x.html", Size: 12, SHA256: sum, Date: stamp}
}

func TestUpdateManifest(t *testing.T) {
	// A new corpus gets a manifest whose file table lists the pages.
	got, err := UpdateManifest(nil, []Page{page("en/20/a.html", "aa")})
	if err != nil {
		t.Fatal(err)
	}
	row := "| `en/20/a.html` | en | 20 | 20devel | https://www.postgresql.org/docs/devel/x.html | fetched by pgspec fetch on 2026-11-30T12:00:00Z, 12 bytes | `aa` |\n"
	if !strings.HasSuffix(string(got), "|---|---|---|---|---|---|---|\n"+row) {
		t.Errorf("new manifest:\n%s", got)
	}

	// A listed page has its row replaced in place; a new one is appended
	// to the table, before what follows it.
	old := "# corpus\n\n## Files\n\n| path | language | major | upstream version | origin | how made | sha256 |\n|---|---|---|---|---|---|---|\n" +
		"| `en/19/a.html` | en | 19 | 19rc1 | Debian | copied | `11` |\n| `en/20/a.html` | en | 20 | old | old | old | `00` |\n\n## Notes\n\n| not | a | row |\n"
	got, err = UpdateManifest([]byte(old), []Page{page("en/20/a.html", "aa"), page("en/20/b.html", "bb")})
	if err != nil {
		t.Fatal(err)
	}
	want := "# corpus\n\n## Files\n\n| path | language | major | upstream version | origin | how made | sha256 |\n|---|---|---|---|---|---|---|\n" +
		"| `en/19/a.html` | en | 19 | 19rc1 | Debian | copied | `11` |\n" + row + strings.ReplaceAll(strings.ReplaceAll(row, "a.html", "b.html"), "`aa`", "`bb`") +
		"\n## Notes\n\n| not | a | row |\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// The caller names the file; the error says what is wrong with it.
	if _, err := UpdateManifest([]byte("# no table\n"), []Page{page("en/20/a.html", "aa")}); err == nil || err.Error() != `no "## Files" table to record the pages in` {
		t.Errorf("a manifest without a file table: %v", err)
	}
	// A blank one (touched, or emptied by an editor) is a new one.
	got, err = UpdateManifest([]byte("\n \n"), []Page{page("en/20/a.html", "aa")})
	if err != nil || !strings.HasSuffix(string(got), "|---|---|---|---|---|---|---|\n"+row) {
		t.Errorf("blank manifest: %v\n%s", err, got)
	}
}
