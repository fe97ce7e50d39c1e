package codec_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// turn is one message of a conversation: who sent it and its bytes (a
// frontend/backend message whole, or a one-byte answer).
type turn struct {
	backend bool
	wire    []byte
}

func fe(m codec.Message, p codec.Params) turn { return turn{false, mustEncodeP(m, p)} }
func be(m codec.Message, p codec.Params) turn { return turn{true, mustEncodeP(m, p)} }

func mustEncodeP(m codec.Message, p codec.Params) []byte {
	b, err := m.Encode(nil, p)
	if err != nil {
		panic(err)
	}
	return b
}

// play feeds the turns to a new conversation and returns the first error
// (with the turn it came at), or nil and the conversation.
func play(turns []turn) (*codec.Conversation, int, error) {
	c := codec.NewConversation(codec.Params{})
	at, err := feed(c, turns)
	return c, at, err
}

// feed gives c the turns and returns the first error with the turn it
// came at, or -1 and nil.
func feed(c *codec.Conversation, turns []turn) (int, error) {
	for i, t := range turns {
		var err error
		if t.backend {
			_, err = c.Backend.Next(t.wire)
		} else {
			_, err = c.Frontend.Next(t.wire)
		}
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}

// session is a whole conversation of a 3.2 client with a PostgreSQL 17
// server: SSL refused, SCRAM, NegotiateProtocolVersion down to 3.0, a
// simple query, a pipelined extended query, COPY FROM STDIN, a notice.
func session() []turn {
	p30 := codec.Params{Major: 17}
	rows := &codec.RowDescription{Fields: []codec.FieldDescription{{Name: "x", DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}}
	return []turn{
		fe(&codec.SSLRequest{}, p30),
		{true, []byte{'N'}},
		fe(&codec.StartupMessage{ProtocolVersion: 3<<16 | 2, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}}, p30),
		be(&codec.NegotiateProtocolVersion{NewestProtocolVersion: 3 << 16}, p30),
		be(&codec.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256"}}, p30),
		fe(&codec.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=abc")}, p30),
		be(&codec.AuthenticationSASLContinue{Data: []byte("r=abcdef,s=c2FsdA==,i=4096")}, p30),
		fe(&codec.SASLResponse{Data: []byte("c=biws,r=abcdef,p=cHJvb2Y=")}, p30),
		be(&codec.AuthenticationSASLFinal{Data: []byte("v=c2lnbmF0dXJl")}, p30),
		be(&codec.AuthenticationOk{}, p30),
		be(&codec.ParameterStatus{Name: "server_version", Value: "17.6 (Debian 17.6-1)"}, p30),
		be(&codec.BackendKeyData{ProcessID: 7, SecretKey: []byte{1, 2, 3, 4}}, p30),
		be(&codec.ReadyForQuery{TxStatus: 'I'}, p30),
		fe(&codec.Query{String: "SELECT 1"}, p30),
		be(rows, p30),
		be(&codec.DataRow{Values: [][]byte{[]byte("1")}}, p30),
		be(&codec.CommandComplete{CommandTag: "SELECT 1"}, p30),
		be(&codec.ReadyForQuery{TxStatus: 'I'}, p30),
		fe(&codec.Parse{Query: "SELECT $1"}, p30),
		fe(&codec.Bind{}, p30),
		fe(&codec.Describe{ObjectType: 'P'}, p30),
		fe(&codec.Execute{}, p30),
		fe(&codec.Sync{}, p30),
		be(&codec.ParseComplete{}, p30),
		be(&codec.BindComplete{}, p30),
		be(rows, p30),
		be(&codec.NoticeResponse{Fields: []codec.ErrorField{{Code: 'M', Value: "note"}}}, p30),
		be(&codec.DataRow{Values: [][]byte{[]byte("2")}}, p30),
		be(&codec.CommandComplete{CommandTag: "SELECT 1"}, p30),
		be(&codec.ReadyForQuery{TxStatus: 'I'}, p30),
		fe(&codec.Query{String: "COPY t FROM STDIN"}, p30),
		be(&codec.CopyInResponse{}, p30),
		fe(&codec.CopyData{Data: []byte("1\n")}, p30),
		fe(&codec.CopyDone{}, p30),
		be(&codec.CommandComplete{CommandTag: "COPY 1"}, p30),
		be(&codec.ReadyForQuery{TxStatus: 'I'}, p30),
		fe(&codec.Terminate{}, p30),
	}
}

// TestConversationFollowsASession: a whole session passes without a
// violation, and the conversation learned the major and the protocol.
func TestConversationFollowsASession(t *testing.T) {
	c, at, err := play(session())
	if err != nil {
		t.Fatalf("turn %d: %v", at, err)
	}
	if c.P.Major != 17 || c.P.ProtocolMinor != 0 {
		t.Errorf("learned %+v, want Major 17, ProtocolMinor 0", c.P)
	}
}

// TestCopyDataAhead: a client may send its COPY data before the server's
// CopyInResponse reaches it (pgx's CopyFrom does), and a proxy then sees
// them in that order; PostgreSQL reads them once in copy-in mode, or drops
// them when the COPY failed ("any subsequent CopyData, CopyDone, or
// CopyFail messages issued by the frontend will simply be dropped"). Both
// are no violation, and the session goes on in step.
func TestCopyDataAhead(t *testing.T) {
	p := codec.Params{Major: 17}
	base := session()
	at := slices.IndexFunc(base, func(t turn) bool { return strings.Contains(string(t.wire), "COPY t") })
	ahead := slices.Clone(base)
	ahead[at+1], ahead[at+2], ahead[at+3] = base[at+2], base[at+3], base[at+1] // CopyData, CopyDone, CopyInResponse
	failed := slices.Clone(ahead)
	failed[at+3] = be(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'C', Value: "42P01"}}}, p)
	failed = slices.Delete(failed, at+4, at+5) // no CommandComplete
	aborted := slices.Clone(failed)
	aborted[at+2] = fe(&codec.CopyFail{Message: "stop"}, p)
	for name, turns := range map[string][]turn{"answered": ahead, "refused": failed, "failed by the client": aborted} {
		turns = slices.Insert(turns, len(turns)-1, base[13:18]...) // then a simple query, answered
		if _, at, err := play(turns); err != nil {
			t.Errorf("%s: turn %d: %v", name, at, err)
		}
	}
}

