//go:build ignore

package codec

//pgspec:machines replication-backend,replication-frontend

import (
	// pgspec:if no-commands
	"strconv"
	// pgspec:end
	"strings"
)

// ReplicationTracker decodes the CopyData payloads of a replication
// stream in both directions and follows their flow: the streaming
// pgspec:if message:replication-archive-or-manifest-data
// replication messages (XLogData, keepalives, standby status, BASE_BACKUP's
// archives) and, in a logical stream, the pgoutput message inside each
// XLogData, through Logical.
// pgspec:end
// pgspec:if no-message:replication-archive-or-manifest-data
// replication messages (XLogData, keepalives, standby status) and, in a
// logical stream, the pgoutput message inside each XLogData, through
// Logical.
// pgspec:end
// Start tells it the command that began the stream. Messages are valid
// until the next call.
type ReplicationTracker struct {
	// P is the layout: set Major (and ProtocolMinor) before the first
	// message.
	P Params
	// pgspec:if machine:logical
	// Logical follows pgoutput inside the XLogData of a logical stream;
	// it is a LogicalTracker, whose LogicalVersion and ParallelStreaming
	// Start sets from the command's options.
	// pgspec:end
	// pgspec:if no-machine:logical
	// Logical stands for the pgoutput tracker: the codec was generated
	// without the pgoutput messages, so a logical stream's WAL data stays
	// opaque.
	// pgspec:end
	Logical logicalPart

	kind   copyKind
	be, fe flowState
	rb     ReplicationBackend
	rf     ReplicationFrontend
	// The last two commands read, and what each began under which Params:
	// a connection that starts the same stream again (a pool, a consumer
	// reconnecting) reads it once, and so does pg_receivewal going from one
	// timeline's START_REPLICATION to the next's and back.
	recent [2]streamCommand
}

// streamCommand is a command that began a stream, as start read it.
type streamCommand struct {
	cmd   string
	in, p Params
	kind  copyKind
}

// Start takes the replication command that begins a stream:
// START_REPLICATION (physical, or logical with pgoutput's proto_version and
// streaming options) or BASE_BACKUP. It reports whether cmd is one of them;
// the tracker then decodes that stream.
func (r *ReplicationTracker) Start(cmd string) bool {
	k := r.start(cmd)
	r.open(k)
	return k != copyNone
}

// start recognises a command that begins a replication stream:
// START_REPLICATION (physical, or logical) or BASE_BACKUP; anything else
// is copyNone. For pgoutput it sets Logical's LogicalVersion
// (proto_version) and ParallelStreaming (streaming 'parallel', PG 16 on:
// Stream Abort then carries the abort LSN and time); binary, messages and
// two_phase change which messages come, not how they are laid out. A
// logical stream of another plugin (test_decoding …), or options pgoutput
// would refuse, leave the XLogData opaque.
func (r *ReplicationTracker) start(cmd string) copyKind {
	i := 0
	for i < len(cmd) && (cmd[i] == ' ' || cmd[i] == '\t' || cmd[i] == '\r' || cmd[i] == '\n') {
		i++
	}
	// A session's queries are no replication command: two bytes tell most
	// (SELECT, SET and SHOW begin with 's' too).
	if cmd = cmd[i:]; len(cmd) < len("BASE_BACKUP") ||
		!(cmd[0]|0x20 == 's' && cmd[1]|0x20 == 't' || cmd[0]|0x20 == 'b' && cmd[1]|0x20 == 'a') ||
		!hasWord(cmd, "START_REPLICATION") && !hasWord(cmd, "BASE_BACKUP") {
		return copyNone
	}
	// The commands are read in place: a streamCommand copied is eleven
	// words.
	in := Params{Major: r.P.Major, ProtocolMinor: r.P.ProtocolMinor}
	if c := &r.recent[1]; c.cmd == cmd && c.in == in {
		r.recent[0], r.recent[1] = r.recent[1], r.recent[0]
	} else if c := &r.recent[0]; c.cmd != cmd || c.in != in {
		r.recent[1] = *c
		*c = streamCommand{cmd: cmd, in: in}
		c.kind, c.p = readCommand(cmd, in)
	}
	c := &r.recent[0]
	if c.kind == copyLogical {
		r.Logical.reset(c.p)
	}
	return c.kind
}

