package pgclient

import "testing"

// TestSCRAMRFC7677 replays the SCRAM-SHA-256 example exchange of RFC 7677
// section 3 (user "user", password "pencil"). The RFC's client-first names
// the user while PostgreSQL clients send "n=", so the test puts the RFC's
// client-first-bare back before computing the proof.
func TestSCRAMRFC7677(t *testing.T) {
	s := &scram{password: "pencil", clientNonce: "rOprNGfwEbeRWgbNEkqO"}
	s.clientFirst()
	s.clientFirstBare = "n=user,r=rOprNGfwEbeRWgbNEkqO" // the RFC names the user
	serverFirst := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
	final, err := s.clientFinal([]byte(serverFirst))
	if err != nil {
		t.Fatal(err)
	}
	if want := "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="; string(final) != want {
		t.Errorf("client final\n got %s\nwant %s", final, want)
	}
	if err := s.verifyServerFinal([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err != nil {
		t.Errorf("server final: %v", err)
	}
	if err := s.verifyServerFinal([]byte("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err == nil {
		t.Error("a wrong server signature was accepted")
	}
}

func TestSCRAMRejectsBadServerFirst(t *testing.T) {
	for _, serverFirst := range []string{
		"r=someoneElsesNonce,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", // nonce not ours
		"r=abcXYZ,s=!!!,i=4096",                                 // salt not base64
		"r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",               // no iterations
		"r=abcXYZ,garbage",                                      // not k=v
	} {
		s := &scram{password: "pencil", clientNonce: "abc"}
		s.clientFirst()
		if _, err := s.clientFinal([]byte(serverFirst)); err == nil {
			t.Errorf("%q accepted", serverFirst)
		}
	}
}

// TestMD5Password checks against a hash computed independently with Python:
// md5(md5(b"md5-secretmd5_user").hexdigest().encode() + bytes([1,2,3,4])).hexdigest().
func TestMD5Password(t *testing.T) {
	got := md5Password("md5_user", "md5-secret", [4]byte{0x01, 0x02, 0x03, 0x04})
	if want := "md5de5f430725caf68ade3b51e052e13b54"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
