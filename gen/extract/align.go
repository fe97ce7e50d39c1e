package extract

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pgspec/pgspec/spec"
)

// findCorrection returns the correction of the kind that covers the message's row.
func findCorrection(c *spec.Corrections, major int, message, kind string, row int) *spec.Correction {
	for i := range c.List {
		e := &c.List[i]
		if e.Major == major && e.Message == message && e.Kind == kind && slices.Contains(e.Rows, row) {
			return e
		}
	}
	return nil
}

// excuse drops the empty-description errors of err that a correction covers.
func excuse(c *spec.Corrections, err error, major int, used map[*spec.Correction]bool) error {
	var many *Errors
	if err == nil || !errors.As(err, &many) {
		return err
	}
	var left []error
	for _, e := range many.List {
		var pe *Error
		if errors.As(e, &pe) && errors.Is(e, ErrNoDescription) {
			if corr := findCorrection(c, major, pe.Message, spec.CorrNoDescription, pe.Row); corr != nil {
				used[corr] = true
				continue
			}
		}
		left = append(left, e)
	}
	return joinErrs(left)
}

// alignMessages copies the Chinese page's text onto the English messages of
// the same page. Messages pair up in document order and must agree in
// direction and first field; rows pair up in order and must agree in format,
// except where a correction says otherwise.
func alignMessages(file string, en, zh []spec.Message, major int, corr *spec.Corrections, used map[*spec.Correction]bool) []error {
	var errs []error
	for i := range max(len(en), len(zh)) {
		switch {
		case i >= len(zh):
			errs = append(errs, &Error{File: file, Message: en[i].Name, Err: errors.New("the translation lacks English message")})
			continue
		case i >= len(en):
			errs = append(errs, &Error{File: file, Message: zh[i].Name, Err: errors.New("the translation has a message English lacks")})
			continue
		}
		e, z := &en[i], &zh[i]
		if e.Name != z.Name {
			if e.Direction != z.Direction || e.Blocks[0].Rows[0].Format != z.Blocks[0].Rows[0].Format {
				errs = append(errs, &Error{File: file, Message: e.Name, Err: fmt.Errorf("translation has %q (%s) here", z.Name, z.Direction)})
				continue
			}
			e.NameZh = z.Name
		}
		if (e.Lead == nil) != (z.Lead == nil) {
			errs = append(errs, &Error{File: file, Message: e.Name, Err: errors.New("the paragraph before the message stands in one language only")})
		} else if e.Lead != nil {
			e.Lead.Text.Zh = z.Lead.Text.En
		}
		errs = append(errs, alignRows(file, e, z, major, corr, used)...)
	}
	return errs
}

// pos is where a row stands in its message: block index, row index.
type pos struct{ block, row int }

// rowPositions lists the positions of m's rows in document order.
func rowPositions(m *spec.Message) []pos {
	var out []pos
	for bi, b := range m.Blocks {
		for ri := range b.Rows {
			out = append(out, pos{bi, ri})
		}
	}
	return out
}

// alignRows pairs one message's rows, then its block leads (by the row that
// opens each block) and its notes (by position).
func alignRows(file string, e, z *spec.Message, major int, corr *spec.Corrections, used map[*spec.Correction]bool) []error {
	enRows, zhRows := rowPositions(e), rowPositions(z)
	var errs []error
	zhToEn := map[pos]pos{}
	j := 0
	for i, ep := range enRows {
		row := &e.Blocks[ep.block].Rows[ep.row]
		if c := findCorrection(corr, major, e.Name, spec.CorrMissingRows, i+1); c != nil {
			used[c] = true
			continue
		}
		if j >= len(zhRows) {
			errs = append(errs, &Error{File: file, Message: e.Name, Row: i + 1, Err: fmt.Errorf("translation lacks row %q", row.Format)})
			continue
		}
		zp := zhRows[j]
		zrow := z.Blocks[zp.block].Rows[zp.row]
		j++
		if zrow.Format != row.Format {
			c := findCorrection(corr, major, e.Name, spec.CorrFormat, i+1)
			if c == nil {
				errs = append(errs, &Error{File: file, Message: e.Name, Row: i + 1, Err: fmt.Errorf("format %q, English has %q", zrow.Format, row.Format)})
				continue
			}
			used[c] = true
			row.FormatZh = zrow.Format
		}
		row.Description.Zh = zrow.Description.En
		zhToEn[zp] = ep
	}
	if j < len(zhRows) {
		errs = append(errs, &Error{File: file, Message: e.Name, Row: j + 1, Err: fmt.Errorf("translation has %d rows more than English", len(zhRows)-j)})
	}
	for zb, b := range z.Blocks {
		if b.Lead == nil {
			continue
		}
		ep, ok := zhToEn[pos{zb, 0}]
		lead := e.Blocks[ep.block].Lead
		if !ok || ep.row != 0 || lead == nil {
			errs = append(errs, &Error{File: file, Message: e.Name, Err: fmt.Errorf("translation's paragraph %q has no English counterpart", b.Lead.Text.En)})
			continue
		}
		lead.Text.Zh = b.Lead.Text.En
	}
	if len(z.Notes) != len(e.Notes) {
		errs = append(errs, &Error{File: file, Message: e.Name, Err: fmt.Errorf("%d closing paragraphs, English has %d", len(z.Notes), len(e.Notes))})
		return errs
	}
	for i := range e.Notes {
		e.Notes[i].Text.Zh = z.Notes[i].Text.En
	}
	return errs
}

// alignIntro copies the Chinese page's opening paragraphs onto the
// English ones, paragraph by paragraph. Where the translation has another
// number of them, none is paired and the Chinese stays empty, which the
// spec's readers treat as untranslated (export lists it as a fallback).
func alignIntro(s *spec.Spec, page string, zh []string) {
	for i := range s.Intros {
		in := &s.Intros[i]
		if in.Page != page || len(in.Paragraphs) != len(zh) {
			continue
		}
		for k := range in.Paragraphs {
			in.Paragraphs[k].Zh = zh[k]
		}
	}
}