// TestTerminateTwice: pg_basebackup -X stream (PostgreSQL 15's, the
// default) sends a second Terminate on its connection, from the exit
// handler of the process it forks to stream WAL; the server has stopped
// reading at the first. That is no violation, but anything else after a
// Terminate is.
func TestTerminateTwice(t *testing.T) {
	p := codec.Params{Major: 17}
	base := session()
	if _, at, err := play(append(slices.Clone(base), base[len(base)-1])); err != nil {
		t.Errorf("a second Terminate: turn %d: %v", at, err)
	}
	_, at, err := play(append(slices.Clone(base), base[len(base)-1], fe(&codec.Query{String: "SELECT 1"}, p)))
	var fe *codec.FlowError
	if !errors.As(err, &fe) || at != len(base)+1 || fe.State != "frontend terminated" || fe.Got != "query" {
		t.Errorf("a Query after Terminate: turn %d: %v", at, err)
	}
}

// TestConversationViolations: each mutation of the session is reported
// where it happens, with the state and what the state allows.
func TestConversationViolations(t *testing.T) {
	p := codec.Params{Major: 17}
	base := session()
	idx := func(want string) int {
		for i, t := range base {
			if strings.Contains(string(t.wire), want) {
				return i
			}
		}
		panic(want)
	}
	// A 32-byte cancel key is protocol 3.2's (PostgreSQL 18 on): the
	// session of an 18 server that went down to 3.0, or whose client asked 3.0.
	keyData := 11 // the BackendKeyData, after server_version
	if _, ok := decodeBackend(base[keyData].wire, p).(*codec.BackendKeyData); !ok {
		t.Fatalf("turn %d is no BackendKeyData", keyData)
	}
	on18 := slices.Clone(base)
	on18[keyData-1] = be(&codec.ParameterStatus{Name: "server_version", Value: "18.1"}, p)
	on18[keyData] = be(&codec.BackendKeyData{ProcessID: 7, SecretKey: make([]byte, 32)}, codec.Params{Major: 18, ProtocolMinor: 2})
	asked30 := slices.Clone(on18) // the client asks 3.0 itself: no NegotiateProtocolVersion comes
	asked30[2] = fe(&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}}, p)
	asked30 = slices.Delete(asked30, 3, 4)
	rowDesc := idx("x\x00")               // the simple query's RowDescription
	firstSync := idx("S\x00\x00\x00\x04") // the pipeline's Sync
	bindComplete := firstSync + 2
	params := []string{"backend-key-data", "error-response", "negotiate-protocol-version", "notice-response", "parameter-status", "ready-for-query"}
	for _, c := range []struct {
		name   string
		turns  []turn
		at     int
		state  string
		got    string
		expect []string
		detail string
	}{
		{"a 3.2 key after NegotiateProtocolVersion lowered the session to 3.0", on18, keyData,
			"backend parameters", "backend-key-data", params, "backend-key-data has the layout of protocol 3.2; the session speaks 3.0"},
		{"a 3.2 key when the client asked 3.0", asked30, keyData - 1,
			"backend parameters", "backend-key-data", params, "backend-key-data has the layout of protocol 3.2; the session speaks 3.0"},
		{"BackendKeyData before AuthenticationOk", slices.Insert(slices.Delete(slices.Clone(base), keyData, keyData+1), 9, base[keyData]), 9,
			"backend sasl-final", "backend-key-data", []string{"authentication-ok", "error-response"}, ""},
		{"DataRow without RowDescription", slices.Delete(slices.Clone(base), rowDesc, rowDesc+1), rowDesc,
			"backend query", "data-row", []string{"command-complete", "copy-both-response", "copy-in-response", "copy-out-response", "empty-query-response", "error-response", "notice-response", "notification-response", "parameter-status", "ready-for-query", "row-description"}, ""},
		{"AuthenticationOk dropped", slices.Delete(slices.Clone(base), 9, 10), 9,
			"backend sasl-final", "parameter-status", []string{"authentication-ok", "error-response"}, ""},
		{"SASL: a challenge before the client's initial response", swap(base, 5, 6), 5,
			"backend sasl-wait", "authentication-sasl-continue", []string{"error-response"}, ""},
		{"SASL: the final message without an exchange", slices.Delete(slices.Clone(base), 4, 8), 4,
			"backend authentication", "authentication-sasl-final", []string{"authentication-cleartext-password", "authentication-gss", "authentication-gss-continue", "authentication-kerberos-v5", "authentication-md5-password", "authentication-ok", "authentication-sasl", "authentication-sspi", "error-response", "negotiate-protocol-version", "notice-response"}, ""},
		{"SASL: the mechanisms offered again mid-exchange", slices.Insert(slices.Clone(base), 6, base[4]), 6,
			"backend sasl", "authentication-sasl", []string{"authentication-ok", "authentication-sasl-continue", "authentication-sasl-final", "error-response"}, ""},
		{"SASL: a response after the final message", slices.Insert(slices.Clone(base), 9, base[7]), 9,
			"frontend authenticating", "'p' (a password, SASL or GSSAPI response)", []string{"terminate"}, ""},
		{"SASL: AuthenticationOk after the server refused", slices.Replace(slices.Clone(base), 8, 9, be(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'C', Value: "28P01"}}}, p)), 9,
			"backend closed", "authentication-ok", nil, ""},
		{"ReadyForQuery duplicated", slices.Insert(slices.Clone(base), 13, base[12]), 13,
			"backend idle", "ready-for-query", []string{"error-response", "notice-response", "notification-response", "parameter-status"}, ""},
		{"BindComplete before ParseComplete", swap(base, bindComplete-1, bindComplete), bindComplete - 1,
			"backend parse", "bind-complete", []string{"error-response", "notice-response", "notification-response", "parameter-status", "parse-complete"}, ""},
		{"Bind answered after an error before Sync", slices.Replace(slices.Clone(base), bindComplete-1, bindComplete, be(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'C', Value: "42601"}}}, p)), bindComplete,
			"backend sync", "bind-complete", []string{"error-response", "notice-response", "notification-response", "parameter-status", "ready-for-query"}, ""},
		{"a SASLResponse before the server's challenge", swap(base, 6, 7), 6,
			"frontend authenticating", "'p' (a password, SASL or GSSAPI response)", []string{"terminate"}, ""},
	} {
		_, at, err := play(c.turns)
		var fe *codec.FlowError
		if !errors.As(err, &fe) || !errors.Is(err, codec.ErrFlow) {
			t.Errorf("%s: got %v at %d, want a FlowError", c.name, err, at)
			continue
		}
		if at != c.at || fe.State != c.state || fe.Got != c.got || !slices.Equal(fe.Expected, c.expect) || fe.Detail != c.detail {
			t.Errorf("%s: at turn %d: %v (%+v)\nwant at %d: %s, %s, expected %v, detail %q", c.name, at, err, fe, c.at, c.state, c.got, c.expect, c.detail)
		}
	}
}

