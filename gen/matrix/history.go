// Package matrix is the pipeline's comparison stage, spec + Model layouts →
// spec/matrix*.{md,json} and the site: it tells how every documented message
// changed from one PostgreSQL major to the next: the version-difference
// matrix, the per-message diffs behind it, and the protocol facts of each
// major.
//
// make generate (go generate) rewrites the committed matrices beside the
// spec with the directives below.
//
//go:generate go run ../../cmd/pgspec matrix --spec ../../spec --format md --lang en --out ../../spec/matrix.md
//go:generate go run ../../cmd/pgspec matrix --spec ../../spec --format md --lang zh --out ../../spec/matrix.zh.md
//go:generate go run ../../cmd/pgspec matrix --spec ../../spec --format json --lang en --out ../../spec/matrix.json
//go:generate go run ../../cmd/pgspec matrix --spec ../../spec --format html --lang en --out ../../spec/matrix.html
package matrix

import (
	"io/fs"
	"slices"

	"github.com/pgspec/pgspec/gen/model"

	"github.com/pgspec/pgspec/spec"
)

// History is every message's change across a list of majors, each compared
// with the one before it in the list.
type History struct {
	Specs []*spec.Spec
	Rows  []Row // by layer in spec.Layers order, document order within a layer
	// Model is the resolved model of Specs; its flow (spec/flow.json) is
	// the flow changes' source. Without a flow they are left out.
	Model *model.Model
	// layouts[i][slug] is the layout of slug in Specs[i].
	layouts []map[string][]Step
}

// Row is one message's history.
type Row struct {
	Slug string
	// Latest is the message in the last major that has it; its name, layer
	// and direction label the row.
	Latest *spec.Message
	// Cells hold one change per spec, in the order of History.Specs; the
	// first spec's messages are the Baseline.
	Cells []Change
}

// Build compares each major with the one before it, layout deciding what
// is a wire change.
func Build(specs []*spec.Spec, layout LayoutFunc) (*History, error) {
	h := &History{Specs: specs}
	for _, s := range specs {
		ls := map[string][]Step{}
		for _, m := range s.Messages {
			l, err := layout(s, m.Slug)
			if err != nil {
				return nil, err
			}
			ls[m.Slug] = l
		}
		h.layouts = append(h.layouts, ls)
	}
	for _, slug := range documentOrder(specs) {
		row := Row{Slug: slug}
		for i := range specs {
			m := h.Message(slug, i)
			switch {
			case i == 0 && m != nil:
				row.Cells = append(row.Cells, Change{Status: Baseline})
			case i == 0:
				row.Cells = append(row.Cells, Change{Status: Absent})
			default:
				row.Cells = append(row.Cells, Compare(h.Message(slug, i-1), m, codes(h.layouts[i-1][slug]), codes(h.layouts[i][slug])))
			}
			if m != nil {
				row.Latest = m
			}
		}
		h.Rows = append(h.Rows, row)
	}
	slices.SortStableFunc(h.Rows, func(a, b Row) int {
		return slices.Index(spec.Layers, a.Latest.Layer) - slices.Index(spec.Layers, b.Latest.Layer)
	})
	return h, nil
}

// Load reads a spec directory (every pgNN.json, the overlay, the flow
// rules when it has them) and compares its majors under the generator's
// layout, with the model whose flow the flow changes show.
func Load(specDir fs.FS) (*History, error) {
	mod, specs, err := model.Load(specDir)
	if err != nil {
		return nil, err
	}
	h, err := Build(specs, builtLayout(mod))
	if err != nil {
		return nil, err
	}
	h.Model = mod
	return h, nil
}

// Message returns message slug in spec i, or nil.
func (h *History) Message(slug string, i int) *spec.Message { return h.Specs[i].Find(slug) }

// Change classifies message slug from Specs[i] to Specs[j], any two majors
// (for adjacent ones it is the row's cell).
func (h *History) Change(slug string, i, j int) Change {
	return Compare(h.Message(slug, i), h.Message(slug, j), codes(h.layouts[i][slug]), codes(h.layouts[j][slug]))
}

// documentOrder merges the majors' message orders into one: a slug first
// seen in a later major goes right after the slug that precedes it there,
// so added messages sit where the manual prints them.
func documentOrder(specs []*spec.Spec) []string {
	var order []string
	for _, s := range specs {
		at := 0 // where the next new slug of s goes
		for _, m := range s.Messages {
			if i := slices.Index(order, m.Slug); i >= 0 {
				at = i + 1
				continue
			}
			order = slices.Insert(order, at, m.Slug)
			at++
		}
	}
	return order
}
