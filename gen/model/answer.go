package model

import (
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// answer is the message the server's one-byte answer to req is, as the
// overlay's table describes it: one byte, one of the entry's, in the majors
// that document req. It has no tag and no length, travels from the backend
// and belongs to no dispatcher: a caller that sent req reads it on its own.
func answer(req *Message, a *spec.AnswerEntry, p *problems) *Message {
	ch := &Choice{}
	for _, b := range a.Bytes {
		ch.Tags = append(ch.Tags, b.Byte[0])
		ch.Alternatives = append(ch.Alternatives, &spec.Row{
			Format:      "Byte1('" + b.Byte + "')",
			Type:        spec.Type{Kind: spec.KindByte, Width: 1, Tag: b.Byte},
			Description: spec.Text{En: b.Doc},
		})
	}
	item := &Item{Op: OpChoice, Field: a.Field, Type: Byte, Choice: ch, Row: ch.Alternatives[0]}
	if why := item.illFormed(); why != "" {
		p.addf("overlay %s: answer %s %s", req.Slug, a.Field, why)
	}
	majors := append([]int(nil), req.Majors...)
	return &Message{
		Slug:      strings.TrimSuffix(req.Slug, "-request") + "-response",
		GoName:    a.Name,
		Name:      a.Name,
		Names:     []NameRange{{Name: a.Name, Majors: majors}},
		Layer:     req.Layer,
		Direction: FromBackend,
		Majors:    majors,
		Layouts:   []*Layout{{Majors: majors, Items: []*Item{item}}},
		Doc:       []string{a.Doc},
		AnswerTo:  req.Slug,
	}
}