func decodeBackend(wire []byte, p codec.Params) codec.Message {
	m, err := new(codec.Backend).Decode(wire, p)
	if err != nil {
		panic(err)
	}
	return m
}

// TestSASLExchangeEnds: the exchange ends with AuthenticationOk, after
// AuthenticationSASLFinal or, for a mechanism without final data, at once;
// until then the conversation is not authenticated.
func TestSASLExchangeEnds(t *testing.T) {
	base := session()
	c, at, err := play(base[:8])
	if err != nil || c.Authenticated() {
		t.Fatalf("mid-exchange: turn %d: %v, authenticated %v", at, err, c.Authenticated())
	}
	for name, turns := range map[string][]turn{"with final data": base, "without": slices.Delete(slices.Clone(base), 8, 9)} {
		c, at, err := play(turns)
		if err != nil || !c.Authenticated() {
			t.Errorf("%s: turn %d: %v, authenticated %v", name, at, err, c.Authenticated())
		}
	}
}

// TestNegotiation: NegotiateProtocolVersion answers what the StartupMessage
// asked for (3.2 of a 3.0 server, _pq_. options), once, with an older minor
// and only options asked for; a StartupMessage with _pq_. options, or a
// minor no major speaks, has it before start-up ends. Each mutation is
// reported with what is wrong; the untouched session passes.
func TestNegotiation(t *testing.T) {
	p := codec.Params{Major: 17}
	startup := func(minor uint32, params ...string) turn {
		m := &codec.StartupMessage{ProtocolVersion: 3<<16 | minor, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}}
		for _, n := range params {
			m.Parameters = append(m.Parameters, codec.StartupParameter{Name: n, Value: "1"})
		}
		return fe(m, p)
	}
	npv := func(minor int32, options ...string) turn {
		return be(&codec.NegotiateProtocolVersion{NewestProtocolVersion: 3<<16 | minor, UnrecognizedOptions: options}, p)
	}
	base := session() // asks 3.2, answered 3.0 at turn 3
	with := func(at int, ts ...turn) []turn { return slices.Replace(slices.Clone(base), at, at+1, ts...) }
	ready := len(base) - 1
	for i, tr := range base {
		if tr.backend && tr.wire[0] == 'Z' {
			ready = i // the start-up's ReadyForQuery
			break
		}
	}
	for _, c := range []struct {
		name   string
		turns  []turn
		at     int
		detail string
	}{
		{"an answer to nothing asked", slices.Replace(with(2, startup(0)), 3, 4, npv(0)), 3,
			"negotiates nothing (the minor asked for, no option): the StartupMessage asked for 3.0 and 0 _pq_. option(s)"},
		{"a newer minor offered", with(3, npv(3)), 3, "offers 3.3, newer than asked: the StartupMessage asked for 3.2 and 0 _pq_. option(s)"},
		{"an option not asked for", with(3, npv(0, "_pq_.compression")), 3, "names 1 unrecognised option(s); the StartupMessage asked for 3.2 and 0 _pq_. option(s)"},
		{"a run-time parameter named as an option", slices.Replace(with(2, startup(0, "_pq_.x")), 3, 4, npv(0, "DateStyle")), 3,
			`names "DateStyle", which is no _pq_. option`},
		{"another protocol", with(3, be(&codec.NegotiateProtocolVersion{NewestProtocolVersion: 4 << 16}, p)), 3, "offers protocol 4.0; the StartupMessage asked for 3.2"},
		{"negotiated twice", slices.Insert(slices.Clone(base), 4, npv(0)), 4, "a second NegotiateProtocolVersion: the server negotiates once"},
		{"an option left unanswered", slices.Delete(with(2, startup(0, "_pq_.x")), 3, 4), ready - 1,
			"start-up ends without NegotiateProtocolVersion, but the StartupMessage asked for 3.0 and 1 _pq_. option(s)"},
		{"a greasing minor left unanswered", slices.Delete(with(2, startup(9999)), 3, 4), ready - 1,
			"start-up ends without NegotiateProtocolVersion, but the StartupMessage asked for 3.9999 and 0 _pq_. option(s)"},
		// The server's major (server_version, after authentication) says
		// which minors it speaks: 17 none newer than 3.0, 18 3.2.
		{"3.2 taken by a 17 without an answer", slices.Delete(slices.Clone(base), 3, 4), ready - 1,
			"start-up ends without NegotiateProtocolVersion, but the StartupMessage asked for 3.2, which PostgreSQL 17 does not speak (its newest is 3.0)"},
		{"3.2 offered by a 17", slices.Replace(with(2, startup(9999)), 3, 4, npv(2)), ready,
			"the negotiation settled on 3.2, but PostgreSQL 17 speaks 3.0 at most"},
		{"an 18 lowering 3.2 to 3.0", with(ready-2, be(&codec.ParameterStatus{Name: "server_version", Value: "18.1"}, p)), ready,
			"the negotiation settled on 3.0, but PostgreSQL 18 speaks 3.2: it answers the older of that and the 3.2 asked"},
	} {
		conv, at, err := play(c.turns)
		var fe *codec.FlowError
		if !errors.As(err, &fe) || at != c.at || !strings.HasPrefix(fe.Detail, c.detail) {
			t.Errorf("%s: got %v at turn %d, want at %d a FlowError %q", c.name, err, at, c.at, c.detail)
			continue
		}
		if c.at == ready-1 && !conv.Authenticated() {
			t.Errorf("%s: start-up did not end at the ReadyForQuery reported", c.name)
		}
	}
	for name, turns := range map[string][]turn{
		"an option answered":                          slices.Replace(with(2, startup(0, "_pq_.x", "_pq_.y")), 3, 4, npv(0, "_pq_.x", "_pq_.y")),
		"3.2 of an 18, no answer":                     slices.Delete(with(ready-2, be(&codec.ParameterStatus{Name: "server_version", Value: "18.1"}, p)), 3, 4),
		"3.9999 of an 18, answered 3.2":               slices.Replace(with(ready-2, be(&codec.ParameterStatus{Name: "server_version", Value: "18.1"}, p)), 2, 4, startup(9999), npv(2)),
		"3.2 of a server whose major is not known":    slices.Delete(with(ready-2, be(&codec.ParameterStatus{Name: "server_version", Value: "20.0"}, p)), 3, 4),
		"3.0, no answer":                              slices.Delete(with(2, startup(0)), 3, 4),
		"the minor alone, as the manual describes it": with(3, be(&codec.NegotiateProtocolVersion{NewestProtocolVersion: 0}, p)),
	} {
		if _, at, err := play(turns); err != nil {
			t.Errorf("%s: turn %d: %v", name, at, err)
		}
	}
	// A major known from the start (FixMajor) judges the answer itself.
	conv := codec.NewConversation(p)
	conv.FixMajor = true
	if _, err := conv.Frontend.Next(startup(9999).wire); err != nil {
		t.Fatal(err)
	}
	_, err := conv.Backend.Next(npv(2).wire)
	if fe := (*codec.FlowError)(nil); !errors.As(err, &fe) || fe.Detail != "offers 3.2, which PostgreSQL 17 does not speak (its newest is 3.0)" {
		t.Errorf("a 17 offering 3.2: %v", err)
	}
}

