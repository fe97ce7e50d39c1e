// Package export is a side stage, spec/pgNN.json → pg.center records: it
// writes pgspec's spec as one JSON document per message slug in the shape of
// that site's meaningful keys (see ../shared/seeds/README.md), so the site can
// be fed from the spec.
package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

// Record is one pg.center record.
type Record struct {
	Kind        string       `json:"kind"`
	Item        Item         `json:"item"`
	Comparisons []Comparison `json:"comparisons"`
}

// Item is a message's identity and its text in every major that has it.
type Item struct {
	Slug     string   `json:"slug"`
	Name     string   `json:"name"`
	NameZh   string   `json:"name_zh"`
	Category string   `json:"category"`
	Aliases  []string `json:"aliases"`
	// Versions are keyed by major ("10"); two digits sort in order.
	Versions map[string]Version `json:"versions"`
}

// Version is the message as one major documents it.
type Version struct {
	// Signature is the message's name in this major.
	Signature string  `json:"signature"`
	Fields    []Field `json:"fields"`
	// Tables hold the rows with descriptions in the export's language,
	// TablesZh always in Chinese (English where the major has no translation).
	Tables     []Table  `json:"tables"`
	TablesZh   []Table  `json:"tables_zh"`
	Facts      []Fact   `json:"facts"`
	FactsZh    []Fact   `json:"facts_zh"`
	Release    Release  `json:"release"`
	Sources    []Source `json:"sources"`
	ManualPath string   `json:"manual_path"`
	// ComparisonData is what comparisons diff; ComparisonHash is the SHA-256
	// of its compact JSON with sorted keys, which is how the seed's hashes
	// are made (checked against the seed in the tests).
	ComparisonData ComparisonData `json:"comparison_data"`
	ComparisonHash string         `json:"comparison_hash"`
	Localization   Localization   `json:"localization"`
}

// Field is a row in English, as the manual prints it.
type Field struct {
	Format      string `json:"format"`
	Description string `json:"description"`
}

// Table is pg.center's positional table: c0 position, c1 format, c2 meaning.
type Table struct {
	Key     string   `json:"key"`
	Title   string   `json:"title"`
	Columns []Column `json:"columns"`
	Rows    []Cells  `json:"rows"`
}

// Column labels one table column.
type Column struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

// Cells is one table row.
type Cells struct {
	C0 string `json:"c0"`
	C1 string `json:"c1"`
	C2 string `json:"c2"`
}

// Fact is a labelled line of the record's summary box.
type Fact struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// Release names the documentation release a version's text came from.
type Release struct {
	Label   string `json:"label"`
	LabelZh string `json:"label_zh,omitempty"`
	Major   string `json:"major"`
	Channel string `json:"channel"`
}

// Source is the manual page and anchor a version's text came from.
type Source struct {
	URL    string `json:"url"`
	Path   string `json:"path"`
	Label  string `json:"label"`
	SHA256 string `json:"sha256"`
}

// ComparisonData is the part of a version that comparisons look at.
type ComparisonData struct {
	Layer  string  `json:"layer"`
	Fields []Field `json:"fields"`
}

// Localization says whether the Chinese table is a translation throughout.
type Localization struct {
	Status         string   `json:"status"` // "complete" or "fallback"
	Language       string   `json:"language"`
	FallbackFields []string `json:"fallback_fields"`
}

// Comparison is one adjacent pair of majors.
type Comparison struct {
	Left   string `json:"left"`
	Right  string `json:"right"`
	Status string `json:"status"` // unchanged, added, changed or removed
	// Classification is the matrix's finer status (wire change, …).
	Classification matrix.Status `json:"classification"`
	Diff           string        `json:"diff"`
}

// notInVersion stands for a side of a comparison whose major lacks the
// message; the Chinese text is the seed's.
var notInVersion = map[matrix.Lang]string{matrix.Chinese: "该版未收录", matrix.English: "not in this major"}

