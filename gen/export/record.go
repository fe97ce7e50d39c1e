package export

import "github.com/pgspec/pgspec/gen/matrix"

// The types below are pg.center's record (spec/record.schema.json), keys in
// the seed's order. Fields marked "pg.center's own" are that site's
// bookkeeping (hashes of its database, build ids, DOM paths): pgspec cannot
// know them and writes what the comment says instead (README: "pg.center
// records").

// Record is one message seen from one major in one language.
type Record struct {
	Kind string `json:"kind"`
	// Major is the requested major; Snapshot is Item.Versions[Major].
	Major      string     `json:"major"`
	Item       Item       `json:"item"`
	Snapshot   Version    `json:"snapshot"`
	Comparison Comparison `json:"comparison"`
}

// Item is a message's identity and its text in every major that has it.
type Item struct {
	Slug string `json:"slug"`
	// Name spells the layer out for the replication layers ("Update
	// (logical replication)"); NameZh is the Chinese manual's name with the
	// layer in Chinese.
	Name     string   `json:"name"`
	NameZh   string   `json:"name_zh"`
	Category string   `json:"category"`
	Summary  string   `json:"summary"`
	Aliases  []string `json:"aliases"`
	// ContentHash: pg.center's own; pgspec writes the SHA-256 of Versions
	// as the record prints them.
	ContentHash string `json:"content_hash"`
	// Versions are keyed by major ("10"); two digits sort in order.
	Versions map[string]Version `json:"versions"`
}

// Version is the message as one major documents it. Texts without a
// suffix are in the record's language, *_zh ones always in Chinese
// (English where the major has no translation, which Localization lists).
type Version struct {
	Facts   []Fact   `json:"facts"`
	Fields  []Field  `json:"fields"`
	Tables  []Table  `json:"tables"`
	Related []Link   `json:"related"`
	Release Release  `json:"release"`
	Sources []Source `json:"sources"`
	ZhFrom  ZhFrom   `json:"zh_from"`
	FactsZh []Fact   `json:"facts_zh"`
	// Sections hold the page's prose around the message: the paragraphs
	// that stand between its message lists, and the replication command a
	// sub-message answers.
	Sections  []Section `json:"sections"`
	CenterZh  CenterZh  `json:"center_zh"`
	Signature string    `json:"signature"`
	TablesZh  []Table   `json:"tables_zh"`
	// Description is one paragraph: in English a sentence naming the
	// message and its first field's meaning, in Chinese DescriptionZh.
	Description []string `json:"description"`
	// ManualHTML is empty in pg.center's records too.
	ManualHTML   string       `json:"manual_html"`
	ManualPath   string       `json:"manual_path"`
	SectionsZh   []Section    `json:"sections_zh"`
	Localization Localization `json:"localization"`
	// DescriptionZh is the Chinese manual's entry as text: each row's
	// format and description, then the paragraphs after the rows.
	DescriptionZh string `json:"description_zh"`
	// ComparisonData is what comparisons diff; ComparisonHash is the SHA-256
	// of its compact JSON with sorted keys, which is how the seed's hashes
	// are made (checked against the seed in the tests).
	ComparisonData ComparisonData `json:"comparison_data"`
	ComparisonHash string         `json:"comparison_hash"`
	// ManualLanguage is the record's language.
	ManualLanguage    string `json:"manual_language"`
	DescriptionZhHTML string `json:"description_zh_html"`
}

// Field is a row in English, as the manual prints it.
type Field struct {
	Format      string `json:"format"`
	Description string `json:"description"`
}