func swap(ts []turn, i, j int) []turn {
	out := slices.Clone(ts)
	out[i], out[j] = out[j], out[i]
	return out
}

// xlog wraps a pgoutput message in the XLogData a CopyData carries.
func xlog(t *testing.T, m codec.Message, p codec.Params) []byte {
	t.Helper()
	wal, err := m.Encode(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	x, err := (&codec.XLogData{WALData: wal}).Encode(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestReplicationStreamingState: Start learns proto_version 2 from the
// command; Stream Start sets Streamed and Stream Stop clears it, so
// streamed messages decode with their xid; a physical stream leaves XLogData
// alone.
func TestReplicationStreamingState(t *testing.T) {
	p := codec.Params{LogicalVersion: 2}
	streamed := p
	streamed.Streaming = codec.Streamed
	var r codec.ReplicationTracker
	if !r.Start("START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '2', publication_names 'p', streaming 'on')") || r.Logical.P.LogicalVersion != 2 {
		t.Fatalf("Start: %+v", r.Logical.P)
	}
	rel := &codec.LogicalRelation{RelationOID: 1, Namespace: "public", RelationName: "t"}
	steps := []struct {
		payload []byte
		xid     uint32
	}{
		{xlog(t, &codec.LogicalStreamStart{Xid: 9, FirstSegment: 1}, p), 0},
		{xlog(t, &codec.LogicalRelation{Xid: 9, RelationOID: 1, Namespace: "public", RelationName: "t"}, streamed), 0},
		{xlog(t, &codec.LogicalDelete{Xid: 9, RelationOID: 1, OldKind: 'K', Old: codec.TupleData{}}, streamed), 9},
		{xlog(t, &codec.LogicalStreamStop{}, streamed), 0},
		{xlog(t, &codec.LogicalBegin{Xid: 10}, p), 0},
		{xlog(t, rel, p), 0},
		{xlog(t, &codec.LogicalDelete{RelationOID: 1, OldKind: 'K', Old: codec.TupleData{}}, p), 0},
	}
	for i, s := range steps {
		_, lm, err := r.Backend(s.payload)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if d, ok := lm.(*codec.LogicalDelete); ok && d.Xid != s.xid {
			t.Errorf("step %d: xid %d, want %d", i, d.Xid, s.xid)
		}
	}
	var phys codec.ReplicationTracker
	if !phys.Start("START_REPLICATION 0/0 TIMELINE 1") {
		t.Fatal("a physical START_REPLICATION is not recognised")
	}
	if m, lm, err := phys.Backend(steps[0].payload); err != nil || lm != nil || m.Slug() != (&codec.XLogData{}).Slug() {
		t.Errorf("physical: %v, %v, %v", m, lm, err)
	}
}

// TestReplicationLogicalError: when only the pgoutput message inside an
// XLogData fails to decode, the XLogData still comes back with the error.
func TestReplicationLogicalError(t *testing.T) {
	payload, err := (&codec.XLogData{WALStart: 7, WALData: []byte{'!'}}).Encode(nil, codec.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var r codec.ReplicationTracker
	r.Start("START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '1', publication_names 'p')")
	m, lm, err := r.Backend(payload)
	x, ok := m.(*codec.XLogData)
	if err == nil || lm != nil || !ok || x.WALStart != 7 {
		t.Errorf("got %v, %v, %v; want the XLogData at 7, no pgoutput message and an error", m, lm, err)
	}
}

// TestConversationAnswers: the server's one-byte answer is decoded by the
// conversation as the message answering the request the client sent
// (SSLResponse after SSLRequest, GSSEncResponse after GSSENCRequest), and
// its value decides where the conversation goes: 'N' back to the startup
// packets, 'S' or 'G' into the encrypted channel. A byte the answer cannot
// be is a DecodeError of that message.
func TestConversationAnswers(t *testing.T) {
	p := codec.Params{Major: 17}
	c := codec.NewConversation(p)
	take := func(backend bool, wire []byte) (*codec.Step, error) {
		t.Helper()
		if backend {
			return c.Backend.Next(wire)
		}
		return c.Frontend.Next(wire)
	}
	if _, err := take(false, mustEncodeP(&codec.SSLRequest{}, p)); err != nil || !c.Backend.OneByte() {
		t.Fatalf("SSLRequest: %v, OneByte %v", err, c.Backend.OneByte())
	}
	s, err := take(true, []byte{'N'})
	if m, ok := s.Msg.(*codec.SSLResponse); err != nil || !ok || m.Answer != 'N' || c.Backend.OneByte() || !c.Frontend.Untagged() {
		t.Fatalf("'N' after SSLRequest: %#v %v; OneByte %v Untagged %v", s.Msg, err, c.Backend.OneByte(), c.Frontend.Untagged())
	}
	if _, err := take(false, mustEncodeP(&codec.GSSEncRequest{}, p)); err != nil {
		t.Fatal(err)
	}
	s, err = take(true, []byte{'G'})
	if m, ok := s.Msg.(*codec.GSSEncResponse); err != nil || !ok || m.Answer != 'G' || !c.Encrypted() {
		t.Fatalf("'G' after GSSENCRequest: %#v %v, Encrypted %v", s.Msg, err, c.Encrypted())
	}

	// 'S' answers no GSSENCRequest, 'G' no SSLRequest.
	for _, x := range []struct {
		req    codec.Message
		answer byte
		err    string
	}{
		{&codec.GSSEncRequest{}, 'S', "GSSEncResponse.Answer (Byte1) at byte 0: unknown tag 'S' (want 'G', 'N')"},
		{&codec.SSLRequest{}, 'G', "SSLResponse.Answer (Byte1) at byte 0: unknown tag 'G' (want 'S', 'N')"},
	} {
		c.Reset(p)
		if _, err := take(false, mustEncodeP(x.req, p)); err != nil {
			t.Fatal(err)
		}
		var de *codec.DecodeError
		s, err := take(true, []byte{x.answer})
		if !errors.As(err, &de) || !strings.Contains(err.Error(), x.err) || s.Msg != nil || !c.Backend.OneByte() {
			t.Errorf("%q after %T: %v (%v); want %q, still waiting", x.answer, x.req, err, s.Msg, x.err)
		}
	}

	// 'S' accepted: the TLS handshake follows; Decrypted takes the protocol
	// up again inside it.
	c.Reset(p)
	take(false, mustEncodeP(&codec.SSLRequest{}, p))
	if s, err := take(true, []byte{'S'}); err != nil || s.Msg.(*codec.SSLResponse).Answer != 'S' || !c.Encrypted() {
		t.Fatalf("'S': %v, Encrypted %v", err, c.Encrypted())
	}
	c.Decrypted()
	if !c.Frontend.Untagged() || c.Backend.OneByte() {
		t.Errorf("after Decrypted: Untagged %v OneByte %v", c.Frontend.Untagged(), c.Backend.OneByte())
	}
}

// TestLogicalViolations: pgoutput streams mutated as the issue lists —
// a Stream Commit outside a stream, a change before its Relation, an
// Origin after a change, a Commit with no Begin, a Relation with a column
// of a user type no Type described — are each rejected with
// the state and what was missing, the message decoded all the same.
func TestLogicalViolations(t *testing.T) {
	p := codec.Params{Major: 17, LogicalVersion: 2}
	rel := &codec.LogicalRelation{RelationOID: 16390, Namespace: "public", RelationName: "t", Columns: []codec.RelationColumn{{Name: "x", DataType: 23, TypeModifier: -1}}}
	// A built-in column, one of the type the Type describes, one of a type none does.
	userRel := &codec.LogicalRelation{RelationOID: 16391, Namespace: "public", RelationName: "u", Columns: []codec.RelationColumn{
		{Name: "x", DataType: 23, TypeModifier: -1}, {Name: "y", DataType: 16401, TypeModifier: -1}, {Name: "z", DataType: 16402, TypeModifier: -1}}}
	ins := &codec.LogicalInsert{RelationOID: 16390, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("1")}}}}
	for _, c := range []struct {
		name   string
		msgs   []codec.Message
		state  string
		got    string
		detail string
	}{
		{"Stream Commit outside a stream", []codec.Message{&codec.LogicalStreamCommit{Xid: 9}},
			"logical between", "logical-stream-commit", "transaction 9 was never streamed: no Stream Start opened it"},
		{"Insert before its Relation", []codec.Message{&codec.LogicalBegin{Xid: 5}, ins},
			"logical transaction", "logical-insert", "relation 16390 has no Relation message before it"},
		{"Origin after a change", []codec.Message{&codec.LogicalBegin{Xid: 5}, rel, ins, &codec.LogicalOrigin{Name: "o"}},
			"logical transaction", "logical-origin", "the Origin message comes after a change of the transaction; it is always sent before any DML messages"},
		{"Commit without Begin", []codec.Message{&codec.LogicalCommit{}},
			"logical between", "logical-commit", ""},
		{"Relation of a user type before its Type", []codec.Message{&codec.LogicalBegin{Xid: 5}, &codec.LogicalType{DataType: 16401, Namespace: "public", Name: "u"}, userRel},
			"logical transaction", "logical-relation", `column "z" has type 16402, not built in, and no Type message before it`},
	} {
		tr := codec.LogicalTracker{P: p}
		var err error
		var m codec.Message
		for i, msg := range c.msgs {
			wire, werr := msg.Encode(nil, tr.P)
			if werr != nil {
				t.Fatalf("%s: %v", c.name, werr)
			}
			if m, err = tr.Next(wire); err != nil && i != len(c.msgs)-1 {
				t.Fatalf("%s: message %d: %v", c.name, i, err)
			}
		}
		var fe *codec.FlowError
		if !errors.As(err, &fe) || fe.State != c.state || fe.Got != c.got || fe.Detail != c.detail || m == nil || m.Slug() != c.got {
			t.Errorf("%s: %v (%+v), message %v; want %s, %s, %q", c.name, err, fe, m, c.state, c.got, c.detail)
		}
	}
}

// TestDirectTLS: a connection whose first byte is a TLS record began TLS
// without SSLRequest, which 17's protocol-flow.html documents first; once
// the caller holds the TLS end (Decrypted) the frontend sends its
// StartupMessage. An SSLRequest or GSSENCRequest through direct TLS is
// answered 'N', each once, as PostgreSQL 17 on does (backend_startup.c);
// after an SSLRequest's 'S' neither may come. A GSSENCRequest declined with
// 'N' still lets an SSLRequest follow.
func TestDirectTLS(t *testing.T) {
	if !codec.IsDirectTLS(0x16) || codec.IsDirectTLS(0) || codec.DirectTLSALPN != "postgresql" {
		t.Fatalf("IsDirectTLS(0x16) %v, IsDirectTLS(0) %v, ALPN %q", codec.IsDirectTLS(0x16), codec.IsDirectTLS(0), codec.DirectTLSALPN)
	}
	startup := fe(&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}}, codec.Params{})
	cancel := fe(&codec.CancelRequest{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}}, codec.Params{})
	ssl := fe(&codec.SSLRequest{}, codec.Params{})
	gss := fe(&codec.GSSEncRequest{}, codec.Params{})
	n := turn{true, []byte{'N'}}
	conv := func(major int) *codec.Conversation {
		c := codec.NewConversation(codec.Params{Major: major})
		c.FixMajor = true
		return c
	}
	wantFlow := func(what string, err error, state, got string) {
		t.Helper()
		var e *codec.FlowError
		if !errors.As(err, &e) || e.State != state || e.Got != got {
			t.Errorf("%s: %v, want a FlowError in %s for %s", what, err, state, got)
		}
	}

	for _, x := range []struct {
		name       string
		turns      []turn
		state, got string // of the violation at the last turn; "" for none
	}{
		{"SSL N, StartupMessage", []turn{ssl, n, startup}, "", ""},
		{"GSS N, SSL N, StartupMessage", []turn{gss, n, ssl, n, startup}, "", ""},
		{"SSL N, GSS N, CancelRequest", []turn{ssl, n, gss, n, cancel}, "", ""},
		{"SSL N, FATAL for what came with it", []turn{ssl, n, be(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'C', Value: "08P01"}}}, codec.Params{})}, "", ""},
		{"SSL S", []turn{ssl, {true, []byte{'S'}}}, "backend ssl-answer-in-tls", "ssl-response"},
		{"GSS G", []turn{gss, {true, []byte{'G'}}}, "backend gss-answer-in-tls", "gssenc-response"},
		{"SSL N, GSS G", []turn{ssl, n, gss, {true, []byte{'G'}}}, "backend gss-answer-in-tls-after-ssl", "gssenc-response"},
		{"SSL N, SSL", []turn{ssl, n, ssl}, "frontend tls-ssl-refused", "ssl-request"},
		{"GSS N, GSS", []turn{gss, n, gss}, "frontend tls-gss-refused", "gssenc-request"},
		{"SSL N, GSS N, SSL", []turn{ssl, n, gss, n, ssl}, "frontend encrypted-startup", "ssl-request"},
		{"GSS N, SSL N, GSS", []turn{gss, n, ssl, n, gss}, "frontend encrypted-startup", "gssenc-request"},
	} {
		c := conv(17)
		if _, err := c.Frontend.DirectTLS(); err != nil || !c.Encrypted() {
			t.Fatalf("direct TLS on 17: %v, encrypted %v", err, c.Encrypted())
		}
		c.Decrypted()
		if !c.Frontend.Untagged() || c.Backend.OneByte() {
			t.Fatalf("after the handshake: untagged %v, one byte %v", c.Frontend.Untagged(), c.Backend.OneByte())
		}
		i, err := feed(c, x.turns)
		if x.state == "" && err != nil {
			t.Errorf("%s through direct TLS: turn %d: %v", x.name, i, err)
		} else if x.state != "" {
			if i != len(x.turns)-1 {
				t.Errorf("%s through direct TLS: turn %d: %v, want the last turn refused", x.name, i, err)
			}
			wantFlow(x.name+" through direct TLS", err, x.state, x.got)
		}
	}
	c := conv(17)
	c.Frontend.DirectTLS()
	c.Decrypted()
	if _, err := c.Frontend.Next(startup.wire); err != nil || !c.Started() {
		t.Errorf("StartupMessage through direct TLS: %v, started %v", err, c.Started())
	}
	_, err := c.Frontend.DirectTLS()
	wantFlow("direct TLS after the StartupMessage", err, "frontend authenticating", "direct-tls")

	_, err = conv(16).Frontend.DirectTLS()
	wantFlow("direct TLS on 16", err, "frontend startup", "direct-tls")
	var e *codec.FlowError
	if errors.As(err, &e) && slices.Contains(e.Expected, "direct-tls") {
		t.Errorf("16 expects %v", e.Expected)
	}

	c = conv(16)
	play := func(ts ...turn) error {
		_, err := feed(c, ts)
		return err
	}
	if err := play(gss, turn{true, []byte{'N'}}, ssl, turn{true, []byte{'S'}}); err != nil || !c.Encrypted() {
		t.Fatalf("GSSENCRequest 'N', SSLRequest 'S': %v, encrypted %v", err, c.Encrypted())
	}
	c.Decrypted()
	wantFlow("a GSSENCRequest through TLS", play(gss), "frontend encrypted-startup", "gssenc-request")
	wantFlow("an SSLRequest through TLS", play(ssl), "frontend encrypted-startup", "ssl-request")
	if err := play(startup); err != nil {
		t.Errorf("StartupMessage through TLS: %v", err)
	}

	// Bytes that came with the request, before its 'S' or 'G': PostgreSQL
	// to 16 refuses them with FATAL 08P01 through the encryption just
	// established; 17 on takes them into the TLS handshake and sends no
	// message, but still refuses them after the GSSAPI one.
	fatal := be(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'C', Value: "08P01"}}}, codec.Params{})
	for _, x := range []struct {
		major  int
		req    turn
		answer byte
		state  string // of the violation; "" for none
	}{
		{16, ssl, 'S', ""},
		{17, ssl, 'S', "backend after-ssl-handshake"},
		{16, gss, 'G', ""},
		{17, gss, 'G', ""},
	} {
		c = conv(x.major)
		if err := play(x.req, turn{true, []byte{x.answer}}); err != nil {
			t.Fatal(err)
		}
		c.Decrypted()
		what := fmt.Sprintf("%d: FATAL after the handshake that followed %q", x.major, x.answer)
		if err := play(fatal); x.state == "" && err != nil {
			t.Errorf("%s: %v", what, err)
		} else if x.state != "" {
			wantFlow(what, err, x.state, "error-response")
		}
	}
}

