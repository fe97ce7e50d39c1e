package model

import (
	_ "embed"
	"slices"
	"strings"
)

// pinned is what Build derives from the committed spec, reviewed and
// pinned by TestDefaults.
//
//go:embed testdata/defaults.txt
var pinned string

// DiffPinned compares the model's derivations with the pinned list of the
// committed spec: the ones it lacks (a new major's, a changed manual's), and
// the pinned ones of the model's messages (and error fields) no longer
// derived. pgspec gen prints only those, so that a reviewer reads what is
// new.
func (m *Model) DiffPinned() (added []Default, removed []string) {
	list := strings.Split(strings.TrimSuffix(pinned, "\n"), "\n")
	var texts []string
	for _, d := range m.Defaults {
		texts = append(texts, d.Text)
		if !slices.Contains(list, d.Text) {
			added = append(added, d)
		}
	}
	for _, l := range list {
		if !slices.Contains(texts, l) && m.derives(l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}

// derives reports whether a line of the pinned list is about the model's
// messages or error fields: each starts with the slug it is about
// (defaults.addf), the error fields' with "error field".
func (m *Model) derives(line string) bool {
	if strings.HasPrefix(line, "error field ") {
		return len(m.ErrorFields) > 0
	}
	return slices.ContainsFunc(m.Messages, func(msg *Message) bool {
		return strings.HasPrefix(line, msg.Slug+":") || strings.HasPrefix(line, msg.Slug+" ")
	})
}