// pgspec:if commands
// readCommand reads cmd with ParseCommand: the stream it begins and, for
// pgoutput, the Params its options give (ParsePgoutputOptions, as the
// plugin reads them).
func readCommand(cmd string, p Params) (copyKind, Params) {
	c, err := ParseCommand(cmd, p)
	if err != nil {
		return copyNone, p // the server refuses it too: no stream follows
	}
	switch c := c.(type) {
	case *BaseBackup:
		return copyBackup, p
	case *StartReplicationLogical:
		o, err := ParsePgoutputOptions(c.Options, p)
		if err != nil {
			return copyPhysical, p
		}
		if lp, err := o.DecodeParams(p); err == nil {
			return copyLogical, lp
		}
	}
	return copyPhysical, p
}

// pgspec:end
// pgspec:if no-commands
// readCommand finds the stream cmd begins and pgoutput's proto_version and
// streaming options with a scan of its own: a codec generated without the
// commands layer has no ParseCommand.
//
//	START_REPLICATION [SLOT name] [PHYSICAL] X/X [TIMELINE n]
//	START_REPLICATION SLOT name LOGICAL X/X [(option ['value'] [, ...])]
//	BASE_BACKUP [(option ['value'] [, ...])]
func readCommand(cmd string, p Params) (copyKind, Params) {
	if hasWord(cmd, "BASE_BACKUP") {
		return copyBackup, p
	}
	toks := replTokens(cmd)
	logical := false
	i := 1
	for ; i < len(toks) && toks[i] != "("; i++ {
		logical = logical || strings.EqualFold(toks[i], "LOGICAL")
	}
	if !logical {
		return copyPhysical, p
	}
	// Options: name [value] separated by commas inside parentheses.
	for i++; i < len(toks) && toks[i] != ")"; i++ {
		if toks[i] == "," {
			continue
		}
		name, value := strings.ToLower(unquote(toks[i])), "true"
		if i+1 < len(toks) && toks[i+1] != "," && toks[i+1] != ")" {
			i++
			value = unquote(toks[i])
		}
		switch name {
		case "proto_version":
			p.LogicalVersion, _ = strconv.Atoi(value)
		case "streaming":
			if strings.EqualFold(value, "parallel") {
				p.Streaming = ParallelStreaming
			}
		}
	}
	if p.LogicalVersion == 0 {
		return copyPhysical, p // not pgoutput: the WAL data stay opaque
	}
	return copyLogical, p
}

// pgspec:end
// hasWord reports whether s starts with word (any case) followed by the
// end or a separator. Clients write the keywords in upper case, as word
// is: the bytes compared as they are tell most, at a fraction of
// strings.EqualFold's cost (about 200 instructions for START_REPLICATION).
func hasWord(s, word string) bool {
	return len(s) >= len(word) && (s[:len(word)] == word || strings.EqualFold(s[:len(word)], word)) &&
		(len(s) == len(word) || strings.IndexByte(" \t\r\n;(", s[len(word)]) >= 0)
}

// open begins a stream of kind k.
func (r *ReplicationTracker) open(k copyKind) {
	// pgspec:if message:replication-archive-or-manifest-data
	if k == copyBackup && !(&BackupData{}).Majors().Has(r.P.Major) {
		k = copyNone // before 15 a base backup's CopyData are raw tar and manifest bytes
	}
	// pgspec:end
	// pgspec:if no-message:replication-archive-or-manifest-data
	if k == copyBackup {
		k = copyNone // before 15 a base backup's CopyData are raw tar and manifest bytes
	}
	// pgspec:end
	r.kind, r.be, r.fe = k, stReplicationBackendStreaming, stReplicationFrontendStreaming
	if k == copyBackup {
		r.be = stReplicationBackendBackup
	}
}

// reset starts over with p, keeping what the tracker grew.
func (r *ReplicationTracker) reset(p Params) {
	r.P, r.kind = p, copyNone
	r.Logical.reset(Params{})
}

// release lets go of the decoded messages of one side kept for reuse.
func (r *ReplicationTracker) release(dir flowSide) {
	if dir == sideFrontend {
		r.rf = ReplicationFrontend{}
		return
	}
	r.rb = ReplicationBackend{}
	r.Logical.release()
}

// Backend decodes one CopyData payload the server sent. logical is the
// pgoutput message inside an XLogData of a logical stream, else nil. When
// only that pgoutput message fails to decode, msg is still the XLogData
// (its LSNs say where).
func (r *ReplicationTracker) Backend(payload []byte) (msg, logical Message, err error) {
	var s Step
	err = r.backend(&s, &payload)
	return s.Sub, s.Logical, err
}