// layerFact describes each layer for the 层次 fact; the logical replication
// text is the seed's, the other two say the same about their framing.
var layerFact = map[matrix.Lang]map[string]string{
	matrix.Chinese: {
		spec.LayerFrontendBackend:      "前后端协议消息，直接在连接上收发。",
		spec.LayerLogicalReplication:   "逻辑复制载荷，与前后端消息封装分开。",
		spec.LayerStreamingReplication: "流复制子消息，装在 CopyData 消息中传输。",
	},
	matrix.English: {
		spec.LayerFrontendBackend:      "Frontend/backend protocol message, sent directly on the connection.",
		spec.LayerLogicalReplication:   "Logical replication payload, separate from the frontend/backend message framing.",
		spec.LayerStreamingReplication: "Streaming replication sub-message, carried inside CopyData messages.",
	},
}

// labels are the fixed texts of the tables and facts.
var labels = map[matrix.Lang]struct{ title, position, format, meaning, layer, first string }{
	matrix.Chinese: {"按手册顺序排列的字段", "位置", "格式", "含义", "层次", "首个字段"},
	matrix.English: {"Fields in manual order", "Position", "Format", "Meaning", "Layer", "First field"},
}

// sourceLabel names a version's source, the English manual, in every export
// language, as the seed does.
const sourceLabel = "PostgreSQL %d English manual"

var slugRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Records builds one record per slug of h, in the matrix's row order, the
// comparisons classified as h's cells are. A slug
// that could not be a file name is an error, since records are written to
// <slug>.json.
func Records(h *matrix.History, lang matrix.Lang) ([]Record, error) {
	specs := h.Specs
	var out []Record
	for _, row := range h.Rows {
		if !slugRE.MatchString(row.Slug) {
			return nil, fmt.Errorf("message %q: slug is not lower-case words joined by hyphens", row.Slug)
		}
		latest := row.Latest
		r := Record{Kind: "protocol", Item: Item{
			Slug: row.Slug, Name: displayName(latest), NameZh: latest.NameZh,
			Category: matrix.LayerName(latest.Layer, lang), Aliases: latest.Aliases,
			Versions: map[string]Version{},
		}, Comparisons: []Comparison{}}
		if r.Item.Aliases == nil {
			r.Item.Aliases = []string{latest.Name}
		}
		var prev *ComparisonData // of the major before s, nil when it lacks the message
		for i, s := range specs {
			var cur *ComparisonData
			if m := s.Find(row.Slug); m != nil {
				v := version(s, m, lang)
				r.Item.Versions[strconv.Itoa(s.Major)] = v
				cur = &v.ComparisonData
			}
			if i > 0 && (prev != nil || cur != nil) {
				c, err := compare(specs[i-1].Major, s.Major, prev, cur, row.Cells[i].Status, lang)
				if err != nil {
					return nil, fmt.Errorf("message %q: %w", row.Slug, err)
				}
				r.Comparisons = append(r.Comparisons, c)
			}
			prev = cur
		}
		out = append(out, r)
	}
	return out, nil
}

// displayName is pg.center's item name: the layer is spelled out for the
// replication layers, whose names ("Update") would be ambiguous.
func displayName(m *spec.Message) string {
	if m.Layer == spec.LayerFrontendBackend {
		return m.Name
	}
	return m.Name + " (" + strings.ReplaceAll(m.Layer, "-", " ") + ")"
}

func version(s *spec.Spec, m *spec.Message, lang matrix.Lang) Version {
	data := comparisonData(m)
	sum := sha256.Sum256(compactSorted(data))
	v := Version{
		Signature:      m.Name,
		Fields:         data.Fields,
		Tables:         []Table{table(m, lang)},
		TablesZh:       []Table{table(m, matrix.Chinese)},
		Facts:          facts(m, lang),
		FactsZh:        facts(m, matrix.Chinese),
		Release:        Release{Label: s.Release, LabelZh: s.ReleaseZh, Major: strconv.Itoa(s.Major), Channel: channel(s.Release)},
		ManualPath:     fmt.Sprintf("/docs/%d/%s", s.Major, m.Page),
		ComparisonData: data,
		ComparisonHash: hex.EncodeToString(sum[:]),
		Localization:   Localization{Status: "complete", Language: "zh", FallbackFields: []string{}},
	}
	url := v.ManualPath
	if m.Anchor != "" {
		url += "#" + m.Anchor
	}
	src := Source{URL: url, Path: m.Page, Label: fmt.Sprintf(sourceLabel, s.Major)}
	for _, p := range s.Sources {
		if p.Lang == "en" && p.Page == m.Page {
			src.SHA256 = p.SHA256
		}
	}
	v.Sources = []Source{src}
	for _, r := range m.Rows() {
		if r.Description.Zh == "" {
			v.Localization = Localization{Status: "fallback", Language: "zh", FallbackFields: []string{"tables_zh"}}
			break
		}
	}
	return v
}

