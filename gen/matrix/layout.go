package matrix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// Step is one step of a wire layout.
type Step struct {
	// Code is the step's canonical text: two majors encode and decode a
	// message alike exactly when the codes of their steps are equal.
	Code string
	// Manual is the step in the manual's notation (Int32, Byte4, Byten),
	// for a reader comparing layouts; "" for structure with no bytes.
	Manual string
}

// LayoutFunc returns the wire layout of message slug in major s, one step
// per item. Two majors whose codes are equal encode and decode the message
// alike; anything else about the message is wording. It is the one seam
// between the matrix and the notion of layout.
type LayoutFunc func(s *spec.Spec, slug string) ([]Step, error)

// ModelLayout is the generator's resolved layout (gen/model with the
// reviewed overlay): what the codec actually reads and writes. It is the
// layout pgspec matrix, diff and export use.
func ModelLayout(ov *spec.Overlay) LayoutFunc {
	return func(s *spec.Spec, slug string) ([]Step, error) {
		l, err := model.Resolve(s, slug, ov)
		if err != nil {
			return nil, err
		}
		return layoutSteps(l), nil
	}
}

// builtLayout is ModelLayout read from a model already built from the same
// specs and overlay: each layout was resolved when the model was, so
// nothing is resolved again.
func builtLayout(mod *model.Model) LayoutFunc {
	return func(s *spec.Spec, slug string) ([]Step, error) {
		var l *model.Layout
		if m := mod.Find(slug); m != nil {
			l = m.LayoutIn(s.Major)
		}
		if l == nil {
			return nil, fmt.Errorf("pg%d: no message %q", s.Major, slug)
		}
		return layoutSteps(l), nil
	}
}

// layoutSteps is a resolved layout's steps, one per item.
func layoutSteps(l *model.Layout) []Step {
	steps := make([]Step, len(l.Items))
	for i, it := range l.Items {
		steps[i] = Step{Code: it.String(), Manual: it.Manual()}
	}
	return steps
}

// SpecLayout reads a layout from the spec alone, for spec sets without an
// overlay (the hand-written fixtures): each row's parsed type without its
// Annotation, the block structure, and the structure recognised in prose.
func SpecLayout(s *spec.Spec, slug string) ([]Step, error) {
	m := s.Find(slug)
	if m == nil {
		return nil, fmt.Errorf("pg%d: no message %q", s.Major, slug)
	}
	return specLayout(m), nil
}

// codes lists the codes of steps, what comparisons and diffs look at.
func codes(steps []Step) []string {
	out := make([]string, len(steps))
	for i, st := range steps {
		out[i] = st.Code
	}
	return out
}

// specLayout leaves out everything that is only wording: the format's
// parenthesised annotation (Int32 (TransactionId)), descriptions, the
// phrases structure was recognised in, and the values of annotations that
// are prose (the X of "for each X", the condition of "only present if …"),
// which minor releases reword while the bytes stay the same. Whether a
// condition applies at all is kept (the annotation's kind).
func specLayout(m *spec.Message) []Step {
	repeats := repeats(m)
	steps := []Step{{Code: fmt.Sprintf("message direction=%q part=%t", m.Direction, m.Part)}}
	for i, b := range m.Blocks {
		lead := fmt.Sprintf("block %d", i+1)
		if b.Lead != nil {
			lead += structure(b.Lead.Annotations, repeats)
		}
		steps = append(steps, Step{Code: lead})
		for _, r := range b.Rows {
			steps = append(steps, Step{Code: "  " + wireType(r.Type) + structure(r.Annotations, repeats), Manual: r.Format})
		}
	}
	for _, n := range m.Notes {
		if s := structure(n.Annotations, repeats); s != "" {
			steps = append(steps, Step{Code: "note" + s})
		}
	}
	return steps
}

// valued are the annotation kinds whose value is a name or a number the
// layout depends on (Int16[C] names C; "since protocol version 4").
var valued = map[string]bool{
	spec.AnnCountName: true, spec.AnnLengthFrom: true, spec.AnnSinceProtocol: true, spec.AnnProtocolChange: true,
}

// repeats reports whether anything in m repeats; only then does a count
// ("The number of …") shape the layout. Without this, "The number of bytes
// processed" in BASE_BACKUP's progress report would make a layout change.
func repeats(m *spec.Message) bool {
	for _, b := range m.Blocks {
		if b.Lead != nil && slices.ContainsFunc(b.Lead.Annotations, isKind(spec.AnnRepeatEach)) {
			return true
		}
		for _, r := range b.Rows {
			if r.Type.Array != "" || slices.ContainsFunc(r.Annotations, isKind(spec.AnnRepeatField)) {
				return true
			}
		}
	}
	return false
}

func isKind(kind string) func(spec.Annotation) bool {
	return func(a spec.Annotation) bool { return a.Kind == kind }
}

// wireType renders a parsed format without its Annotation, which names a
// semantic type but does not change the bytes.
func wireType(t spec.Type) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s width=%d", t.Kind, t.Width)
	if t.Value != nil {
		fmt.Fprintf(&b, " value=%d", *t.Value)
	}
	for _, kv := range [][2]string{{"tag", t.Tag}, {"array", t.Array}, {"length", t.Length}, {"part", t.Part}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%q", kv[0], kv[1])
		}
	}
	return b.String()
}

// structure renders the annotations of a row or paragraph as
// " | kind[=value], …".
func structure(anns []spec.Annotation, repeats bool) string {
	var parts []string
	for _, a := range anns {
		if a.Kind == spec.AnnCount && !repeats {
			continue
		}
		p := a.Kind
		if valued[a.Kind] {
			p += "=" + a.Value
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return " | " + strings.Join(parts, ", ")
}
