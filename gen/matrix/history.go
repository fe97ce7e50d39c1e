// Package matrix tells how every documented message changed from one
// PostgreSQL major to the next: the version-difference matrix, the
// per-message diffs behind it, and the protocol facts of each major.
package matrix

import (
	"slices"

	"github.com/pgspec/pgspec/spec"
)

// History is every message's change across a set of majors.
type History struct {
	Specs []*spec.Spec // sorted by major
	Rows  []Row        // by layer in spec.Layers order, document order within a layer
}

// Row is one message's history.
type Row struct {
	Slug string
	// Latest is the message in the last major that has it; its name, layer
	// and direction label the row.
	Latest *spec.Message
	// Cells hold one change per spec, in the order of History.Specs.
	Cells []Change
}

// Build compares each major with the one before it; the first major's
// messages are the Baseline.
func Build(specs []*spec.Spec) *History {
	h := &History{Specs: specs}
	for _, slug := range documentOrder(specs) {
		row := Row{Slug: slug}
		for i, s := range specs {
			m := s.Find(slug)
			switch {
			case i == 0 && m != nil:
				row.Cells = append(row.Cells, Change{Status: Baseline})
			case i == 0:
				row.Cells = append(row.Cells, Change{Status: Absent})
			default:
				row.Cells = append(row.Cells, Compare(specs[i-1].Find(slug), m))
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
	return h
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
