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
}

// rowRecognisers read structure out of a field row's description.
var rowRecognisers = []recogniser{
	{spec.AnnCountName, regexp.MustCompile(`\(denoted ([A-Z]) below\)`)},
	{spec.AnnCount, regexp.MustCompile(`(?i)^(?:the )?number of [^.]*`)},
	{spec.AnnRepeatField, regexp.MustCompile(`This field is repeated for each ([a-z ]+?)\.`)},
	{spec.AnnTerminated, regexp.MustCompile(`(?i)(?:terminated by a zero byte|zero byte is required as (?:a )?terminator)`)},
	{spec.AnnZeroTerminator, regexp.MustCompile(`^(?:A zero byte|Zero), as (?:a )?terminator`)},
	{spec.AnnOptional, regexp.MustCompile(`This field is optional`)},
	{spec.AnnStreamedOnly, regexp.MustCompile(`only present for (streamed transactions)`)},
	{spec.AnnPresentIf, regexp.MustCompile(`(?i)only present (?:if|when) ([^.]+)`)},
	{spec.AnnSinceProtocol, regexp.MustCompile(`available since protocol version (\d+)`)},
	{spec.AnnLengthOfSelf, regexp.MustCompile(`^Length of message contents in bytes, including self`)},
	{spec.AnnLengthFrom, regexp.MustCompile(`\b([a-z]) is the above length`)},
	{spec.AnnNullMinusOne, regexp.MustCompile(`-1 indicates a NULL`)},
	{spec.AnnRest, regexp.MustCompile(`extends to the end of the message`)},
}

// leadRecognisers read structure out of the paragraphs between and after a
// message's field tables.
var leadRecognisers = []recogniser{
	{spec.AnnRepeatEach, regexp.MustCompile(`^Next, (?:the following [a-z ]+|one of the following [a-z ]+) appears? for each ([^:]+):?$`)},
	{spec.AnnRepeatEach, regexp.MustCompile(`^Then, for (?:each )?([^,]+), there is the following:?$`)},
	{spec.AnnAlternative, regexp.MustCompile(`^Or$`)},
	{spec.AnnAfterGroup, regexp.MustCompile(`^After the last ([a-z]+), the following fields? appears?:?$`)},
	{spec.AnnTerminated, regexp.MustCompile(`followed by a zero byte as a terminator|(?i:zero byte is required as (?:a )?terminator)`)},
	{spec.AnnAnyOrder, regexp.MustCompile(`Fields can appear in any order`)},
	{spec.AnnExclusive, regexp.MustCompile(`may contain either (a '.' message part or an '.' message part)(?: or neither of them)?, but never both`)},
	{spec.AnnProtocolChange, regexp.MustCompile(`^Before protocol version (\d+\.\d+),`)},
}

// recognise applies the recognisers to text and returns what matched, in
// recogniser order.
func recognise(rs []recogniser, text string) []spec.Annotation {
	var out []spec.Annotation
	for _, r := range rs {
		m := r.re.FindStringSubmatch(text)
		if m == nil {
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