// TestEncryptionRequests: each encryption is asked for at most once, as
// PostgreSQL's ProcessStartupPacket allows (ssl_done, gss_done): after an
// SSLRequest's 'N' a GSSENCRequest may follow, after a GSSENCRequest's 'N'
// an SSLRequest, and after both refusals only a StartupMessage or a
// CancelRequest; asking for the refused one again is a violation (which
// PostgreSQL answers with 0A000).
func TestEncryptionRequests(t *testing.T) {
	startup := fe(&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}}, codec.Params{})
	cancel := fe(&codec.CancelRequest{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}}, codec.Params{})
	ssl, gss := fe(&codec.SSLRequest{}, codec.Params{}), fe(&codec.GSSEncRequest{}, codec.Params{})
	n := turn{true, []byte{'N'}}
	fatal := be(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'C', Value: "08P01"}}}, codec.Params{})
	for _, c := range []struct {
		name  string
		turns []turn
		state string // of the violation; "" for none
		got   string
	}{
		{"SSL N, GSS N, StartupMessage", []turn{ssl, n, gss, n, startup}, "", ""},
		{"GSS N, SSL N, CancelRequest", []turn{gss, n, ssl, n, cancel}, "", ""},
		{"SSL N, StartupMessage", []turn{ssl, n, startup}, "", ""},
		{"GSS N, SSL S", []turn{gss, n, ssl, {true, []byte{'S'}}}, "", ""},
		{"SSL N, SSL", []turn{ssl, n, ssl}, "frontend ssl-refused", "ssl-request"},
		{"GSS N, GSS", []turn{gss, n, gss}, "frontend gss-refused", "gssenc-request"},
		{"SSL N, GSS N, SSL", []turn{ssl, n, gss, n, ssl}, "frontend unencrypted-startup", "ssl-request"},
		{"GSS N, SSL N, GSS", []turn{gss, n, ssl, n, gss}, "frontend unencrypted-startup", "gssenc-request"},
		// PostgreSQL's FATAL 08P01 after its 'N' for bytes that came with
		// the request is no violation of the server's.
		{"SSL N, FATAL", []turn{ssl, n, fatal}, "", ""},
		{"GSS N, FATAL", []turn{gss, n, fatal}, "", ""},
		{"FATAL before any packet", []turn{fatal}, "backend waiting", "error-response"},
	} {
		conv := codec.NewConversation(codec.Params{Major: 17})
		i, err := feed(conv, c.turns)
		var e *codec.FlowError
		switch {
		case c.state == "" && err != nil:
			t.Errorf("%s: turn %d: %v", c.name, i, err)
		case c.state != "" && (!errors.As(err, &e) || e.State != c.state || e.Got != c.got || i != len(c.turns)-1):
			t.Errorf("%s: turn %d: %v, want the last turn refused in %s", c.name, i, err, c.state)
		}
	}
	// The frontend waits for the answer: a packet it sends before is
	// refused (it is no message of that state, so it does not even decode).
	if i, err := feed(codec.NewConversation(codec.Params{Major: 17}), []turn{ssl, startup}); i != 1 || err == nil {
		t.Errorf("a StartupMessage before the answer to SSLRequest: turn %d: %v", i, err)
	}
}

