// Package spec owns every file kept in spec/, the pipeline's hand-off
// between stages: the types of the versioned protocol specification
// (pgNN.json, written by extract with deterministic bytes), of the reviewed
// overlay (overlay.json: Overlay), of the translation corrections
// (corrections.json: Corrections) and of the acknowledged wire changes
// (wirechanges.json: WireChanges), each read strictly (unknown keys and
// entries without a reason are errors), and the copy of them built into
// pgspec (Embedded).
//
// A Spec is what one PostgreSQL major's documentation says, extracted from its
// HTML in English and Chinese: messages with their ordered field rows, the
// prose between the rows, and the structure recognised in that prose. It
// holds no Go names and no decisions the docs do not make; those live in the
// overlay (spec/overlay.json) that the generator applies.
package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Layers group messages by where they travel.
const (
	LayerFrontendBackend      = "frontend-backend"
	LayerLogicalReplication   = "logical-replication"
	LayerStreamingReplication = "streaming-replication"
)

// Layers lists the layers in the order the manual presents them.
var Layers = []string{LayerFrontendBackend, LayerLogicalReplication, LayerStreamingReplication}

// Spec is one major's extracted protocol documentation.
type Spec struct {
	// Major is the PostgreSQL major version, 10..19.
	Major int `json:"major"`
	// Release is the version label printed by the English pages (e.g. "18.6", "19rc1").
	Release string `json:"release"`
	// ReleaseZh is the label printed by the Chinese pages, empty when there are none.
	ReleaseZh string `json:"release_zh,omitempty"`
	// Sources records where every page came from, as the corpus MANIFEST says.
	Sources []Source `json:"sources"`
	// Messages in document order: message-formats, logicalrep, replication.
	Messages []Message `json:"messages"`
	// DataTypes is the message-types page: the notations the field tables use.
	DataTypes []Term `json:"data_types"`
	// ErrorFields is the error-fields page: one-byte codes of ErrorResponse/NoticeResponse.
	ErrorFields []Term `json:"error_fields"`
	// Commands are the replication commands of the replication page, in order.
	Commands []Command `json:"commands"`
	// PluginOptions are pgoutput's parameters (protocol-logical-replication.html
	// up to 18, logicaldecoding-output-plugin.html from 19).
	PluginOptions []PluginOption `json:"pgoutput_options"`
	// FlowLists are the message lists of protocol-flow.html: which
	// messages the server may send in each phase of the conversation.
	FlowLists []FlowList `json:"flow_lists,omitempty"`
	// DirectTLS is protocol-flow.html's paragraph on connections that
	// begin TLS at once, without SSLRequest (17 on); nil where the page
	// has none.
	DirectTLS *DirectTLS `json:"direct_tls,omitempty"`
	// Intros are the paragraphs each message page opens with, before its
	// first message list, in page order.
	Intros []Intro `json:"intros,omitempty"`
	// Coverage counts what the extractor read and recognised.
	Coverage []Coverage `json:"coverage"`
}

// Intro is the opening prose of one message page.
type Intro struct {
	Page       string `json:"page"`
	Paragraphs []Text `json:"paragraphs"`
}

// Intro returns the opening paragraphs of page, nil when it has none.
func (s *Spec) Intro(page string) []Text {
	for _, in := range s.Intros {
		if in.Page == page {
			return in.Paragraphs
		}
	}
	return nil
}

// Source is one corpus page and its provenance.
type Source struct {
	Lang    string `json:"lang"`
	Page    string `json:"page"`
	Release string `json:"release"`
	// Upstream, Origin and HowMade are the MANIFEST's columns for the page.
	Upstream string `json:"upstream"`
	Origin   string `json:"origin"`
	HowMade  string `json:"how_made"`
	SHA256   string `json:"sha256"`
}

// Text is prose in both languages; Zh is empty where no translation exists.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh,omitempty"`
}

