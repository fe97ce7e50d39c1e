package extract

import (
	"regexp"

	"github.com/pgspec/pgspec/spec"
)

// recogniser turns one English phrase pattern into an annotation. Value is
// taken from the first capture group when the pattern has one.
type recogniser struct {
	kind string
	re   *regexp.Regexp
	// unless, when set, vetoes a match: the phrase looks alike but means another thing.
	unless *regexp.Regexp
}

// rowRecognisers read structure out of a field row's description.
var rowRecognisers = []recogniser{
	{spec.AnnCountName, regexp.MustCompile(`\(denoted ([A-Z]) below\)`), nil},
	// A byte count (BASE_BACKUP's progress report) counts no elements.
	{spec.AnnCount, regexp.MustCompile(`(?i)^(?:specifies the |the )?number of [^.]*`), regexp.MustCompile(`(?i)^(?:the )?number of bytes`)},
	{spec.AnnRepeatField, regexp.MustCompile(`This field is repeated for each ([a-z ]+?)\.`), nil},
	{spec.AnnTerminated, regexp.MustCompile(`(?i)(?:terminated by a zero byte|zero byte is required as (?:a )?terminator)`), nil},
	{spec.AnnOptional, regexp.MustCompile(`This field is optional`), nil},
	{spec.AnnStreamedOnly, regexp.MustCompile(`only present for (streamed transactions)`), nil},
	{spec.AnnPresentIf, regexp.MustCompile(`(?i)(?:only present|present only) (?:if|when) ([^.]+)`), nil},
	{spec.AnnSinceProtocol, regexp.MustCompile(`available since protocol version (\d+)`), nil},
	{spec.AnnLengthOfSelf, regexp.MustCompile(`^Length of message contents in bytes, including self`), nil},
	{spec.AnnLengthFrom, regexp.MustCompile(`\b([a-z]) is the above length`), nil},
	{spec.AnnNullMinusOne, regexp.MustCompile(`-1 indicates a NULL|or -1 if there is no`), nil},
	{spec.AnnRest, regexp.MustCompile(`extends to the end of the message`), nil},
}

// leadRecognisers read structure out of the paragraphs between and after a
// message's field tables.
var leadRecognisers = []recogniser{
	{spec.AnnRepeatEach, regexp.MustCompile(`^Next, (?:the following [a-z ]+|one of the following [a-z ]+) appears? for each ([^:]+):?$`), nil},
	{spec.AnnRepeatEach, regexp.MustCompile(`^Then, for (?:each )?([^,]+), there is the following:?$`), nil},
	{spec.AnnRepeatEach, regexp.MustCompile(`(?:^|\. )For each ([a-z ]+?),? there is the following:?$`), nil},
	{spec.AnnRepeatEach, regexp.MustCompile(`(?:^|\. )Each ([a-z ]+?) is specified as:?$`), nil},
	{spec.AnnAlternative, regexp.MustCompile(`^Or$`), nil},
	{spec.AnnAfterGroup, regexp.MustCompile(`^After the last ([a-z]+), the following fields? appears?:?$`), nil},
	{spec.AnnTerminated, regexp.MustCompile(`followed by a zero byte as a terminator|(?i:zero byte is required as (?:a )?terminator)`), nil},
	{spec.AnnExclusive, regexp.MustCompile(`may contain either (a '.' message part or an '.' message part)(?: or neither of them)?, but never both`), nil},
	{spec.AnnProtocolChange, regexp.MustCompile(`^Before protocol version (\d+\.\d+),`), nil},
	{spec.AnnMessagesSince, regexp.MustCompile(`^The following messages \([^)]+\) are available since protocol version (\d+)`), nil},
	{spec.AnnSharedParts, regexp.MustCompile(`^The following message parts are shared by the above messages`), nil},
}

// sinceNamesRE lists the messages a messages-since paragraph names.
var sinceNamesRE = regexp.MustCompile(`^The following messages \(([^)]+)\)`)

// recognise applies the recognisers to text and returns what matched, in
// recogniser order.
func recognise(rs []recogniser, text string) []spec.Annotation {
	var out []spec.Annotation
	for _, r := range rs {
		m := r.re.FindStringSubmatch(text)
		if m == nil || (r.unless != nil && r.unless.MatchString(text)) {
			continue
		}
		a := spec.Annotation{Kind: r.kind, Phrase: m[0]}
		if len(m) > 1 {
			a.Value = m[1]
		}
		out = append(out, a)
	}
	return out
}

// annotate recognises the structure carried by the English prose. A
// messages-since paragraph also marks each message it names; the
// paragraph "The following message parts are shared by the above messages"
// makes the entries after it message parts.
func annotate(s *spec.Spec) {
	shared := map[string]bool{}
	for mi := range s.Messages {
		m := &s.Messages[mi]
		if m.Lead != nil {
			m.Lead.Annotations = recognise(leadRecognisers, m.Lead.Text.En)
			markNamedMessages(s, m)
			if spec.Has(m.Lead.Annotations, spec.AnnSharedParts) {
				shared[m.Layer] = true
			}
		}
		m.Part = shared[m.Layer] || usedAsPart(s, m)
		for bi := range m.Blocks {
			b := &m.Blocks[bi]
			if b.Lead != nil {
				b.Lead.Annotations = recognise(leadRecognisers, b.Lead.Text.En)
			}
			for ri := range b.Rows {
				r := &b.Rows[ri]
				r.Annotations = recognise(rowRecognisers, r.Description.En)
			}
		}
		for ni := range m.Notes {
			m.Notes[ni].Annotations = recognise(leadRecognisers, m.Notes[ni].Text.En)
		}
	}
}

// usedAsPart reports whether a row of another message of m's layer has
// m's name as its format (TupleData): m is a part of those messages even
// where the paragraph that says so is missing.
func usedAsPart(s *spec.Spec, m *spec.Message) bool {
	for _, o := range s.Messages {
		for _, r := range o.Rows() {
			if o.Layer == m.Layer && r.Type.Kind == spec.KindPart && r.Type.Part == m.Name {
				return true
			}
		}
	}
	return false
}

// listSepRE splits "A, B, and C" and "A and B".
var listSepRE = regexp.MustCompile(`,\s*(?:and\s+)?|\s+and\s+`)

// markNamedMessages copies a messages-since annotation of m's lead onto every
// message of the same layer that the paragraph names.
func markNamedMessages(s *spec.Spec, m *spec.Message) {
	for _, a := range m.Lead.Annotations {
		if a.Kind != spec.AnnMessagesSince {
			continue
		}
		names := sinceNamesRE.FindStringSubmatch(m.Lead.Text.En)[1]
		for _, name := range listSepRE.Split(names, -1) {
			for i := range s.Messages {
				if o := &s.Messages[i]; o.Layer == m.Layer && o.Name == name {
					o.Annotations = append(o.Annotations, spec.Annotation{Kind: spec.AnnSinceProtocol, Value: a.Value, Phrase: a.Phrase})
				}
			}
		}
	}
}
