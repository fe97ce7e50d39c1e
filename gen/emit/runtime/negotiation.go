//go:build ignore

package codec

//pgspec:machines frontend,backend

import "strconv"

// The negotiation of protocol-flow.html's start-up: a StartupMessage asks
// for a protocol minor and may carry `_pq_.` options; a server that lacks
// the minor or does not recognise an option answers NegotiateProtocolVersion
// once, with its newest minor and the options it did not recognise. No
// major documents an option it recognises, so every `_pq_.` option is
// answered.

// negotiation is what the StartupMessage asked for and whether it was
// answered.
type negotiation struct {
	minor      int  // the protocol minor asked for
	options    int  // how many _pq_. options it carried
	negotiated bool // a NegotiateProtocolVersion came
}

// ProtocolMinor is the newest minor of protocol 3 a server of major
// speaks, as its manual documents ("Before protocol version 3.2, …"); for
// 0, a server whose major the codec lacks, the newest any documented major
// speaks. A server built on the codec offers it in NegotiateProtocolVersion.
func ProtocolMinor(major int) int {
	if major > 0 && major < len(protocolMinors) {
		return int(protocolMinors[major])
	}
	return newestProtocolMinor
}

// ask notes what a StartupMessage asks for, and reports whether it asks
// for a walsender (its replication parameter): only a walsender takes
// replication commands, so only its Queries are read for one.
func (n *negotiation) ask(m *StartupMessage) (walsender bool) {
	*n = negotiation{minor: int(m.ProtocolVersion & 0xffff)}
	for i := range m.Parameters {
		switch name := m.Parameters[i].Name; {
		case isProtocolOption(name):
			n.options++
		case name == "replication": // "database": a logical walsender; a true boolean: a physical one
			b, _ := parseAnyBool(m.Parameters[i].Value)
			walsender = b || m.Parameters[i].Value == "database"
		}
	}
	return walsender
}

// isProtocolOption says whether a startup parameter is a protocol option.
func isProtocolOption(name string) bool { return len(name) > 5 && name[:5] == "_pq_." }

// pgspec:if message:negotiate-protocol-version
// answer checks a NegotiateProtocolVersion against what was asked: it
// comes once, for a newer minor or options asked for, offers an older
// minor of protocol 3 (or the minor alone), one the server's major speaks
// when it is known (0: not), and names only _pq_. options. It returns what
// is wrong, "" when nothing is.
func (n *negotiation) answer(m *NegotiateProtocolVersion, major int) string {
	minor := int(m.NewestProtocolVersion & 0xffff)
	// what was asked, written only for an answer that is wrong: a message
	// the flow allows allocates nothing
	asked := func() string {
		return "the StartupMessage asked for 3." + strconv.Itoa(n.minor) + " and " + strconv.Itoa(n.options) + " _pq_. option(s)"
	}
	switch {
	case n.negotiated:
		return "a second NegotiateProtocolVersion: the server negotiates once"
	case m.NewestProtocolVersion>>16 != 3 && m.NewestProtocolVersion>>16 != 0: // PostgreSQL sends 3.x, the manual describes the minor alone
		return "offers protocol " + strconv.Itoa(int(m.NewestProtocolVersion>>16)) + "." + strconv.Itoa(minor) + "; " + asked()
	case minor > n.minor:
		return "offers 3." + strconv.Itoa(minor) + ", newer than asked: " + asked()
	case major != 0 && minor > ProtocolMinor(major):
		return "offers 3." + strconv.Itoa(minor) + ", which PostgreSQL " + strconv.Itoa(major) + " does not speak (its newest is 3." + strconv.Itoa(ProtocolMinor(major)) + ")"
	case minor == n.minor && len(m.UnrecognizedOptions) == 0:
		return "negotiates nothing (the minor asked for, no option): " + asked()
	case len(m.UnrecognizedOptions) > n.options:
		return "names " + strconv.Itoa(len(m.UnrecognizedOptions)) + " unrecognised option(s); " + asked()
	}
	for _, o := range m.UnrecognizedOptions {
		if !isProtocolOption(o) {
			return "names " + strconv.Quote(o) + ", which is no _pq_. option"
		}
	}
	n.negotiated = true
	return ""
}

// pgspec:end

// asked reports whether a start-up reaching minor may have missed
// something, for missing to say: not when it asked for 3.0 and no option,
// and is on 3.0 (most), told inline.
func (n *negotiation) asked(minor int) bool { return n.minor|n.options|minor != 0 || n.negotiated }

// missing says what is wrong with the protocol a start-up ended on, ""
// when nothing: minor is the one reached, major the server's (0: not
// known). NegotiateProtocolVersion should have answered `_pq_.` options or
// a minor no major speaks; a server speaks no minor newer than its
// major's manual documents (a 17 that takes 3.2 without answering, or
// offers it), and one that knows a newer one answers the older of what was
// asked and its own (18 answers 3.2 to 3.9999, not 3.0).
func (n *negotiation) missing(major, minor int) string {
	speaks := ProtocolMinor(major)
	if !n.negotiated && n.options == 0 && n.minor <= newestProtocolMinor && minor <= speaks {
		return "" // nothing asked that a server of major would have to answer: most start-ups
	}
	settled := func() string { // written only for a start-up that is wrong
		return "the negotiation settled on 3." + strconv.Itoa(minor) + ", but PostgreSQL " + strconv.Itoa(major) + " speaks 3." + strconv.Itoa(speaks)
	}
	switch {
	case !n.negotiated && (n.options > 0 || n.minor > newestProtocolMinor):
		return "start-up ends without NegotiateProtocolVersion, but the StartupMessage asked for 3." + strconv.Itoa(n.minor) +
			" and " + strconv.Itoa(n.options) + " _pq_. option(s), which no server of protocol 3." + strconv.Itoa(newestProtocolMinor) + " or older recognises"
	case major == 0:
		return ""
	case minor > speaks && !n.negotiated:
		return "start-up ends without NegotiateProtocolVersion, but the StartupMessage asked for 3." + strconv.Itoa(n.minor) +
			", which PostgreSQL " + strconv.Itoa(major) + " does not speak (its newest is 3." + strconv.Itoa(speaks) + ")"
	case minor > speaks:
		return settled() + " at most"
	case n.negotiated && minor < min(n.minor, speaks):
		return settled() + ": it answers the older of that and the 3." + strconv.Itoa(n.minor) + " asked"
	}
	return ""
}