// TestRequests: the conversation counts the requests it takes and those
// answered or voided, and is idle only with none owed and no error waiting
// for its Sync.
func TestRequests(t *testing.T) {
	p := codec.Params{Major: 17}
	f := func(m codec.Message) turn { return fe(m, p) }
	b := func(m codec.Message) turn { return be(m, p) }
	c := codec.NewConversation(p)
	c.FixMajor = true
	c.Resume()
	want := func(what string, taken, done uint64, idle bool) {
		t.Helper()
		if gt, gd := c.Requests(); gt != taken || gd != done || c.Idle() != idle {
			t.Errorf("%s: requests %d taken, %d done, idle %v; want %d, %d, %v", what, gt, gd, c.Idle(), taken, done, idle)
		}
	}
	errResp := b(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'S', Value: "ERROR"}, {Code: 'C', Value: "42601"}, {Code: 'M', Value: "x"}}})
	steps := []struct {
		turn        turn
		taken, done uint64
		idle        bool
	}{
		{f(&codec.Parse{Name: "a", Query: "q"}), 1, 0, false},
		{f(&codec.Bind{}), 2, 0, false},
		{f(&codec.Execute{}), 3, 0, false},
		{f(&codec.Sync{}), 4, 0, false},
		{b(&codec.ParseComplete{}), 4, 1, false},
		{errResp, 4, 3, false}, // the Bind failed, the Execute is voided
		{b(&codec.ReadyForQuery{TxStatus: 'I'}), 4, 4, true},
		{f(&codec.Parse{Query: "bad"}), 5, 4, false},
		{f(&codec.Flush{}), 5, 4, false},
		{errResp, 5, 5, false},                     // nothing owed, but a Sync must come
		{f(&codec.Parse{Query: "q"}), 5, 5, false}, // voided: never taken
		{f(&codec.Sync{}), 6, 5, false},
		{b(&codec.ReadyForQuery{TxStatus: 'I'}), 6, 6, true},
	}
	for i, s := range steps {
		if _, err := feed(c, []turn{s.turn}); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		want(fmt.Sprintf("step %d", i), s.taken, s.done, s.idle)
	}
}

