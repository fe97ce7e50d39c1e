package matrix

import (
	"testing"

	"github.com/pgspec/pgspec/spec"
)

func int64p(v int64) *int64 { return &v }

// base is a small message with a lead, a note and annotations, in the
// shape the extractor writes.
func base() *spec.Message {
	return &spec.Message{
		Slug: "logical-update", Name: "Update", Layer: spec.LayerLogicalReplication,
		Blocks: []spec.Block{
			{Rows: []spec.Row{
				{Format: "Byte1('U')", Type: spec.Type{Kind: spec.KindByte, Width: 1, Tag: "U"},
					Description: spec.Text{En: "Identifies the message as an update message.", Zh: "标识。"}},
				{Format: "Int32", Type: spec.Type{Kind: spec.KindInt, Width: 4},
					Description: spec.Text{En: "Xid of the transaction (only present for streamed transactions).", Zh: "事务的 Xid。"},
					Annotations: []spec.Annotation{{Kind: spec.AnnStreamedOnly, Value: "streamed transactions", Phrase: "only present for streamed transactions"}}},
				{Format: "Int16", Type: spec.Type{Kind: spec.KindInt, Width: 2},
					Description: spec.Text{En: "Number of columns.", Zh: "列数。"},
					Annotations: []spec.Annotation{{Kind: spec.AnnCount, Phrase: "Number of columns"}}},
			}},
			{Lead: &spec.Prose{Text: spec.Text{En: "Next, the following appears for each column:", Zh: "接着，每列："},
				Annotations: []spec.Annotation{{Kind: spec.AnnRepeatEach, Value: "column", Phrase: "Next, the following appears for each column:"}}},
				Rows: []spec.Row{{Format: "Int32(8)", Type: spec.Type{Kind: spec.KindInt, Width: 4, Value: int64p(8)},
					Description: spec.Text{En: "Length.", Zh: "长度。"}}}},
		},
		Notes: []spec.Prose{{Text: spec.Text{En: "Never both.", Zh: "绝不同时。"}}},
	}
}

// classify compares two versions of a message with the spec-derived layout.
func classify(a, b *spec.Message) Change {
	return Compare(a, b, codes(specLayout(a)), codes(specLayout(b)))
}

