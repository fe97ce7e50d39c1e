package spec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// WireChangesFile is the reviewed list of wire changes in the spec directory.
const WireChangesFile = "wirechanges.json"

// The kinds of WireChange.
const (
	MessageAdded   = "message-added"
	MessageRemoved = "message-removed"
	FieldAdded     = "field-added"
	FieldRemoved   = "field-removed"
	FieldChanged   = "field-changed" // its type, width, condition or gate
	// LayoutChanged is a change of a step that has no field name: a tag,
	// a length, a fixed value.
	LayoutChanged = "layout-changed"
)

var changeKinds = []string{MessageAdded, MessageRemoved, FieldAdded, FieldRemoved, FieldChanged, LayoutChanged}

// WireChange is one change of a message's wire layout from the major before
// Major to Major. The generator finds them; a person acknowledges each in
// wirechanges.json with its reason, so a new major's real changes are
// approved once and a damaged page can never become a codec.
type WireChange struct {
	Major   int    `json:"major"`
	Message string `json:"message"`
	Change  string `json:"change"`
	// Field is the Go field of the field-* kinds.
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
}

func (w WireChange) key() WireChange { w.Reason = ""; return w }

// wireChanges is the file's shape.
type wireChanges struct {
	WireChanges []WireChange `json:"wire_changes"`
}

// LoadWireChanges reads and checks the acknowledgements in fsys: every
// entry has a known kind, a field exactly when its kind names one, a reason,
// and appears once.
func LoadWireChanges(fsys fs.FS) ([]WireChange, error) {
	data, err := fs.ReadFile(fsys, WireChangesFile)
	if err != nil {
		return nil, err
	}
	var f wireChanges
	if err := decodeStrict(data, WireChangesFile, &f); err != nil {
		return nil, err
	}
	seen := map[WireChange]bool{}
	for i, w := range f.WireChanges {
		field := strings.HasPrefix(w.Change, "field-")
		switch {
		case !slices.Contains(changeKinds, w.Change):
			return nil, fmt.Errorf("%s: entry %d: unknown change %q (want one of %s)", WireChangesFile, i+1, w.Change, strings.Join(changeKinds, ", "))
		case w.Major == 0 || w.Message == "":
			return nil, fmt.Errorf("%s: entry %d: needs major and message", WireChangesFile, i+1)
		case field != (w.Field != ""):
			return nil, fmt.Errorf("%s: entry %d (%s): a field is named exactly by the field-* changes", WireChangesFile, i+1, w)
		case strings.TrimSpace(w.Reason) == "":
			return nil, fmt.Errorf("%s: entry %d (%s): needs a reason", WireChangesFile, i+1, w)
		case seen[w.key()]:
			return nil, fmt.Errorf("%s: entry %d (%s): listed twice", WireChangesFile, i+1, w)
		}
		seen[w.key()] = true
	}
	return f.WireChanges, nil
}

// String is how a change is named in errors: "19 bind: field-added Foo".
func (w WireChange) String() string {
	s := fmt.Sprintf("%d %s: %s", w.Major, w.Message, w.Change)
	if w.Field != "" {
		s += " " + w.Field
	}
	return s
}

// CheckWireChanges compares the changes found between consecutive majors
// with the acknowledged ones. Acknowledgements for majors outside compared
// (the majors whose step from the one before was examined) are not
// considered. Every change found but not acknowledged, and every
// acknowledgement in range that matches nothing, is listed in the error,
// the former as entries ready to review and paste.
func CheckWireChanges(found, acks []WireChange, compared []int) error {
	acked := map[WireChange]bool{}
	for _, a := range acks {
		if slices.Contains(compared, a.Major) {
			acked[a.key()] = true
		}
	}
	var missing []string
	for _, w := range found {
		if acked[w.key()] {
			delete(acked, w.key())
			continue
		}
		line, err := json.Marshal(w.key())
		if err != nil {
			return err
		}
		missing = append(missing, "  "+string(line))
	}
	var stale []string
	for _, a := range acks {
		if acked[a.key()] {
			stale = append(stale, "  "+a.String())
		}
	}
	var b strings.Builder
	if len(missing) > 0 {
		fmt.Fprintf(&b, "%d wire changes are not acknowledged in %s: review each, then add it with its reason:\n%s",
			len(missing), WireChangesFile, strings.Join(missing, "\n"))
	}
	if len(stale) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d acknowledged wire changes did not happen: remove them from %s:\n%s",
			len(stale), WireChangesFile, strings.Join(stale, "\n"))
	}
	if b.Len() > 0 {
		return fmt.Errorf("%s", b.String())
	}
	return nil
}