// Message is one documented wire message or shared message part.
type Message struct {
	// Slug is the stable identity across majors (see README: "Slugs").
	Slug string `json:"slug"`
	// Name is the English name as printed, without the direction suffix.
	Name string `json:"name"`
	// NameZh is the Chinese name when the translation prints a different one.
	NameZh string `json:"name_zh,omitempty"`
	// Aliases are all names this slug has carried in majors 10..19, sorted.
	Aliases []string `json:"aliases,omitempty"`
	// Direction is "F", "B" or "F & B"; empty for logical replication messages.
	Direction string `json:"direction,omitempty"`
	Layer     string `json:"layer"`
	// Part is true for shared message parts (TupleData) that are not messages on their own.
	Part   bool   `json:"part,omitempty"`
	Page   string `json:"page"`
	Anchor string `json:"anchor"`
	// Lead is the page paragraph just before the message's entry where one
	// stands between two message lists ("The following messages (…) are
	// available since protocol version 3.").
	Lead *Prose `json:"lead,omitempty"`
	// Annotations is structure stated about the whole message by such a
	// paragraph, e.g. since-protocol 3 on each message it names.
	Annotations []Annotation `json:"annotations,omitempty"`
	// Context is the term of the enclosing entry on the replication page
	// (e.g. the START_REPLICATION command a sub-message belongs to).
	Context string `json:"context,omitempty"`
	// Blocks are the message's field tables in order with the prose that leads into each.
	Blocks []Block `json:"blocks"`
	// Notes are paragraphs after the last table.
	Notes []Prose `json:"notes,omitempty"`
}

// Block is one run of field rows and the paragraph that introduces it
// ("Next, the following pair of fields appear for each parameter:").
type Block struct {
	Lead *Prose `json:"lead,omitempty"`
	Rows []Row  `json:"rows"`
}

// Prose is a paragraph and the structure recognised in it.
type Prose struct {
	Text        Text         `json:"text"`
	Annotations []Annotation `json:"annotations,omitempty"`
}

// Row is one field row: a format term and its description.
type Row struct {
	// Format is the term exactly as the English page prints it.
	Format string `json:"format"`
	// FormatZh is the Chinese page's term when it differs (e.g. full-width parentheses).
	FormatZh    string       `json:"format_zh,omitempty"`
	Type        Type         `json:"type"`
	Description Text         `json:"description"`
	Annotations []Annotation `json:"annotations,omitempty"`
}

// Type kinds.
const (
	KindInt    = "int"    // IntN: big-endian signed integer of Width bytes
	KindByte   = "byte"   // Byte1: one byte, a tag when Tag is set
	KindBytes  = "bytes"  // ByteN / Byten: Width bytes, or as many as Length names
	KindString = "string" // String: zero-terminated
	KindPart   = "part"   // a named message part documented elsewhere (TupleData)
)

// Type is a format parsed into what the wire carries.
type Type struct {
	Kind string `json:"kind"`
	// Width in bytes for int, byte and fixed bytes; 0 when variable.
	Width int `json:"width,omitempty"`
	// Value is the fixed value of Int32(8); nil when the value varies.
	Value *int64 `json:"value,omitempty"`
	// Tag is the character of Byte1('R').
	Tag string `json:"tag,omitempty"`
	// Array names the count of Int16[C]: the elements are repeated Array times.
	Array string `json:"array,omitempty"`
	// Length names the variable width of Byten ("n").
	Length string `json:"length,omitempty"`
	// Annotation is the parenthesised semantic type of Int32 (TransactionId).
	Annotation string `json:"annotation,omitempty"`
	// Part names the message part of a KindPart row.
	Part string `json:"part,omitempty"`
}

// Annotation kinds: structure read from prose. Rows carry the first group,
// block leads and notes the second.
const (
	AnnCountName     = "count-name"     // "(denoted C below)": Value is the name
	AnnCount         = "count"          // "The number of … that follow", "Number of columns"
	AnnRepeatField   = "repeat-field"   // "This field is repeated for each X": Value is X
	AnnTerminated    = "terminated"     // "terminated by a zero byte", "A zero byte is required as terminator"
	AnnOptional      = "optional"       // "This field is optional"
	AnnStreamedOnly  = "streamed-only"  // "only present for streamed transactions"
	AnnPresentIf     = "present-if"     // "only present if …": Value is the condition
	AnnSinceProtocol = "since-protocol" // "available since protocol version N": Value is N
	AnnLengthOfSelf  = "length-self"    // "Length of message contents in bytes, including self"
	AnnLengthFrom    = "length-from"    // "n is the above length": Value is n
	AnnNullMinusOne  = "null-minus-one" // "-1 indicates a NULL … value"
	AnnRest          = "rest"           // "This field extends to the end of the message"

	AnnRepeatEach     = "repeat-each"     // "Next, the following … appear for each X": Value is X
	AnnAlternative    = "alternative"     // "Or": the block is an alternative to the previous one
	AnnAfterGroup     = "after-group"     // "After the last X, the following fields appear"
	AnnExclusive      = "exclusive"       // "either a 'K' … or an 'O' …, but never both"
	AnnProtocolChange = "protocol-change" // "Before protocol version 3.2, …": Value is the version
	AnnMessagesSince  = "messages-since"  // "The following messages (A, B) are available since protocol version N": Value is N
	AnnSharedParts    = "shared-parts"    // "The following message parts are shared by the above messages."
)