func TestCompare(t *testing.T) {
	cases := []struct {
		name   string
		change func(m *spec.Message)
		want   Status
		zhOnly bool
	}{
		{"identical", func(m *spec.Message) {}, Unchanged, false},
		{"width", func(m *spec.Message) { m.Blocks[0].Rows[1].Type.Width = 8 }, Wire, false},
		{"kind", func(m *spec.Message) { m.Blocks[0].Rows[1].Type.Kind = spec.KindBytes }, Wire, false},
		{"fixed value", func(m *spec.Message) { m.Blocks[1].Rows[0].Type.Value = int64p(12) }, Wire, false},
		{"fixed value dropped", func(m *spec.Message) { m.Blocks[1].Rows[0].Type.Value = nil }, Wire, false},
		{"tag", func(m *spec.Message) { m.Blocks[0].Rows[0].Type.Tag = "u" }, Wire, false},
		{"array", func(m *spec.Message) { m.Blocks[0].Rows[1].Type.Array = "C" }, Wire, false},
		{"row added", func(m *spec.Message) { m.Blocks[0].Rows = append(m.Blocks[0].Rows, m.Blocks[0].Rows[0]) }, Wire, false},
		{"direction", func(m *spec.Message) { m.Direction = "B" }, Wire, false},
		{"condition dropped", func(m *spec.Message) { m.Blocks[0].Rows[1].Annotations = nil }, Wire, false},
		{"gating added", func(m *spec.Message) {
			m.Blocks[0].Rows[1].Annotations = append(m.Blocks[0].Rows[1].Annotations, spec.Annotation{Kind: spec.AnnSinceProtocol, Value: "2"})
		}, Wire, false},
		{"repeat dropped", func(m *spec.Message) { m.Blocks[1].Lead.Annotations = nil }, Wire, false},
		{"blocks merged", func(m *spec.Message) {
			m.Blocks[0].Rows = append(m.Blocks[0].Rows, m.Blocks[1].Rows...)
			m.Blocks = m.Blocks[:1]
		}, Wire, false},
		{"note gains structure", func(m *spec.Message) {
			m.Notes[0].Annotations = []spec.Annotation{{Kind: spec.AnnExclusive, Value: "K or O"}}
		}, Wire, false},
		{"format annotation", func(m *spec.Message) {
			m.Blocks[0].Rows[1].Format, m.Blocks[0].Rows[1].Type.Annotation = "Int32 (TransactionId)", "TransactionId"
		}, Annotation, false},
		{"repeat target reworded", func(m *spec.Message) {
			m.Blocks[1].Lead.Text.En = "Next, the following appears for each published column:"
			m.Blocks[1].Lead.Annotations[0].Value = "published column"
		}, Wording, false},
		{"phrase only", func(m *spec.Message) { m.Blocks[0].Rows[1].Annotations[0].Phrase = "other" }, Unchanged, false},
		{"description", func(m *spec.Message) { m.Blocks[0].Rows[0].Description.En = "Identifies an update." }, Wording, false},
		{"lead text", func(m *spec.Message) { m.Blocks[1].Lead.Text.En = "For each column:" }, Wording, false},
		{"note text", func(m *spec.Message) { m.Notes[0].Text.En = "Never both of them." }, Wording, false},
		{"renamed", func(m *spec.Message) { m.Name = "UpdateMessage" }, Wording, false},
		{"chinese only", func(m *spec.Message) { m.Blocks[0].Rows[0].Description.Zh = "将该消息标识为更新。" }, Unchanged, true},
		{"chinese format only", func(m *spec.Message) { m.Blocks[0].Rows[1].FormatZh = "Int32（TransactionId）" }, Unchanged, true},
		{"no translation on one side", func(m *spec.Message) {
			for i := range m.Blocks {
				for j := range m.Blocks[i].Rows {
					m.Blocks[i].Rows[j].Description.Zh = ""
				}
			}
		}, Unchanged, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := base()
			c.change(b)
			got := classify(base(), b)
			if got.Status != c.want || got.ZhOnly != c.zhOnly {
				t.Errorf("Compare = %+v, want %s (zh only %t)", got, c.want, c.zhOnly)
			}
		})
	}
}

// A missing side decides before any layout is looked at.
func TestCompareAbsentSides(t *testing.T) {
	for _, c := range []struct {
		a, b *spec.Message
		want Status
	}{{nil, nil, Absent}, {nil, base(), Added}, {base(), nil, Removed}} {
		if got := Compare(c.a, c.b, nil, nil).Status; got != c.want {
			t.Errorf("Compare(%v, %v) = %s, want %s", c.a != nil, c.b != nil, got, c.want)
		}
	}
}

// A count nothing repeats is prose ("The number of bytes processed"), so
// gaining or losing one is not a layout change; with a repeat it is.
func TestCountOnlyShapesRepeats(t *testing.T) {
	lone := func(withCount bool) *spec.Message {
		m := &spec.Message{Blocks: []spec.Block{{Rows: []spec.Row{{Format: "Int64", Type: spec.Type{Kind: spec.KindInt, Width: 8},
			Description: spec.Text{En: "The number of bytes processed."}}}}}}
		if withCount {
			m.Blocks[0].Rows[0].Annotations = []spec.Annotation{{Kind: spec.AnnCount}}
		}
		return m
	}
	if got := classify(lone(false), lone(true)).Status; got != Unchanged {
		t.Errorf("lone count: %s, want unchanged", got)
	}
	b := base()
	b.Blocks[0].Rows[2].Annotations = nil
	if got := classify(base(), b).Status; got != Wire {
		t.Errorf("count feeding a repeat dropped: %s, want wire change", got)
	}
}
