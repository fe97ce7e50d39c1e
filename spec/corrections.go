package spec

import (
	"fmt"
	"io"
)

// Correction kinds: the only ways a translation may differ from its English
// page, each listed explicitly with its evidence.
const (
	// CorrMissingRows: the translation lacks these English rows.
	CorrMissingRows = "missing-rows"
	// CorrFormat: the translation prints these rows' formats differently.
	CorrFormat = "format"
	// CorrNoDescription: the translation leaves these rows' descriptions empty.
	CorrNoDescription = "no-description"
	// CorrMissingItems: the translation lacks these options or parameters
	// of a replication command (Message is the command word, Items their names).
	CorrMissingItems = "missing-items"
)

// Correction is one reviewed exception, keyed by language, major and the
// message's English name as printed.
type Correction struct {
	Lang    string `json:"lang"`
	Major   int    `json:"major"`
	Message string `json:"message"`
	Kind    string `json:"kind"`
	// Rows are 1-based English row numbers.
	Rows []int `json:"rows,omitempty"`
	// Items are the names of a command's options or parameters.
	Items    []string `json:"items,omitempty"`
	Reason   string   `json:"reason"`
	Evidence string   `json:"evidence"`
}

// CorrectionsFile is the corrections' file name in the spec directory.
const CorrectionsFile = "corrections.json"

// Corrections is spec/corrections.json.
type Corrections struct {
	List []Correction `json:"corrections"`
}

// ReadCorrections parses and checks a corrections file: every entry needs a
// known kind, rows, a reason and evidence.
func ReadCorrections(r io.Reader) (*Corrections, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("corrections: %w", err)
	}
	var c Corrections
	if err := decodeStrict(data, "corrections", &c); err != nil {
		return nil, err
	}
	for i, e := range c.List {
		switch {
		case e.Kind != CorrMissingRows && e.Kind != CorrFormat && e.Kind != CorrNoDescription && e.Kind != CorrMissingItems:
			return nil, fmt.Errorf("corrections: entry %d: unknown kind %q", i+1, e.Kind)
		case e.Kind == CorrMissingItems && (e.Lang != "zh" || e.Major == 0 || e.Message == "" || len(e.Items) == 0 || len(e.Rows) > 0):
			return nil, fmt.Errorf("corrections: entry %d: needs lang \"zh\", major, command and items", i+1)
		case e.Kind != CorrMissingItems && (e.Lang != "zh" || e.Major == 0 || e.Message == "" || len(e.Rows) == 0 || len(e.Items) > 0):
			return nil, fmt.Errorf("corrections: entry %d: needs lang \"zh\", major, message and rows", i+1)
		case e.Reason == "" || e.Evidence == "":
			return nil, fmt.Errorf("corrections: entry %d (%s %q): needs a reason and evidence", i+1, e.Kind, e.Message)
		}
	}
	return &c, nil
}
