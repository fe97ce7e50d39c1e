package session

import (
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestSCRAMRFC7677 replays the SCRAM-SHA-256 example exchange of RFC 7677
// section 3 (user "user", password "pencil"). The RFC's client-first names
// the user while PostgreSQL clients send "n=", so the test puts the RFC's
// client-first-bare back before computing the proof.
func TestSCRAMRFC7677(t *testing.T) {
	s := &SCRAM{password: "pencil", clientNonce: "rOprNGfwEbeRWgbNEkqO"}
	if got := string(s.ClientFirst()); got != "n,,n=,r=rOprNGfwEbeRWgbNEkqO" {
		t.Errorf("client first %q", got)
	}
	s.clientFirstBare = "n=user,r=rOprNGfwEbeRWgbNEkqO" // the RFC names the user
	serverFirst := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
	final, err := s.ClientFinal([]byte(serverFirst))
	if err != nil {
		t.Fatal(err)
	}
	if want := "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="; string(final) != want {
		t.Errorf("client final\n got %s\nwant %s", final, want)
	}
	if err := s.VerifyServerFinal([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err != nil {
		t.Errorf("server final: %v", err)
	}
	if err := s.VerifyServerFinal([]byte("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err == nil {
		t.Error("a wrong server signature was accepted")
	}
	if err := s.VerifyServerFinal([]byte("e=invalid-proof")); err == nil || !strings.Contains(err.Error(), "invalid-proof") {
		t.Errorf("server error: %v", err)
	}
}

func TestSCRAMRejectsBadServerFirst(t *testing.T) {
	for _, serverFirst := range []string{
		"r=someoneElsesNonce,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", // nonce not ours
		"r=abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",               // nonce not extended
		"r=abcXYZ,s=!!!,i=4096",                                 // salt not base64
		"r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",               // no iterations
		"r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=100000000",       // hours of hashing
		"r=abcXYZ,garbage",                                      // not k=v
		"r=abcXYZ,s=,i=4096",                                    // no salt
		"m=ext,r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",      // mandatory extension
	} {
		s := &SCRAM{password: "pencil", clientNonce: "abc"}
		s.ClientFirst()
		if _, err := s.ClientFinal([]byte(serverFirst)); err == nil {
			t.Errorf("%q accepted", serverFirst)
		}
	}
	s := &SCRAM{password: "pencil", clientNonce: "abc"}
	if err := s.VerifyServerFinal([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err == nil {
		t.Error("server-final before server-first accepted")
	}
}

// TestMD5Password checks against a hash computed independently with Python:
// md5(md5(b"md5-secretmd5_user").hexdigest().encode() + bytes([1,2,3,4])).hexdigest().
func TestMD5Password(t *testing.T) {
	got := MD5Password("md5_user", "md5-secret", [4]byte{0x01, 0x02, 0x03, 0x04})
	if want := "md5de5f430725caf68ade3b51e052e13b54"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestAuthReplies: each authentication request gets its answer; the
// exchange ends at AuthenticationOk, an ErrorResponse is an *Error, and
// SCRAM messages out of order are refused.
func TestAuthReplies(t *testing.T) {
	a := Auth{User: "md5_user", Password: "md5-secret"}
	reply, done, err := a.Reply(&codec.AuthenticationMD5Password{Salt: [4]byte{1, 2, 3, 4}})
	if pm, ok := reply.(*codec.PasswordMessage); !ok || pm.Password != "md5de5f430725caf68ade3b51e052e13b54" || done || err != nil || a.Method != "md5" {
		t.Errorf("md5: %#v, %v, %v, %q", reply, done, err, a.Method)
	}
	if reply, done, err := a.Reply(&codec.AuthenticationOk{}); reply != nil || !done || err != nil {
		t.Errorf("ok: %v, %v, %v", reply, done, err)
	}
	a = Auth{Password: "pw"}
	if reply, _, _ := a.Reply(&codec.AuthenticationCleartextPassword{}); reply.(*codec.PasswordMessage).Password != "pw" || a.Method != "password" {
		t.Errorf("cleartext: %#v", reply)
	}
	a = Auth{Password: "pw"}
	reply, _, err = a.Reply(&codec.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"}})
	if ir, ok := reply.(*codec.SASLInitialResponse); !ok || err != nil || ir.AuthMechanism != SCRAMSHA256 || !strings.HasPrefix(string(ir.Data), "n,,n=,r=") {
		t.Errorf("SASL: %#v, %v", reply, err)
	}
	if _, _, err := (&Auth{}).Reply(&codec.AuthenticationSASL{AuthMechanisms: []string{"OAUTHBEARER"}}); err == nil {
		t.Error("a SASL mechanism other than SCRAM-SHA-256 accepted")
	}
	if _, _, err := (&Auth{}).Reply(&codec.AuthenticationSASLContinue{Data: []byte("r=x")}); err == nil {
		t.Error("SASLContinue before SASL accepted")
	}
	_, _, err = (&Auth{}).Reply(&codec.ErrorResponse{Fields: []codec.ErrorField{{Code: 'S', Value: "FATAL"}, {Code: 'C', Value: "28P01"}, {Code: 'M', Value: "password authentication failed"}}})
	if e, ok := err.(*Error); !ok || e.SQLState() != "28P01" {
		t.Errorf("error: %v", err)
	}
	if reply, done, err := (&Auth{}).Reply(&codec.NoticeResponse{Fields: []codec.ErrorField{{Code: 'M', Value: "note"}}}); reply != nil || done || err != nil {
		t.Errorf("a NoticeResponse during authentication: %v, %v, %v", reply, done, err)
	}
	if _, _, err := (&Auth{}).Reply(&codec.DataRow{}); err == nil {
		t.Error("a DataRow during authentication accepted")
	}
}

// TestSCRAMServerRFC7677: the server side computes RFC 7677's
// server-first and server-final from its client messages.
func TestSCRAMServerRFC7677(t *testing.T) {
	salt := []byte{0x5b, 0x6d, 0x99, 0x68, 0x9d, 0x12, 0x35, 0x8e, 0xec, 0xa0, 0x4b, 0x14, 0x12, 0x36, 0xfa, 0x81} // W22ZaJ0SNY7soEsUEjb6gQ==
	s, err := NewSCRAMServer("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	s.nonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	first, err := s.ServerFirst([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; err != nil || string(first) != want {
		t.Fatalf("server first %s, %v\nwant %s", first, err, want)
	}
	final, err := s.ServerFinal([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; err != nil || string(final) != want {
		t.Errorf("server final %s, %v; want %s", final, err, want)
	}
	if _, err := s.ServerFinal([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=eHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")); err == nil {
		t.Error("a wrong proof was accepted")
	}
}

// TestSCRAMBothSides: a client and a server exchange with random nonces;
// the wrong password fails on the server, a server that does not know the
// password fails on the client.
func TestSCRAMBothSides(t *testing.T) {
	exchange := func(clientPw, serverPw string) (serverErr, clientErr error) {
		c, _ := NewSCRAM(clientPw)
		s, _ := NewSCRAMServer(serverPw, []byte("0123456789abcdef"), 4096)
		return scramExchange(c, s)
	}
	if se, ce := exchange("secret", "secret"); se != nil || ce != nil {
		t.Errorf("same password: %v, %v", se, ce)
	}
	if se, _ := exchange("wrong", "secret"); se == nil {
		t.Error("the server accepted a wrong password")
	}
	for _, bad := range []string{"", "p,,n=,r=x", "n,,garbage", "n,,n=,s=x"} {
		s, _ := NewSCRAMServer("pw", []byte("salt"), 1)
		if _, err := s.ServerFirst([]byte(bad)); err == nil {
			t.Errorf("client first %q accepted", bad)
		}
	}
}

// TestAuthNeedsServerSignature: a server (or a man in the middle) that
// answers the client's proof with AuthenticationOk, skipping
// AuthenticationSASLFinal, does not log the client in; neither does a
// second AuthenticationSASL.
func TestAuthNeedsServerSignature(t *testing.T) {
	for _, skip := range []codec.Message{&codec.AuthenticationOk{}, &codec.AuthenticationSASL{AuthMechanisms: []string{SCRAMSHA256}}} {
		a := Auth{Password: "secret"}
		server, _ := NewSCRAMServer("secret", []byte("0123456789abcdef"), 4096)
		reply, _, _ := a.Reply(&codec.AuthenticationSASL{AuthMechanisms: []string{SCRAMSHA256}})
		first, err := server.ServerFirst(reply.(*codec.SASLInitialResponse).Data)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.Reply(&codec.AuthenticationSASLContinue{Data: first}); err != nil {
			t.Fatal(err)
		}
		if _, done, err := a.Reply(skip); done || err == nil {
			t.Errorf("%s instead of AuthenticationSASLFinal: done %v, err %v", skip.Slug(), done, err)
		}
	}
}

// TestAuthRequire: with Require set, a request for another method (a
// downgrade to cleartext, or no authentication at all) is refused before
// anything is sent; the required one is answered.
func TestAuthRequire(t *testing.T) {
	for _, c := range []struct {
		m  codec.Message
		ok bool
	}{
		{&codec.AuthenticationCleartextPassword{}, false},
		{&codec.AuthenticationMD5Password{}, false},
		{&codec.AuthenticationOk{}, false},
		{&codec.AuthenticationSASL{AuthMechanisms: []string{SCRAMSHA256}}, true},
	} {
		a := Auth{Password: "secret", Require: []string{SCRAMSHA256}}
		reply, done, err := a.Reply(c.m)
		if c.ok != (err == nil) || !c.ok && (reply != nil || done || a.Method != "") {
			t.Errorf("%s with SCRAM required: %v, %v, %v (method %q)", c.m.Slug(), reply, done, err, a.Method)
		}
	}
}