// TestConversationLogicalParams: a Step's LogicalParams are what its
// pgoutput message was decoded with, Streamed in step with the stream:
// Stream Start without it (it sets it for what follows), the messages
// after it and Stream Stop with it, the transaction after without; and
// the pgoutput message that failed to decode, what it failed with.
func TestConversationLogicalParams(t *testing.T) {
	p := codec.Params{Major: 16}
	lp := codec.Params{Major: 16, LogicalVersion: 2}
	streamed := lp
	streamed.Streaming = codec.Streamed
	c, at, err := play([]turn{
		fe(&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}, {Name: "replication", Value: "database"}}}, p),
		be(&codec.AuthenticationOk{}, p),
		be(&codec.ParameterStatus{Name: "server_version", Value: "16.4"}, p),
		be(&codec.ReadyForQuery{TxStatus: 'I'}, p),
		fe(&codec.Query{String: "START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '2', publication_names 'p', streaming 'on')"}, p),
		be(&codec.CopyBothResponse{}, p),
	})
	if err != nil {
		t.Fatalf("turn %d: %v", at, err)
	}
	steps := []struct {
		m    codec.Message
		want codec.Params
	}{
		{&codec.LogicalStreamStart{Xid: 9, FirstSegment: 1}, lp},
		{&codec.LogicalRelation{Xid: 9, RelationOID: 1, Namespace: "public", RelationName: "t"}, streamed},
		{&codec.LogicalDelete{Xid: 9, RelationOID: 1, OldKind: 'K'}, streamed},
		{&codec.LogicalStreamStop{}, streamed},
		{&codec.LogicalBegin{Xid: 10}, lp},
		{&codec.LogicalDelete{RelationOID: 1, OldKind: 'K'}, lp},
		{&codec.LogicalCommit{}, lp},
	}
	for i, st := range steps {
		s, err := c.Backend.Next(mustEncodeP(&codec.CopyData{Data: xlog(t, st.m, st.want)}, p))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if s.Logical == nil || s.Logical.Slug() != st.m.Slug() || s.LogicalParams() != st.want {
			t.Errorf("step %d: %v decoded with %+v, want %s with %+v", i, s.Logical, s.LogicalParams(), st.m.Slug(), st.want)
		}
	}
	// A Stream Start, then WAL data that is no pgoutput message.
	for i, wal := range [][]byte{xlog(t, &codec.LogicalStreamStart{Xid: 11, FirstSegment: 1}, lp), mustEncodeP(&codec.XLogData{WALData: []byte{'!'}}, p)} {
		s, err := c.Backend.Next(mustEncodeP(&codec.CopyData{Data: wal}, p))
		if (err != nil) != (i == 1) || s.LogicalParams() != [2]codec.Params{lp, streamed}[i] {
			t.Errorf("after the stream, message %d: %v, decoded with %+v", i, err, s.LogicalParams())
		}
	}
}

