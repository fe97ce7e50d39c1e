package pgclient

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgtest"
)

// TestStartupAndAuthentication logs in with each method pg_hba asks for,
// with startup parameters the server must echo back, once after an
// SSLRequest the server declines.
func TestStartupAndAuthentication(t *testing.T) {
	for _, c := range []struct {
		user pgtest.User
		want string
		ssl  bool
	}{
		{pgtest.SCRAMUser, "SCRAM-SHA-256", false},
		{pgtest.MD5User, "md5", true},
		{pgtest.PlainUser, "password", false},
		{pgtest.Superuser, "trust", true},
	} {
		t.Run(c.user.Name, func(t *testing.T) {
			conn := connect(t, c.user, func(cfg *Config) {
				cfg.SSLRequest = c.ssl
				cfg.Params = map[string]string{"application_name": "e2e-" + c.user.Name, "options": "-c search_path=pg_catalog -c work_mem=1234kB", "DateStyle": "ISO, YMD"}
			})
			if conn.AuthMethod != c.want {
				t.Errorf("authenticated by %q, want %q", conn.AuthMethod, c.want)
			}
			if conn.SSLDeclined != c.ssl {
				t.Errorf("SSLRequest declined %v, want %v", conn.SSLDeclined, c.ssl)
			}
			if conn.Negotiated != nil {
				t.Errorf("NegotiateProtocolVersion %+v for protocol 3.0", conn.Negotiated)
			}
			if got := conn.Server["application_name"]; got != "e2e-"+c.user.Name {
				t.Errorf("ParameterStatus application_name = %q", got)
			}
			if got := conn.Server["DateStyle"]; got != "ISO, YMD" {
				t.Errorf("ParameterStatus DateStyle = %q", got)
			}
			if conn.P.Major != 15 || !strings.HasPrefix(conn.Server["server_version"], "15.") {
				t.Errorf("major %d from server_version %q, want 15", conn.P.Major, conn.Server["server_version"])
			}
			if conn.ProcessID == 0 || len(conn.SecretKey) != 4 {
				t.Errorf("BackendKeyData pid %d key %x", conn.ProcessID, conn.SecretKey)
			}
			got := query(t, conn, "select current_user, current_setting('search_path'), current_setting('work_mem'), pg_backend_pid()")[0].Rows[0]
			want := []string{c.user.Name, "pg_catalog", "1234kB", strconv.Itoa(int(conn.ProcessID))}
			for i := range want {
				if string(got[i]) != want[i] {
					t.Errorf("column %d = %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}

// TestProtocolNegotiation asks a PostgreSQL 15 server for protocol 3.2 with
// an unknown protocol option: it answers NegotiateProtocolVersion (3.0, the
// option listed) and then speaks 3.0, with a 4-byte cancel key.
func TestProtocolNegotiation(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser, func(cfg *Config) {
		cfg.ProtocolMinor = 2
		cfg.ProtocolOptions = map[string]string{"_pq_.pgspec_test": "on"}
	})
	// The manual calls the field the "newest minor protocol version"; the
	// server sends the whole version number, 3<<16 | 0.
	if n := c.Negotiated; n == nil || n.NewestProtocolVersion != 3<<16 || fmt.Sprint(n.UnrecognizedOptions) != "[_pq_.pgspec_test]" {
		t.Fatalf("NegotiateProtocolVersion %+v, want version 196608 (3.0) and the unknown option", n)
	}
	if c.P.ProtocolMinor != 0 || len(c.SecretKey) != 4 {
		t.Errorf("after negotiation: minor %d, cancel key %x", c.P.ProtocolMinor, c.SecretKey)
	}
	if got := scalar(t, c, "select 'negotiated'"); got != "negotiated" {
		t.Error(got)
	}
}

// TestGSSEncRequest: a server built with GSSAPI (Debian's is) answers 'G'
// to GSSENCRequest over TCP whatever pg_hba says; libpq sends the request
// only when it holds Kerberos credentials. This client cannot go on.
func TestGSSEncRequest(t *testing.T) {
	s := pgtest.Get(t)
	_, err := Connect(context.Background(), Config{Addr: s.Addr(), User: pgtest.SCRAMUser.Name, Password: pgtest.SCRAMUser.Password,
		Database: pgtest.Database, GSSEncRequest: true})
	if err == nil || !strings.Contains(err.Error(), "gssenc-request answered 'G'") {
		t.Errorf("GSSENCRequest: %v, want the answer 'G'", err)
	}
}

func TestWrongPassword(t *testing.T) {
	s := pgtest.Get(t)
	for _, u := range []pgtest.User{pgtest.SCRAMUser, pgtest.MD5User, pgtest.PlainUser} {
		_, err := Connect(context.Background(), Config{Addr: s.Addr(), User: u.Name, Password: "nope", Database: pgtest.Database})
		var pgErr *session.Error
		if !errors.As(err, &pgErr) || pgErr.SQLState() != "28P01" {
			t.Errorf("%s with a wrong password: %v, want SQLSTATE 28P01", u.Name, err)
		}
	}
}

// TestSimpleQueryResults sends several statements in one Query and checks
// each result set, NULL against empty strings, and the empty query.
func TestSimpleQueryResults(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser)
	res := query(t, c, `create temp table sq(id int, name text);
		insert into sq values (1, 'one'), (2, ''), (3, null);
		select id, name from sq order by id;
		select 'ü€😀' as "wide", 42::int8 as n;
		update sq set name = upper(name) where id = 1`)
	if len(res) != 5 {
		t.Fatalf("%d results, want 5: %+v", len(res), res)
	}
	for i, tag := range []string{"CREATE TABLE", "INSERT 0 3", "SELECT 3", "SELECT 1", "UPDATE 1"} {
		if res[i].Tag != tag {
			t.Errorf("result %d tag %q, want %q", i, res[i].Tag, tag)
		}
	}
	rows := res[2].Rows
	if got := fmt.Sprintf("%q", rows); got != `[["1" "one"] ["2" ""] ["3" ""]]` || rows[1][1] == nil || rows[2][1] != nil {
		t.Errorf("rows %s (NULL must be nil, empty must not)", got)
	}
	if got := strings.Join(res[3].Columns, ","); got != "wide,n" {
		t.Errorf("columns %q", got)
	}
	if got := string(res[3].Rows[0][0]); got != "ü€😀" {
		t.Errorf("multibyte text %q", got)
	}
	empty := query(t, c, "")
	if len(empty) != 1 || empty[0].Tag != "" || empty[0].Columns != nil {
		t.Errorf("empty query gave %+v, want one EmptyQueryResponse", empty)
	}
}

// TestErrorAndNoticeFields provokes errors and a notice that between them
// carry every field code the manual documents, and checks each value.
func TestErrorAndNoticeFields(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser)
	query(t, c, `create temp table errt(id int constraint errt_pos check (id > 0))`)
	seen := map[byte]bool{}
	check := func(sql string, want map[byte]string) {
		t.Helper()
		_, err := c.SimpleQuery(sql)
		var e *session.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v, want an ErrorResponse", sql, err)
		}
		for code, v := range want {
			if got, ok := session.Field(e.Fields, code); !ok || (v != "*" && got != v) {
				t.Errorf("%s: field %q = %q (present %v), want %q", sql, code, got, ok, v)
			}
		}
		for _, f := range e.Fields {
			seen[f.Code] = true
		}
	}
	check(`do $$ begin raise exception using message = 'boom', detail = 'the detail', hint = 'the hint',
		errcode = '22012', column = 'col', constraint = 'cons', datatype = 'typ', table = 'tab', schema = 'sch'; end $$`,
		map[byte]string{'S': "ERROR", 'V': "ERROR", 'C': "22012", 'M': "boom", 'D': "the detail", 'H': "the hint",
			'c': "col", 'n': "cons", 'd': "typ", 't': "tab", 's': "sch", 'W': "PL/pgSQL function inline_code_block line 1 at RAISE",
			'F': "*", 'L': "*", 'R': "*"})
	check(`select 1 from nowhere`, map[byte]string{'C': "42P01", 'M': `relation "nowhere" does not exist`, 'P': "15"})
	check(`do $$ begin execute 'select 1 +'; end $$`, map[byte]string{'C': "42601", 'q': "select 1 +", 'p': "11"})
	check(`insert into errt values (-1)`, map[byte]string{'C': "23514", 'n': "errt_pos", 't': "errt", 's': "*"})
	for _, f := range []byte{codec.ErrorFieldSeverity, codec.ErrorFieldSeverityNonLocalized, codec.ErrorFieldCode,
		codec.ErrorFieldMessage, codec.ErrorFieldDetail, codec.ErrorFieldHint, codec.ErrorFieldPosition,
		codec.ErrorFieldInternalPosition, codec.ErrorFieldInternalQuery, codec.ErrorFieldWhere, codec.ErrorFieldSchemaName,
		codec.ErrorFieldTableName, codec.ErrorFieldColumnName, codec.ErrorFieldDataTypeName, codec.ErrorFieldConstraintName,
		codec.ErrorFieldFile, codec.ErrorFieldLine, codec.ErrorFieldRoutine} {
		if !seen[f] {
			t.Errorf("no error carried field %q", f)
		}
	}

	c.Notices = nil
	query(t, c, `do $$ begin raise notice using message = 'note', detail = 'nd', hint = 'nh', errcode = '01000'; end $$`)
	if len(c.Notices) != 1 {
		t.Fatalf("%d notices, want 1", len(c.Notices))
	}
	n := c.Notices[0]
	for code, want := range map[byte]string{'S': "NOTICE", 'V': "NOTICE", 'C': "01000", 'M': "note", 'D': "nd", 'H': "nh", 'W': "PL/pgSQL function inline_code_block line 1 at RAISE"} {
		if n.Get(code) != want {
			t.Errorf("notice field %q = %q, want %q", code, n.Get(code), want)
		}
	}
	if c.SimpleQuery("select 1"); len(c.Notices) != 1 {
		t.Errorf("a plain select added notices: %d", len(c.Notices))
	}
}

// TestExtendedProtocol prepares a statement with typed parameters, describes
// it, binds text and binary parameters with mixed result formats, executes
// with a row limit until PortalSuspended turns into CommandComplete, and
// closes portal and statement.
func TestExtendedProtocol(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser)
	const sql = "select $1::int4 + g, $2::text || g, g::int8 from generate_series(1, $3::int4) g"
	if err := c.Send(&codec.Parse{Name: "st", Query: sql, ParameterOIDs: []uint32{23, 25, 0}},
		&codec.Describe{ObjectType: 'S', Name: "st"}, &codec.Flush{}); err != nil {
		t.Fatal(err)
	}
	// Without Sync only Flush makes the server send these now.
	expect[*codec.ParseComplete](t, c)
	pd := expect[*codec.ParameterDescription](t, c)
	if fmt.Sprint(pd.ParameterOIDs) != "[23 25 23]" {
		t.Errorf("parameter OIDs %v, want [23 25 23] (the unspecified one inferred)", pd.ParameterOIDs)
	}
	rd := expect[*codec.RowDescription](t, c)
	if len(rd.Fields) != 3 || rd.Fields[0].DataTypeOID != 23 || rd.Fields[1].DataTypeOID != 25 || rd.Fields[2].DataTypeOID != 20 || rd.Fields[2].Name != "g" {
		t.Errorf("row description %+v", rd.Fields)
	}

	ten := binary.BigEndian.AppendUint32(nil, 10)
	if err := c.Send(
		&codec.Bind{DestinationPortal: "pt", PreparedStatement: "st", ParameterFormatCodes: []int16{1, 0, 0},
			Parameters: [][]byte{ten, []byte("row "), []byte("5")}, ResultFormatCodes: []int16{1, 0, 1}},
		&codec.Describe{ObjectType: 'P', Name: "pt"},
		&codec.Execute{Portal: "pt", MaxRows: 2},
		&codec.Execute{Portal: "pt", MaxRows: 2},
		&codec.Execute{Portal: "pt", MaxRows: 0},
		&codec.Close{ObjectType: 'P', Name: "pt"},
		&codec.Close{ObjectType: 'S', Name: "st"},
		&codec.Sync{}); err != nil {
		t.Fatal(err)
	}
	expect[*codec.BindComplete](t, c)
	prd := expect[*codec.RowDescription](t, c)
	if f := prd.Fields; f[0].Format != 1 || f[1].Format != 0 || f[2].Format != 1 {
		t.Errorf("portal formats %d %d %d, want 1 0 1", f[0].Format, f[1].Format, f[2].Format)
	}
	g := 0
	readRows := func(n int) {
		for range n {
			g++
			row := expect[*codec.DataRow](t, c)
			if got := binary.BigEndian.Uint32(row.Values[0]); got != uint32(10+g) {
				t.Errorf("row %d int4 %d, want %d", g, got, 10+g)
			}
			if got := string(row.Values[1]); got != "row "+strconv.Itoa(g) {
				t.Errorf("row %d text %q", g, got)
			}
			if got := binary.BigEndian.Uint64(row.Values[2]); got != uint64(g) {
				t.Errorf("row %d int8 %d", g, got)
			}
		}
	}
	readRows(2)
	expect[*codec.PortalSuspended](t, c)
	readRows(2)
	expect[*codec.PortalSuspended](t, c)
	readRows(1)
	if tag := expect[*codec.CommandComplete](t, c).CommandTag; tag != "SELECT 1" {
		t.Errorf("last execute tag %q, want SELECT 1 (rows of this Execute)", tag)
	}
	expect[*codec.CloseComplete](t, c)
	expect[*codec.CloseComplete](t, c)
	if st := expect[*codec.ReadyForQuery](t, c).TxStatus; st != 'I' {
		t.Errorf("tx status %q", st)
	}

	// A statement without result columns describes as NoData.
	if err := c.Send(&codec.Parse{Query: "select $1::int as v where false"}, &codec.Bind{Parameters: [][]byte{[]byte("0")}},
		&codec.Describe{ObjectType: 'P'}, &codec.Parse{Name: "n", Query: "set work_mem = '2MB'"}, &codec.Describe{ObjectType: 'S', Name: "n"}, &codec.Sync{}); err != nil {
		t.Fatal(err)
	}
	expect[*codec.ParseComplete](t, c)
	expect[*codec.BindComplete](t, c)
	expect[*codec.RowDescription](t, c)
	expect[*codec.ParseComplete](t, c)
	expect[*codec.ParameterDescription](t, c)
	expect[*codec.NoData](t, c)
	expect[*codec.ReadyForQuery](t, c)

	if err := c.Send(&codec.Parse{Query: "select 1/(g - 1) from generate_series(1, $1::int) g"}, &codec.Bind{Parameters: [][]byte{[]byte("3")}},
		&codec.Execute{}, &codec.Execute{}, &codec.Sync{}); err != nil {
		t.Fatal(err)
	}
	// A failing Execute makes the server skip the second one, up to Sync.
	expect[*codec.ParseComplete](t, c)
	expect[*codec.BindComplete](t, c)
	if e := session.NewError(expect[*codec.ErrorResponse](t, c).Fields); e.SQLState() != "22012" {
		t.Errorf("division by zero: %v", e)
	}
	expect[*codec.ReadyForQuery](t, c)
}

// copyBinaryRows builds a binary COPY stream (header, tuples, trailer) of
// (int4, text, bytea) rows; a nil field is NULL.
func copyBinaryRows(rows [][3][]byte) []byte {
	b := append([]byte("PGCOPY\n\xff\r\n\x00"), 0, 0, 0, 0, 0, 0, 0, 0) // signature, flags, extension length
	for _, r := range rows {
		b = binary.BigEndian.AppendUint16(b, 3)
		for _, f := range r {
			if f == nil {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
			b = append(b, f...)
		}
	}
	return binary.BigEndian.AppendUint16(b, 0xffff)
}

// copyIn runs a COPY … FROM STDIN, sending data in CopyData chunks of the given size.
func copyIn(t *testing.T, c *Conn, sql string, data []byte, chunk int, wantFormat uint8) string {
	t.Helper()
	if err := c.Send(&codec.Query{String: sql}); err != nil {
		t.Fatal(err)
	}
	in := expect[*codec.CopyInResponse](t, c)
	if in.OverallFormat != wantFormat || len(in.ColumnFormatCodes) != 3 || in.ColumnFormatCodes[2] != int16(wantFormat) {
		t.Errorf("CopyInResponse %+v, want format %d for 3 columns", in, wantFormat)
	}
	var msgs []codec.Message
	for len(data) > 0 {
		n := min(chunk, len(data))
		msgs = append(msgs, &codec.CopyData{Data: data[:n]})
		data = data[n:]
	}
	if err := c.Send(append(msgs, &codec.CopyDone{})...); err != nil {
		t.Fatal(err)
	}
	tag := expect[*codec.CommandComplete](t, c).CommandTag
	expect[*codec.ReadyForQuery](t, c)
	return tag
}

// copyOut runs a COPY … TO STDOUT and returns the data it streamed.
func copyOut(t *testing.T, c *Conn, sql string, wantFormat uint8) []byte {
	t.Helper()
	if err := c.Send(&codec.Query{String: sql}); err != nil {
		t.Fatal(err)
	}
	out := expect[*codec.CopyOutResponse](t, c)
	if out.OverallFormat != wantFormat {
		t.Errorf("CopyOutResponse format %d, want %d", out.OverallFormat, wantFormat)
	}
	var data []byte
	for {
		m, err := c.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := m.(*codec.CopyData); ok {
			data = append(data, d.Data...)
			continue
		}
		if _, ok := m.(*codec.CopyDone); !ok {
			t.Fatalf("got %s inside COPY OUT", m.Slug())
		}
		break
	}
	expect[*codec.CommandComplete](t, c)
	expect[*codec.ReadyForQuery](t, c)
	return data
}

func TestCopy(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser)
	query(t, c, "create temp table ct(id int4, name text, data bytea); create temp table cb(like ct)")

	text := "1\tone\t\\\\x00ff\n2\ttab\\there\t\\N\n3\t\\N\t\\\\x\n"
	if tag := copyIn(t, c, "copy ct from stdin", []byte(text), 7, 0); tag != "COPY 3" {
		t.Errorf("COPY FROM tag %q", tag)
	}
	if got := string(copyOut(t, c, "copy ct to stdout", 0)); got != text {
		t.Errorf("COPY TO STDOUT text\n got %q\nwant %q", got, text)
	}
	if got := scalar(t, c, "select string_agg(coalesce(name, '<null>') || ':' || coalesce(encode(data, 'hex'), '<null>'), ',' order by id) from ct"); got != "one:00ff,tab\there:<null>,<null>:" {
		t.Errorf("rows stored by COPY text: %q", got)
	}

	rows := [][3][]byte{
		{binary.BigEndian.AppendUint32(nil, 7), []byte("seven"), {0, 1, 2, 0xff}},
		{binary.BigEndian.AppendUint32(nil, 0xfffffffe), nil, {}},
	}
	bin := copyBinaryRows(rows)
	if tag := copyIn(t, c, "copy cb from stdin (format binary)", bin, 5, 1); tag != "COPY 2" {
		t.Errorf("binary COPY FROM tag %q", tag)
	}
	if got := copyOut(t, c, "copy cb to stdout (format binary)", 1); !bytes.Equal(got, bin) {
		t.Errorf("COPY TO STDOUT binary\n got %x\nwant %x", got, bin)
	}
	if got := scalar(t, c, "select string_agg(id || ':' || coalesce(name, '<null>') || ':' || encode(data, 'hex'), ',' order by id) from cb"); got != "-2:<null>:,7:seven:000102ff" {
		t.Errorf("rows stored by COPY binary: %q", got)
	}

	// CopyFail aborts the COPY with the client's message.
	if err := c.Send(&codec.Query{String: "copy ct from stdin"}); err != nil {
		t.Fatal(err)
	}
	expect[*codec.CopyInResponse](t, c)
	if err := c.Send(&codec.CopyData{Data: []byte("9\tnine\t\\N\n")}, &codec.CopyFail{Message: "client gave up"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.ReadUntilReady(nil)
	var e *session.Error
	if !errors.As(err, &e) || e.SQLState() != "57014" || !strings.Contains(e.Message(), "client gave up") {
		t.Errorf("CopyFail gave %v", err)
	}
	if got := scalar(t, c, "select count(*) from ct"); got != "3" {
		t.Errorf("after CopyFail %s rows, want 3", got)
	}
}

func TestListenNotify(t *testing.T) {
	listener := connect(t, pgtest.SCRAMUser)
	notifier := connect(t, pgtest.MD5User)
	query(t, listener, `listen "chan ü"`)
	query(t, notifier, `notify "chan ü", 'first'; select pg_notify('chan ü', 'second ' || repeat('x', 3))`)
	// Notifications arrive on the listener's next exchange with the server.
	query(t, listener, "select 1")
	want := []Notification{{notifier.ProcessID, "chan ü", "first"}, {notifier.ProcessID, "chan ü", "second xxx"}}
	if fmt.Sprint(listener.Notifications) != fmt.Sprint(want) {
		t.Errorf("notifications %+v, want %+v", listener.Notifications, want)
	}
}

// TestFunctionCallLargeObject drives the large-object functions through
// the fastpath FunctionCall message, with OIDs looked up in pg_proc, and
// reads the object back both ways.
func TestFunctionCallLargeObject(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser)
	oid := func(sig string) uint32 {
		n, err := strconv.ParseUint(scalar(t, c, "select '"+sig+"'::regprocedure::oid"), 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(n)
	}
	int4 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	call := func(fn uint32, args ...[]byte) []byte {
		t.Helper()
		formats := make([]int16, len(args))
		for i := range formats {
			formats[i] = 1
		}
		if err := c.Send(&codec.FunctionCall{Function: fn, ArgumentFormatCodes: formats, Arguments: args, ResultFormatCode: 1}); err != nil {
			t.Fatal(err)
		}
		var result []byte
		_, err := c.ReadUntilReady(func(m codec.Message) error {
			if r, ok := m.(*codec.FunctionCallResponse); ok {
				result = bytes.Clone(r.Result)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("function %d: %v", fn, err)
		}
		return result
	}
	const invWrite, invRead = 0x20000, 0x40000
	payload := bytes.Repeat([]byte("large\x00object\xff"), 1000)

	query(t, c, "begin")
	lo := call(oid("lo_creat(int4)"), int4(-1))
	fd := call(oid("lo_open(oid,int4)"), lo, int4(invWrite|invRead))
	if n := call(oid("lowrite(int4,bytea)"), fd, payload); binary.BigEndian.Uint32(n) != uint32(len(payload)) {
		t.Errorf("lowrite wrote %x, want %d", n, len(payload))
	}
	if pos := call(oid("lo_lseek(int4,int4,int4)"), fd, int4(5), int4(0)); binary.BigEndian.Uint32(pos) != 5 {
		t.Errorf("lo_lseek returned %x", pos)
	}
	if got := call(oid("loread(int4,int4)"), fd, int4(7)); string(got) != "\x00object" {
		t.Errorf("loread %q", got)
	}
	call(oid("lo_close(int4)"), fd)
	query(t, c, "commit")

	loOID := binary.BigEndian.Uint32(lo)
	if got := scalar(t, c, fmt.Sprintf("select md5(lo_get(%d)) = md5(decode('%x', 'hex'))", loOID, payload)); got != "t" {
		t.Error("lo_get does not return what lowrite wrote")
	}
	if got := call(oid("lo_unlink(oid)"), lo); binary.BigEndian.Uint32(got) != 1 {
		t.Errorf("lo_unlink returned %x", got)
	}
	// A NULL argument to a strict function gives a NULL result (length -1).
	if err := c.Send(&codec.FunctionCall{Function: oid("abs(int4)"), ArgumentFormatCodes: []int16{1}, Arguments: [][]byte{nil}, ResultFormatCode: 1}); err != nil {
		t.Fatal(err)
	}
	if r := expect[*codec.FunctionCallResponse](t, c); r.Result != nil {
		t.Errorf("abs(NULL) = %x, want NULL", r.Result)
	}
	expect[*codec.ReadyForQuery](t, c)
}

// TestCancelRequest cancels a running query from a second connection.
func TestCancelRequest(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser)
	s := pgtest.Get(t)
	if err := c.Send(&codec.Query{String: "select pg_sleep(30)"}); err != nil {
		t.Fatal(err)
	}
	// A cancel that arrives before the query starts is ignored, and a second
	// one sent after the first landed would cancel the next statement: wait
	// until the backend sleeps, then cancel exactly once.
	watcher := connect(t, pgtest.Superuser)
	sleeping := fmt.Sprintf("select count(*) from pg_stat_activity where pid = %d and wait_event = 'PgSleep'", c.ProcessID)
	for i := 0; scalar(t, watcher, sleeping) != "1"; i++ {
		if i == 500 {
			t.Fatal("the backend never started sleeping")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Cancel(s.Addr()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := c.ReadUntilReady(nil)
	var e *session.Error
	if !errors.As(err, &e) || e.SQLState() != "57014" {
		t.Fatalf("cancelled query gave %v, want SQLSTATE 57014", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Error("the query ran to its end")
	}
	if got := scalar(t, c, "select 'still usable'"); got != "still usable" {
		t.Error(got)
	}
}

// TestTerminate: after Terminate the server closes the connection and the backend ends.
func TestTerminate(t *testing.T) {
	c := connect(t, pgtest.SCRAMUser)
	watcher := connect(t, pgtest.Superuser)
	pid := c.ProcessID
	if err := c.Send(&codec.Terminate{}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.NetConn().Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read after Terminate: %d bytes, %v; want EOF", n, err)
	}
	for range 100 {
		if scalar(t, watcher, fmt.Sprintf("select count(*) from pg_stat_activity where pid = %d", pid)) == "0" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("backend %d still running after Terminate", pid)
}