func comparisonData(m *spec.Message) ComparisonData {
	d := ComparisonData{Layer: strings.ReplaceAll(m.Layer, "-", " "), Fields: []Field{}}
	for _, r := range m.Rows() {
		d.Fields = append(d.Fields, Field{Format: r.Format, Description: r.Description.En})
	}
	return d
}

// table lays the rows out as pg.center does; Chinese descriptions fall
// back to English where the major has no translation.
func table(m *spec.Message, lang matrix.Lang) Table {
	l := labels[lang]
	t := Table{Key: "fields", Title: l.title, Columns: []Column{{"c0", l.position}, {"c1", l.format}, {"c2", l.meaning}}}
	for i, r := range m.Rows() {
		t.Rows = append(t.Rows, Cells{C0: strconv.Itoa(i + 1), C1: r.Format, C2: r.Description.Prefer(string(lang))})
	}
	return t
}

func facts(m *spec.Message, lang matrix.Lang) []Fact {
	l := labels[lang]
	out := []Fact{{Label: l.layer, Value: layerFact[lang][m.Layer]}}
	if rows := m.Rows(); len(rows) > 0 {
		out = append(out, Fact{Label: l.first, Value: rows[0].Format})
	}
	return out
}

// channel tells a release from a preview (19rc1, 19beta2) or a snapshot.
func channel(label string) string {
	switch {
	case strings.Contains(label, "devel"):
		return "devel"
	case strings.Contains(label, "rc"), strings.Contains(label, "beta"):
		return "preview"
	}
	return "stable"
}

// compare diffs the {layer, fields} JSON of two majors; a side without the
// message (nil) reads notInVersion in lang. class is the matrix's cell for the step.
func compare(left, right int, a, b *ComparisonData, class matrix.Status, lang matrix.Lang) (Comparison, error) {
	c := Comparison{Left: strconv.Itoa(left), Right: strconv.Itoa(right), Classification: class}
	sides := [2][]string{}
	for i, d := range []*ComparisonData{a, b} {
		if d == nil {
			sides[i] = []string{notInVersion[lang]}
			continue
		}
		// The diffed form: indented, keys in the order the record uses.
		js, err := spec.Marshal(d)
		if err != nil {
			return c, err
		}
		sides[i] = strings.Split(strings.TrimSuffix(string(js), "\n"), "\n")
	}
	c.Diff = matrix.Unified(c.Left, c.Right, sides[0], sides[1])
	switch {
	case a == nil:
		c.Status = "added"
	case b == nil:
		c.Status = "removed"
	case c.Diff == "":
		c.Status = "unchanged"
	default:
		c.Status = "changed"
	}
	return c, nil
}

// compactSorted is the hashed form: compact JSON with sorted keys and
// non-ASCII escaped, as Python's json.dumps(sort_keys=True,
// separators=(",", ":")) writes it. The seed's English fields are ASCII,
// so whether pg.center escapes non-ASCII is not known; its default does.
func compactSorted(d ComparisonData) []byte {
	var b bytes.Buffer
	b.WriteString(`{"fields":[`)
	for i, f := range d.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"description":%s,"format":%s}`, pyString(f.Description), pyString(f.Format))
	}
	fmt.Fprintf(&b, `],"layer":%s}`, pyString(d.Layer))
	return b.Bytes()
}

// pyString quotes s as Python's json module does with ensure_ascii.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r > 0x7e && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