// TestReplicationOnlyOnAWalsender: a Query is read for a replication
// command only on a connection whose StartupMessage asked for a walsender,
// its replication parameter read as the server's parse_bool reads it (any
// case, a prefix of true or yes, on whole, 1) or "database". Elsewhere
// START_REPLICATION is SQL (the server refuses it): were a CopyBothResponse
// to follow, its CopyData would carry no replication message.
func TestReplicationOnlyOnAWalsender(t *testing.T) {
	p := codec.Params{Major: 17}
	for _, c := range []struct {
		value     string // "-": no replication parameter
		walsender bool
	}{
		{"-", false}, {"database", true}, {"true", true}, {"TRUE", true}, {"t", true}, {"tru", true}, {"yes", true}, {"Y", true},
		{"on", true}, {"ON", true}, {"1", true}, {"o", false}, {"off", false}, {"false", false}, {"no", false}, {"0", false},
		{"", false}, {"truer", false}, {"on ", false}, {"Database", false}, {"11", false},
	} {
		params := []codec.StartupParameter{{Name: "user", Value: "u"}}
		if c.value != "-" {
			params = append(params, codec.StartupParameter{Name: "replication", Value: c.value})
		}
		conv, at, err := play([]turn{
			fe(&codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: params}, p),
			be(&codec.AuthenticationOk{}, p),
			be(&codec.ReadyForQuery{TxStatus: 'I'}, p),
			fe(&codec.Query{String: "START_REPLICATION 0/0 TIMELINE 1"}, p),
			be(&codec.CopyBothResponse{}, p),
		})
		if err != nil {
			t.Fatalf("replication=%q: turn %d: %v", c.value, at, err)
		}
		s, err := conv.Backend.Next(mustEncodeP(&codec.CopyData{Data: mustEncodeP(&codec.XLogData{WALData: []byte("wal")}, p)}, p))
		if err != nil || (s.Sub != nil) != c.walsender {
			t.Errorf("replication=%q: the stream's CopyData holds %v (%v), want a replication message: %v", c.value, s.Sub, err, c.walsender)
		}
	}
	// A conversation taken up late may be a walsender's.
	conv := codec.NewConversation(p)
	conv.Resume()
	if _, err := feed(conv, []turn{fe(&codec.Query{String: "START_REPLICATION 0/0 TIMELINE 1"}, p), be(&codec.CopyBothResponse{}, p)}); err != nil {
		t.Fatal(err)
	}
	if s, err := conv.Backend.Next(mustEncodeP(&codec.CopyData{Data: mustEncodeP(&codec.XLogData{WALData: []byte("wal")}, p)}, p)); err != nil || s.Sub == nil {
		t.Errorf("after Resume: %v, %v", s.Sub, err)
	}
}
