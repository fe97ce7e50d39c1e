package matrix

import (
	"github.com/pgspec/pgspec/spec"
)

// JSON renders the matrix as data: the same rows, facts and details as the
// Markdown, with statuses as stable English values and labels in lang.
func (h *History) JSON(lang Lang) ([]byte, error) {
	v := vocab[lang]
	doc := jsonMatrix{Facts: h.AllFacts(), Layers: []jsonLayer{}}
	for _, s := range h.Specs {
		doc.Majors = append(doc.Majors, s.Major)
	}
	for _, layer := range spec.Layers {
		rows := h.rows(layer)
		l := jsonLayer{Layer: layer, Title: v.layer[layer], Messages: []jsonRow{}, Details: h.details(rows, lang)}
		for _, r := range rows {
			jr := jsonRow{Slug: r.Slug, Name: r.Latest.Name, Direction: r.Latest.Direction, Aliases: r.Latest.Aliases}
			for i, c := range r.Cells {
				jr.Cells = append(jr.Cells, jsonCell{Major: h.Specs[i].Major, Change: c, Label: label(c, lang), Link: h.link(r, i, lang)})
			}
			l.Messages = append(l.Messages, jr)
		}
		doc.Layers = append(doc.Layers, l)
	}
	doc.Commands.Title = v.commands
	doc.Commands.Commands, doc.Commands.Details = h.itemsJSON(commandLayer, lang)
	doc.Flow.Title = v.flow
	doc.Flow.Lists, doc.Flow.Details = h.itemsJSON(flowLayer, lang)
	doc.FlowChanges = h.flowChanges(lang)
	return spec.Marshal(doc)
}

type jsonMatrix struct {
	Majors []int       `json:"majors"`
	Facts  []Facts     `json:"facts"`
	Layers []jsonLayer `json:"layers"`
	// Commands is the commands layer: the replication commands.
	Commands struct {
		Title    string     `json:"title"`
		Commands []jsonItem `json:"commands"`
		Details  []Detail   `json:"details"`
	} `json:"commands"`
	// Flow is the flow layer: the message lists of protocol-flow.html.
	Flow struct {
		Title   string     `json:"title"`
		Lists   []jsonItem `json:"lists"`
		Details []Detail   `json:"details"`
	} `json:"flow"`
	// FlowChanges is where the flow rules (spec/flow.json) changed; absent
	// for a spec without them.
	FlowChanges *FlowChanges `json:"flow_changes,omitempty"`
}

type jsonLayer struct {
	Layer    string    `json:"layer"`
	Title    string    `json:"title"`
	Messages []jsonRow `json:"messages"`
	Details  []Detail  `json:"details"`
}

type jsonRow struct {
	Slug      string     `json:"slug"`
	Name      string     `json:"name"`
	Direction string     `json:"direction,omitempty"`
	Aliases   []string   `json:"aliases,omitempty"`
	Cells     []jsonCell `json:"cells"`
}

type jsonCell struct {
	Major int `json:"major"`
	Change
	Label string `json:"label"`
	// Link is the detail's Markdown anchor ("#…") or the manual's address.
	Link string `json:"link,omitempty"`
}