// Annotation is one piece of structure recognised in prose.
type Annotation struct {
	Kind  string `json:"kind"`
	Value string `json:"value,omitempty"`
	// Phrase is the English text that was recognised, verbatim.
	Phrase string `json:"phrase"`
}

// Term is one entry of the data-types or error-fields page.
type Term struct {
	Term        string `json:"term"`
	Description Text   `json:"description"`
}

// Coverage is the extractor's count for one language of one major.
type Coverage struct {
	Lang        string `json:"lang"`
	Messages    int    `json:"messages"`
	Rows        int    `json:"rows"`
	Annotations int    `json:"annotations"`
	// Unparsed counts prose paragraphs kept verbatim with no structure recognised.
	Unparsed int `json:"unparsed"`
}

// Rows returns the message's rows in document order across its blocks.
func (m *Message) Rows() []Row {
	var rows []Row
	for _, b := range m.Blocks {
		rows = append(rows, b.Rows...)
	}
	return rows
}

// Find returns the message with the slug, or nil.
func (s *Spec) Find(slug string) *Message {
	for i := range s.Messages {
		if s.Messages[i].Slug == slug {
			return &s.Messages[i]
		}
	}
	return nil
}

// Marshal renders v as pretty JSON with a trailing newline; HTML characters
// are not escaped so the files read like the docs.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FileName is the spec file of a major.
func FileName(major int) string { return fmt.Sprintf("pg%d.json", major) }

var fileRE = regexp.MustCompile(`^pg(\d+)\.json$`)

// LoadAll reads every pgNN.json in dir, sorted by major.
func LoadAll(fsys fs.FS) ([]*Spec, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var specs []*Spec
	for _, e := range entries {
		m := fileRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		major, _ := strconv.Atoi(m[1])
		s, err := Load(fsys, major)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("no pgNN.json spec files found")
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Major < specs[j].Major })
	return specs, nil
}

// Load reads one major's spec file.
func Load(fsys fs.FS, major int) (*Spec, error) {
	name := FileName(major)
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var s Spec
	if err := decodeStrict(data, name, &s); err != nil {
		return nil, err
	}
	if s.Major != major {
		return nil, fmt.Errorf("%s: major is %d, want %d", name, s.Major, major)
	}
	return &s, nil
}

// decodeStrict decodes the one JSON value data holds into v, refusing
// unknown keys and anything after the value; its errors name the file and,
// where the input is wrong, the line and column.
func decodeStrict(data []byte, name string, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		off := dec.InputOffset()
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			off = syntax.Offset - 1 // the offending byte, not the one after it
		case errors.As(err, &typ):
			off = typ.Offset // just after the value of the wrong type
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			off = int64(len(data))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			// The decoder has read the key's value: point at the key.
			key := strings.TrimPrefix(err.Error(), "json: unknown field ")
			if i := bytes.LastIndex(data[:min(off, int64(len(data)))], []byte(key)); i >= 0 {
				off = int64(i)
			}
		}
		return fmt.Errorf("%s:%s: %w", name, lineColumn(data, off), err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s:%s: content after the JSON value", name, lineColumn(data, end))
	}
	return nil
}

// lineColumn is the 1-based line and column of byte offset off of data
// ("12:5"), the column counted in bytes.
func lineColumn(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// Has reports whether anns hold an annotation of kind.
func Has(anns []Annotation, kind string) bool {
	for _, a := range anns {
		if a.Kind == kind {
			return true
		}
	}
	return false
}
