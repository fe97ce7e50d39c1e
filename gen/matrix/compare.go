package matrix

import (
	"slices"

	"github.com/pgspec/pgspec/spec"
)

// Status is what a cell of the matrix says about a message in one major,
// compared with the major before it.
type Status string

// The statuses, from the most to the least consequential for a codec user.
const (
	Absent     Status = "absent"
	Added      Status = "added"
	Removed    Status = "removed"
	Wire       Status = "wire change"       // the layout differs: decoders must change
	Annotation Status = "annotation change" // format text differs, layout the same
	Wording    Status = "wording change"    // names or English prose differ, formats the same
	Unchanged  Status = "unchanged"
	// Baseline marks a message in the first major of the corpus: there is
	// nothing before it to compare with, so "added" would claim history the
	// corpus cannot show.
	Baseline Status = "present"
)

// Change is how one message moved from one major to another.
type Change struct {
	Status Status `json:"status"`
	// ZhOnly is set when the English is unchanged but the Chinese translation
	// differs; only compared when both sides have one.
	ZhOnly bool `json:"zh_only,omitempty"`
}

// Compare classifies the step from a to b, whose layouts are la and lb;
// either message may be nil (not in that major).
func Compare(a, b *spec.Message, la, lb []string) Change {
	switch {
	case a == nil && b == nil:
		return Change{Status: Absent}
	case a == nil:
		return Change{Status: Added}
	case b == nil:
		return Change{Status: Removed}
	case !slices.Equal(la, lb):
		return Change{Status: Wire}
	case !slices.Equal(formats(a), formats(b)):
		return Change{Status: Annotation}
	case !slices.Equal(english(a), english(b)):
		return Change{Status: Wording}
	}
	return Change{Status: Unchanged, ZhOnly: translated(a) && translated(b) && !slices.Equal(chinese(a), chinese(b))}
}

func formats(m *spec.Message) []string {
	var out []string
	for _, r := range m.Rows() {
		out = append(out, r.Format)
	}
	return out
}

// english lists every English text of a message that is not a format.
func english(m *spec.Message) []string {
	return texts(m, "en", m.Name)
}

// chinese lists every Chinese text of a message, formats included, since
// the translation may print a format differently.
func chinese(m *spec.Message) []string {
	out := texts(m, "zh", m.NameZh)
	for _, r := range m.Rows() {
		out = append(out, r.FormatZh)
	}
	return out
}

// texts lists name and every prose text of m in lang, formats aside.
func texts(m *spec.Message, lang, name string) []string {
	out := []string{name, m.Context}
	if m.Lead != nil {
		out = append(out, m.Lead.Text.Pick(lang))
	}
	for _, b := range m.Blocks {
		if b.Lead != nil {
			out = append(out, b.Lead.Text.Pick(lang))
		}
		for _, r := range b.Rows {
			out = append(out, r.Description.Pick(lang))
		}
	}
	for _, n := range m.Notes {
		out = append(out, n.Text.Pick(lang))
	}
	return out
}

// translated reports whether the major's Chinese pages had this message.
func translated(m *spec.Message) bool {
	for _, r := range m.Rows() {
		if r.Description.Zh != "" {
			return true
		}
	}
	return false
}