// Table is pg.center's positional table: c0 position, c1 format, c2 meaning.
type Table struct {
	Key     string   `json:"key"`
	Rows    []Cells  `json:"rows"`
	Title   string   `json:"title"`
	Columns []Column `json:"columns"`
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

// Link is a related page.
type Link struct {
	URL   string `json:"url"`
	Label string `json:"label"`
}

// Section is a titled run of paragraphs.
type Section struct {
	Title      string   `json:"title"`
	Paragraphs []string `json:"paragraphs"`
}

// Release names the documentation release a version's text came from.
type Release struct {
	// Ref is the release's source tarball.
	Ref     string `json:"ref"`
	Label   string `json:"label"`
	Major   string `json:"major"`
	Channel string `json:"channel"` // stable, preview or devel
	// Revision: pg.center's own; pgspec writes the SHA-256 of the
	// major's English corpus pages (their sha256s, one a line).
	Revision string `json:"revision"`
}

// Source is the manual page and anchor a version's text came from, with
// the SHA-256 of the corpus page.
type Source struct {
	URL    string `json:"url"`
	Path   string `json:"path"`
	Label  string `json:"label"`
	SHA256 string `json:"sha256"`
}

// ZhFrom says where the Chinese text came from.
type ZhFrom struct {
	Kind                string   `json:"kind"`
	Manual              ZhManual `json:"manual"`
	BodySHA256          string   `json:"body_sha256"` // of DescriptionZhHTML
	RuntimeRerun        bool     `json:"runtime_rerun"`
	AuthoredTranslation string   `json:"authored_translation"`
	SourceFactsRevision string   `json:"source_facts_revision"` // Release.Revision
}

// ZhManual is the Chinese manual's page and anchor.
type ZhManual struct {
	URL     string `json:"url"`
	Anchor  string `json:"anchor"`
	Locale  string `json:"locale"`
	Version string `json:"version"`
	// BuildID: pg.center's own; pgspec has no builds and writes 0.
	BuildID    int    `json:"build_id"`
	PageKey    string `json:"page_key"`
	Extraction string `json:"extraction"`
	// SourceHash is the corpus page's SHA-256, FragmentSHA256 that of
	// DescriptionZh; SourceRevision and TranslationRevision are the
	// corpus MANIFEST's upstream and origin of the page.
	SourceHash             string  `json:"source_hash"`
	FragmentSHA256         string  `json:"fragment_sha256"`
	SourceRevision         string  `json:"source_revision"`
	TranslationRevision    string  `json:"translation_revision"`
	TranslatedFromRevision *string `json:"translated_from_revision"`
}

// CenterZh is pg.center's Chinese rendering of the version, kept beside
// the version in its records; pgspec fills it from the same Chinese texts.
type CenterZh struct {
	Title   string            `json:"title"`
	Locale  string            `json:"locale"`
	Source  CenterSource      `json:"source"`
	Payload CenterPayload     `json:"payload"`
	Summary string            `json:"summary"`
	Version string            `json:"version"`
	LinkMap map[string]string `json:"link_map"`
	// BodyHTML is DescriptionZhHTML; the hashes are SHA-256 of BodyHTML and
	// of the payload's JSON.
	BodyHTML       string `json:"body_html"`
	BodySHA256     string `json:"body_sha256"`
	ContentHash    string `json:"content_hash"`
	SourceDatabase string `json:"source_database"`
	SourceRevision string `json:"source_revision"`
}

// CenterSource identifies a CenterZh.
type CenterSource struct {
	Key        string `json:"key"`
	Locale     string `json:"locale"`
	Version    string `json:"version"`
	TextHash   string `json:"text_hash"`
	Collection string `json:"collection"`
	// DatasetHash: pg.center's own; pgspec writes the SHA-256 of the
	// major's Chinese corpus pages (their sha256s, one a line).
	DatasetHash    string `json:"dataset_hash"`
	SourceDatabase string `json:"source_database"`
	SourceRevision string `json:"source_revision"`
}

// CenterPayload is the Chinese content of a CenterZh.
type CenterPayload struct {
	Facts             []Fact    `json:"facts"`
	Tables            []Table   `json:"tables"`
	ZhFrom            ZhFrom    `json:"zh_from"`
	Sections          []Section `json:"sections"`
	DescriptionZh     string    `json:"description_zh"`
	DescriptionZhHTML string    `json:"description_zh_html"`
}

// Localization says how far the Chinese texts are a translation.
type Localization struct {
	Status  string               `json:"status"` // "complete" or "fallback"
	Sources []LocalizationSource `json:"sources"`
	// Language is always zh: the record's *_zh texts, and in a Chinese
	// record its other texts too.
	Language string `json:"language"`
	// OriginalText maps the JSON pointer of each Chinese text that is a
	// translation to its English original.
	OriginalText map[string]string `json:"original_text"`
	// FallbackFields are the pointers of Chinese texts the major has no
	// translation of, which hold the English.
	FallbackFields []string `json:"fallback_fields"`
	SourceLanguage string   `json:"source_language"`
	// OriginalSnapshotSHA256 is the SHA-256 of the version's English texts
	// (one a line, in the order the version prints them),
	// CanonicalCenterTextHash CenterZh.ContentHash.
	OriginalSnapshotSHA256  string `json:"original_snapshot_sha256"`
	CanonicalCenterTextHash string `json:"canonical_center_text_hash"`
}

// LocalizationSource is the Chinese page a translation was read from.
type LocalizationSource struct {
	URL      string `json:"url"`
	Method   string `json:"method"`
	SHA256   string `json:"sha256"`
	Language string `json:"language"`
	// MatchedNodes: pg.center's are DOM paths; pgspec writes the JSON
	// pointers of the texts in spec/pgNN.json.
	MatchedNodes []string `json:"matched_nodes"`
}

// ComparisonData is the part of a version that comparisons look at.
type ComparisonData struct {
	Layer  string  `json:"layer"`
	Fields []Field `json:"fields"`
}

// Comparison is the requested major against another one (by default the
// one before it).
type Comparison struct {
	Left  string `json:"left"`
	Right string `json:"right"`
	// Status is unchanged, added, changed or removed; baseline when the
	// requested major is the corpus's first and nothing is compared.
	Status string `json:"status"`
	// Diff is the unified diff of both sides' comparison_data JSON; a side
	// without the message reads 该版未收录 (not in this major).
	Diff string `json:"diff"`
	// Classification is the matrix's finer status (wire change, …), which
	// pg.center does not have.
	Classification matrix.Status `json:"classification"`
}
