package matrix

import (
	"os"
	"slices"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// TestTruth checks the matrix built from the committed spec against history
// read by hand in the corpus HTML (/work/shared/docs/en/<major>/<page>),
// not against anything this package computes. Each fact names the page and
// the majors it was checked on. Messages are found by the names the
// manual prints, so the test does not depend on slug choices.
// committed is the history of the committed spec under its overlay.
func committed(t *testing.T) *History {
	t.Helper()
	specs, err := spec.LoadAll(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	ov, err := spec.LoadOverlay(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Build(specs, ModelLayout(ov))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestTruth(t *testing.T) {
	h := committed(t)
	specs := h.Specs
	const (
		msgfmt = "protocol-message-formats.html"
		logrep = "protocol-logicalrep-message-formats.html"
		repl   = "protocol-replication.html"
	)
	facts := []struct {
		why   string
		page  string
		name  string // as printed in major (in the one before for a removal)
		major int
		want  Status
	}{
		// 10: AuthenticationSASL, AuthenticationSASLContinue/Final,
		// SASLInitialResponse and SASLResponse are all printed. 10 is the
		// first major of the corpus, so it can only say "present".
		{"SASL is documented in 10", msgfmt, "AuthenticationSASL", 10, Baseline},
		{"SASL is documented in 10", msgfmt, "SASLInitialResponse", 10, Baseline},
		{"SASL is documented in 10", msgfmt, "SASLResponse", 10, Baseline},
		// 10 has no NegotiateProtocolVersion entry, 11 has it.
		{"NegotiateProtocolVersion first documented in 11", msgfmt, "NegotiateProtocolVersion", 11, Added},
		// 10 has no Byte1('T') message, 11 has "Truncate ... Identifies the message as a truncate message".
		{"logical Truncate arrives in 11", logrep, "Truncate", 11, Added},
		// 11 has no GSSENCRequest, 12 has it.
		{"GSSENCRequest arrives in 12", msgfmt, "GSSENCRequest", 12, Added},
		// 13 has none of Stream Start/Stop/Commit/Abort nor Byte1('M'); 14 has all five.
		{"logical streaming arrives in 14", logrep, "Stream Start", 14, Added},
		{"logical streaming arrives in 14", logrep, "Stream Stop", 14, Added},
		{"logical streaming arrives in 14", logrep, "Stream Commit", 14, Added},
		{"logical streaming arrives in 14", logrep, "Stream Abort", 14, Added},
		{"logical Message arrives in 14", logrep, "Message", 14, Added},
		// 14 inserts "Int32 Xid of the transaction (only present for
		// streamed transactions)" after the tag of Insert/Update/Delete/Truncate/Relation/Type.
		{"xid prefix in 14", logrep, "Insert", 14, Wire},
		{"xid prefix in 14", logrep, "Update", 14, Wire},
		{"xid prefix in 14", logrep, "Relation", 14, Wire},
		// 14's TupleData gains "Byte1('b') Identifies the data as binary formatted value".
		{"binary tuples in 14", logrep, "TupleData", 14, Wire},
		// 14 prints the formats as "Int32"; 15 as "Int32 (TransactionId)", "Int32 (Oid)",
		// "Int64 (XLogRecPtr)": same bytes.
		{"14 → 15 only annotates formats", logrep, "Begin", 15, Annotation},
		{"14 → 15 only annotates formats", logrep, "Insert", 15, Annotation},
		{"14 → 15 only annotates formats", logrep, "Update", 15, Annotation},
		// 14 has no "Begin Prepare"; 15 has Begin Prepare, Prepare, Commit
		// Prepared, Rollback Prepared and Stream Prepare.
		{"two-phase messages arrive in 15", logrep, "Begin Prepare", 15, Added},
		{"two-phase messages arrive in 15", logrep, "Prepare", 15, Added},
		{"two-phase messages arrive in 15", logrep, "Commit Prepared", 15, Added},
		{"two-phase messages arrive in 15", logrep, "Rollback Prepared", 15, Added},
		{"two-phase messages arrive in 15", logrep, "Stream Prepare", 15, Added},
		// 15's BASE_BACKUP streams "new archive (B)", "manifest (B)",
		// "archive or manifest data (B)", "progress report (B)"; 14 has none.
		{"BASE_BACKUP sub-messages in 15", repl, "new archive", 15, Added},
		{"BASE_BACKUP sub-messages in 15", repl, "progress report", 15, Added},
		// 16's Stream Abort adds "Int64 (XLogRecPtr) The LSN of the abort" and
		// "Int64 (TimestampTz) Abort timestamp", "available since protocol version 4".
		{"Stream Abort gains LSN and timestamp in 16", logrep, "Stream Abort", 16, Wire},
		// 15 prints AuthenticationSCMCredential, 16 does not.
		{"AuthenticationSCMCredential leaves the docs in 16", msgfmt, "AuthenticationSCMCredential", 16, Removed},
		// 17: "Int32 The secret key"; 18: "Byten The secret key ... The
		// maximum key length is 256 bytes. Before protocol version 3.2, the
		// secret key was always 4 bytes long." Length fields lose Int32(12)/Int32(16).
		{"protocol 3.2 variable-length cancel key in 18", msgfmt, "BackendKeyData", 18, Wire},
		{"protocol 3.2 variable-length cancel key in 18", msgfmt, "CancelRequest", 18, Wire},
		// 17: "Int32(196608) The protocol version number"; 18: "Int32(196610)";
		// 19: "Int32". The overlay (reviewed) makes the version a field, since
		// 18 and 19 servers accept 3.0 and 3.2 alike: the format changes, the
		// layout a codec reads does not. The facts table carries 3.0 → 3.2.
		{"StartupMessage names 3.2 in 18", msgfmt, "StartupMessage", 18, Annotation},
		{"StartupMessage names no fixed version in 19", msgfmt, "StartupMessage", 19, Annotation},
		// 14: "Int8 Flags; currently unused (must be 0)"; 15: "Int8(0) Flags;
		// currently unused": the same byte, now printed as a fixed value.
		{"Commit flags printed as Int8(0) in 15", logrep, "Commit", 15, Annotation},
		// 18 prints "XLogData (B)", 19 "WALData (B)" with the same Byte1('w'),
		// Int64, Int64, Int64, Byten: a rename, not a removal and an addition.
		{"XLogData renamed WALData in 19", repl, "WALData", 19, Wording},
		// 19 adds "Primary status update (B)" Byte1('s') and "Request primary
		// status update (F)" Byte1('p'); 18 has neither.
		{"primary status messages in 19", repl, "Primary status update", 19, Added},
		{"primary status messages in 19", repl, "Request primary status update", 19, Added},
		// Primary keepalive message: Byte1('k'), Int64, Int64, Byte1 in every major.
		{"keepalive never changes layout", repl, "Primary keepalive message", 19, Unchanged},
	}
	for _, f := range facts {
		printed := f.major
		if f.want == Removed {
			printed--
		}
		s := specs[slices.IndexFunc(specs, func(s *spec.Spec) bool { return s.Major == printed })]
		i := slices.IndexFunc(s.Messages, func(m spec.Message) bool { return m.Name == f.name && m.Page == f.page })
		if i < 0 {
			t.Errorf("%s: no %q on %s in %d", f.why, f.name, f.page, printed)
			continue
		}
		row := h.Rows[slices.IndexFunc(h.Rows, func(r Row) bool { return r.Slug == s.Messages[i].Slug })]
		if got := row.Cells[f.major-specs[0].Major].Status; got != f.want {
			t.Errorf("%s (%s, %d): %q is %q, want %q", f.why, f.page, f.major, f.name, got, f.want)
		}
	}

	// The rename keeps one row: no major documents XLogData and WALData apart.
	for _, s := range specs {
		x, w := byName(s, "XLogData"), byName(s, "WALData")
		if x != nil && w != nil || x == nil && w == nil {
			t.Errorf("%d: XLogData %v, WALData %v; want exactly one", s.Major, x != nil, w != nil)
		}
		if x != nil && x.Slug != byName(specs[len(specs)-1], "WALData").Slug {
			t.Errorf("%d: XLogData has slug %q, WALData %q", s.Major, x.Slug, byName(specs[len(specs)-1], "WALData").Slug)
		}
	}

	// Keepalive and standby status update never change layout in 10..19
	// (protocol-replication.html, every major): only wording may move.
	for _, name := range []string{"Primary keepalive message", "Standby status update"} {
		row := h.Rows[slices.IndexFunc(h.Rows, func(r Row) bool { return r.Latest.Name == name })]
		for i, c := range row.Cells {
			if c.Status == Wire || c.Status == Added || c.Status == Removed {
				t.Errorf("%s in %d: %s", name, specs[i].Major, c.Status)
			}
		}
	}

	// protocol-message-formats.html: StartupMessage prints Int32(196608)
	// (3.0) in 10..17 and Int32(196610) (3.2) in 18; 19 prints a plain
	// Int32 and names 3.2 only as an example. BackendKeyData 18 and 19 say
	// "Before protocol version 3.2". A major not read here (a new one)
	// shows in spec/matrix.md's facts, which make generate rewrites for
	// review.
	type startup struct {
		version string
		named   []string
	}
	read := map[int]startup{18: {"3.2", []string{"3.2"}}, 19: {"", []string{"3.2"}}}
	for major := 10; major <= 17; major++ {
		read[major] = startup{"3.0", nil}
	}
	for _, f := range h.AllFacts() {
		r, ok := read[f.Major]
		if !ok {
			continue
		}
		want, named := r.version, r.named
		if f.StartupVersion != want || !slices.Equal(f.ProtocolVersions, named) {
			t.Errorf("%d: startup version %q, named %v; want %q, %v", f.Major, f.StartupVersion, f.ProtocolVersions, want, named)
		}
		// A version the manual leaves open is said to be so, not "none"
		// (which reads as "no StartupMessage").
		if f.Major == 19 {
			if got := factCells(f, vocab[English])[2]; got != "not fixed (Int32)" {
				t.Errorf("19's startup version cell %q", got)
			}
			if got := factCells(f, vocab[Chinese])[2]; got != "不固定（Int32）" {
				t.Errorf("19's startup version cell (zh) %q", got)
			}
		}
		// protocol-error-fields.html lists S V C M D H P p q W s t c d n F L R in 10 and 19.
		if len(f.ErrorFields) != 18 || len(f.NewErrorFields) > 0 {
			t.Errorf("%d: error fields %v, new %v", f.Major, f.ErrorFields, f.NewErrorFields)
		}
	}
}

func byName(s *spec.Spec, name string) *spec.Message {
	for i := range s.Messages {
		if s.Messages[i].Name == name {
			return &s.Messages[i]
		}
	}
	return nil
}
