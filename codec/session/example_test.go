package session_test

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// fakeServer plays a PostgreSQL 17 server on one end of a net.Pipe, for
// the examples: SCRAM-SHA-256 for any user with the password "secret",
// protocol 3.2 refused with NegotiateProtocolVersion, then any query
// answered with the rows n = 1..3 of one int4 column "n".
func fakeServer(conn net.Conn) {
	defer conn.Close()
	fr := codec.NewFrameReader(conn)
	// The conversation, from the server's side: it takes what the server
	// receives and sends, and so tells the client's 'p' messages apart.
	conv := codec.NewConversation(codec.Params{Major: 17})
	conv.FixMajor = true
	var out []byte
	send := func(ms ...codec.Message) {
		for _, m := range ms {
			start := len(out)
			out, _ = m.Encode(out, conv.P)
			conv.Backend.Next(out[start:])
		}
	}
	flush := func() { conn.Write(out); out = out[:0] }
	recv := func() codec.Message {
		next := fr.Next
		if conv.Frontend.Untagged() {
			next = fr.NextUntagged
		}
		frame, err := next()
		if err != nil {
			return nil
		}
		s, _ := conv.Frontend.Next(frame)
		return s.Msg
	}
	if recv().(*codec.StartupMessage).ProtocolVersion != uint32(session.Protocol30) {
		send(&codec.NegotiateProtocolVersion{NewestProtocolVersion: int32(session.Protocol30)})
	}
	// SCRAM: the server's side of the exchange the client's Auth drives.
	scram, _ := session.NewSCRAMServer("secret", []byte("pgspec-salt-0123"), 4096)
	send(&codec.AuthenticationSASL{AuthMechanisms: []string{session.SCRAMSHA256}})
	flush()
	first, _ := scram.ServerFirst(recv().(*codec.SASLInitialResponse).Data)
	send(&codec.AuthenticationSASLContinue{Data: first})
	flush()
	final, err := scram.ServerFinal(recv().(*codec.SASLResponse).Data)
	if err != nil {
		send(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'S', Value: "FATAL"}, {Code: 'C', Value: "28P01"}, {Code: 'M', Value: err.Error()}}})
		flush()
		return
	}
	send(&codec.AuthenticationSASLFinal{Data: final}, &codec.AuthenticationOk{},
		&codec.ParameterStatus{Name: "server_version", Value: "17.6 (Debian 17.6-1)"},
		&codec.BackendKeyData{ProcessID: 4242, SecretKey: []byte{1, 2, 3, 4}},
		&codec.ReadyForQuery{TxStatus: 'I'})
	flush()
	rows := func() {
		for n := 1; n <= 3; n++ {
			send(&codec.DataRow{Values: [][]byte{[]byte(strconv.Itoa(n))}})
		}
		send(&codec.CommandComplete{CommandTag: "SELECT 3"})
	}
	desc := &codec.RowDescription{Fields: []codec.FieldDescription{{Name: "n", DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}}
	for {
		switch m := recv().(type) {
		case *codec.Query:
			send(desc)
			rows()
			send(&codec.ReadyForQuery{TxStatus: 'I'})
			flush()
		case *codec.Parse:
			send(&codec.ParseComplete{})
		case *codec.Bind:
			send(&codec.BindComplete{})
		case *codec.Describe:
			send(desc)
		case *codec.Execute:
			rows()
		case *codec.Sync:
			send(&codec.ReadyForQuery{TxStatus: 'I'})
			flush()
		default: // Terminate, or the connection closed
			_ = m
			return
		}
	}
}