// Frontend decodes one CopyData payload the client sent.
func (r *ReplicationTracker) Frontend(payload []byte) (Message, error) {
	var s Step
	err := r.next(&s, sideFrontend, payload)
	return s.Sub, err
}

// backend decodes *payload, a CopyData's the server sent, into s.Sub (and
// s.Logical). It takes the payload's address: only the general path needs
// the payload again, and one word is less to keep across the decode than
// three.
// Nearly every message of a stream is an XLogData
// pgspec:if message:replication-archive-or-manifest-data
// (of a base backup, a BackupData)
// pgspec:end
// in a state it stays in: decoded without the dispatcher, taken on one
// bit, its WAL data handed straight to the logical tracker. Anything else,
// or a message that fails, takes the general path.
func (r *ReplicationTracker) backend(s *Step, payload *[]byte) error {
	if payload := *payload; r.kind != copyNone && len(payload) != 0 {
		switch tag := payload[0]; {
		case tag == tagXLogData && actIn(r.be, kindXLogData)&actStays != 0:
			x := &r.rb.xLogData
			s.Sub = x // before the decode, while both are at hand: the general path sets it again
			if x.Decode(payload, r.P) == nil {
				if r.kind == copyLogical {
					return r.toLogical(s, x.WALData)
				}
				s.clearLogical()
				return nil
			}
		// pgspec:if message:replication-archive-or-manifest-data
		case tag == tagBackupData && actIn(r.be, kindBackupData)&actStays != 0:
			b := &r.rb.backupData
			s.Sub = b
			if b.Decode(payload, r.P) == nil {
				s.clearLogical()
				return nil
			}
			// pgspec:end
		}
	}
	return r.next(s, sideBackend, *payload)
}

// next decodes payload into s.Sub (and s.Logical) with the dispatcher,
// checking the flow; a CopyData of no replication stream leaves both nil.
func (r *ReplicationTracker) next(s *Step, dir flowSide, payload []byte) error {
	if r.kind == copyNone || len(payload) == 0 {
		s.clearInner()
		return nil
	}
	var m Message
	var err error
	var k flowKind
	st := &r.be
	if dir == sideFrontend {
		st, k = &r.fe, kindsReplicationFrontend[payload[0]]
		m, err = r.rf.Decode(payload, r.P)
	} else {
		k = kindsReplicationBackend[payload[0]]
		m, err = r.rb.Decode(payload, r.P)
	}
	s.Sub = m
	if err == nil && actIn(*st, k)&actStays == 0 {
		if rule := flowLookup(*st, k, r.P.Major); rule == nil {
			err = flowViolation(*st, k, r.P.Major, 0, 0)
		} else {
			*st = flowState(rule.act)
		}
	}
	if err == nil && k == kindXLogData && r.kind == copyLogical {
		return r.toLogical(s, r.rb.xLogData.WALData)
	}
	s.clearLogical()
	return err
}

// toLogical hands an XLogData's WAL data of a logical stream to the
// logical tracker (which the Step asks for the Params they decoded with).
func (r *ReplicationTracker) toLogical(s *Step, wal []byte) (err error) {
	s.Logical, err = r.Logical.next(wal)
	return err
}

// logical is the pgoutput tracker the Steps of a conversation ask for
// LogicalParams.
func (r *ReplicationTracker) logical() *logicalPart { return &r.Logical }

// pgspec:if no-commands
// replTokens splits a replication command into words, 'literals',
// "identifiers" and the punctuation ( ) , — enough of the walsender grammar
// to find the options.
func replTokens(cmd string) []string {
	var toks []string
	for i := 0; i < len(cmd); {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';':
			i++
		case c == '(' || c == ')' || c == ',':
			toks = append(toks, cmd[i:i+1])
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(cmd) {
				if cmd[j] == c {
					if j+1 < len(cmd) && cmd[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(cmd))
			toks = append(toks, cmd[i:end])
			i = end
		default:
			j := i
			for j < len(cmd) && !strings.ContainsRune(" \t\n\r;(),'\"", rune(cmd[j])) {
				j++
			}
			toks = append(toks, cmd[i:j])
			i = j
		}
	}
	return toks
}

// unquote strips a 'literal' or "identifier" token of its quotes and
// undoubles the quotes inside; other tokens are returned as they are.
func unquote(t string) string {
	if len(t) >= 2 && (t[0] == '\'' || t[0] == '"') && t[len(t)-1] == t[0] {
		q := t[:1]
		return strings.ReplaceAll(t[1:len(t)-1], q+q, q)
	}
	return t
}

// pgspec:end
