package session_test

import (
	"errors"
	"net"
	"testing"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// TestStartupWrongPassword: the server refuses the SCRAM proof and says so
// with an ErrorResponse, which Startup returns as *session.Error.
func TestStartupWrongPassword(t *testing.T) {
	client, server := net.Pipe()
	go fakeServer(server)
	defer client.Close()
	err := session.NewConn(client).Startup(session.Config{User: "app", Password: "wrong"})
	var e *session.Error
	if !errors.As(err, &e) || e.SQLState() != "28P01" {
		t.Errorf("got %v, want SQLSTATE 28P01", err)
	}
}

// TestStartupState: what the server says during startup lands in the
// Conn: the negotiated protocol and its layout, the major, the cancel key,
// the parameters; OnMessage sees every message.
func TestStartupState(t *testing.T) {
	client, server := net.Pipe()
	go fakeServer(server)
	defer client.Close()
	c := session.NewConn(client)
	seen := map[string]int{}
	c.OnMessage = func(m codec.Message) { seen[m.Slug()]++ }
	if err := c.Startup(session.Config{User: "app", Password: "secret", ProtocolOptions: map[string]string{"_pq_.x": "1"}}); err != nil {
		t.Fatal(err)
	}
	if c.Protocol != session.Protocol30 || c.P.ProtocolMinor != 0 || c.P.Major != 17 || c.ProcessID != 4242 ||
		string(c.SecretKey) != "\x01\x02\x03\x04" || c.Server["server_version"] != "17.6 (Debian 17.6-1)" || c.AuthMethod != session.SCRAMSHA256 {
		t.Errorf("%+v", c)
	}
	if seen["negotiate-protocol-version"] != 1 || seen["ready-for-query"] != 1 || seen["parameter-status"] != 1 {
		t.Errorf("OnMessage saw %v", seen)
	}
	if err := c.StartReplication(&codec.StartReplicationPhysical{}); err == nil {
		t.Error("a query answer taken for CopyBothResponse")
	}
}