// A whole session over a net.Pipe: startup asking for protocol 3.2 (the
// server negotiates 3.0), SCRAM-SHA-256, a simple query, Terminate.
func ExampleConn() {
	client, server := net.Pipe()
	go fakeServer(server)
	defer client.Close()

	c := session.NewConn(client)
	if err := c.Startup(session.Config{User: "app", Password: "secret", Database: "shop"}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("authenticated by", c.AuthMethod, "speaking protocol", c.Protocol, "to PostgreSQL", c.P.Major)
	err := c.Exec("select n from generate_series(1, 3) n", func(m codec.Message) error {
		switch m := m.(type) {
		case *codec.RowDescription:
			fmt.Println("column", m.Fields[0].Name)
		case *codec.DataRow:
			fmt.Println("row", string(m.Values[0]))
		case *codec.CommandComplete:
			fmt.Println(m.CommandTag)
		}
		return nil
	})
	fmt.Println(err, c.Terminate())
	// Output:
	// authenticated by SCRAM-SHA-256 speaking protocol 3.0 to PostgreSQL 17
	// column n
	// row 1
	// row 2
	// row 3
	// SELECT 3
	// <nil> <nil>
}

// An extended query with a parameter: Parse, Bind, Describe, Execute and
// Sync in one write, the answers up to ReadyForQuery.
func ExampleConn_extended() {
	client, server := net.Pipe()
	go fakeServer(server)
	defer client.Close()
	c := session.NewConn(client)
	if err := c.Startup(session.Config{User: "app", Password: "secret", Protocol: session.Protocol30}); err != nil {
		fmt.Println(err)
		return
	}
	err := c.Send(
		&codec.Parse{Query: "select n from generate_series(1, $1) n", ParameterOIDs: []uint32{23}},
		&codec.Bind{Parameters: [][]byte{[]byte("3")}},
		&codec.Describe{ObjectType: 'P'},
		&codec.Execute{},
		&codec.Sync{},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	var sum int
	_, err = c.ReadUntilReady(func(m codec.Message) error {
		if row, ok := m.(*codec.DataRow); ok {
			n, err := strconv.Atoi(string(row.Values[0]))
			sum += n
			return err
		}
		return nil
	})
	fmt.Println("sum", sum, err)
	// Output:
	// sum 6 <nil>
}

// SCRAM-SHA-256 as two exchanges over SASL messages: the client's (what
// Auth does inside Conn.Startup) and the server's (for a pooler or a test
// server that authenticates clients itself).
func ExampleSCRAM() {
	client, _ := session.NewSCRAM("secret")
	server, _ := session.NewSCRAMServer("secret", []byte("pgspec-salt-0123"), 4096)

	initial := &codec.SASLInitialResponse{AuthMechanism: session.SCRAMSHA256, Data: client.ClientFirst()}
	serverFirst, _ := server.ServerFirst(initial.Data)
	cont := &codec.AuthenticationSASLContinue{Data: serverFirst}
	clientFinal, _ := client.ClientFinal(cont.Data)
	resp := &codec.SASLResponse{Data: clientFinal}
	serverFinal, err := server.ServerFinal(resp.Data)
	fmt.Println("server accepts the client:", err == nil)
	fmt.Println("client accepts the server:", client.VerifyServerFinal(serverFinal) == nil)
	// Output:
	// server accepts the client: true
	// client accepts the server: true
}

// Replying to a keepalive that asks for a reply: the standby status update
// is encoded straight into a CopyData, ready to write to the connection.
func ExampleAppendCopyData() {
	var keepalive codec.PrimaryKeepalive
	_ = keepalive.Decode([]byte{'k', 0, 0, 0, 0x16, 0xB3, 0x74, 0xD8, 0x78, 0, 0, 0, 0, 0, 0, 0, 0, 1}, codec.Params{})
	if keepalive.ReplyRequested == 1 {
		flushed := session.LSN(keepalive.ServerWALEnd) // all applied, say
		now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		out, err := session.AppendCopyData(nil, session.StandbyStatus(flushed, flushed, flushed, now, false), codec.Params{})
		fmt.Println(err, string(out[0]), len(out), "bytes, reporting", flushed)
	}
	// Output:
	// <nil> d 39 bytes, reporting 16/B374D878
}

// A failed login: the server's ErrorResponse comes back as a *session.Error,
// found with errors.As however the error was wrapped on the way.
func ExampleError() {
	client, server := net.Pipe()
	go fakeServer(server)
	defer client.Close()

	c := session.NewConn(client)
	err := c.Startup(session.Config{User: "app", Password: "wrong", RequireAuth: []string{session.SCRAMSHA256}})
	err = fmt.Errorf("connect: %w", err)
	var pgErr *session.Error
	if errors.As(err, &pgErr) {
		fmt.Println(pgErr.SQLState(), pgErr.Severity())
		fmt.Println(err)
	}
	// Output:
	// 28P01 FATAL
	// connect: FATAL: session: SCRAM proof does not match: wrong password (SQLSTATE 28P01)
}
