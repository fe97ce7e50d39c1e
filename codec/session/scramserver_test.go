package session

import (
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"testing"
)

// scramExchange runs client c against server s to the end and returns the
// first error, with the side that raised it.
func scramExchange(c *SCRAM, s *SCRAMServer) (serverErr, clientErr error) {
	first, err := s.ServerFirst(c.ClientFirst())
	if err != nil {
		return err, nil
	}
	final, err := c.ClientFinal(first)
	if err != nil {
		return nil, err
	}
	sf, err := s.ServerFinal(final)
	if err != nil {
		return err, nil
	}
	return nil, c.VerifyServerFinal(sf)
}

// TestSCRAMServerGS2 walks RFC 5802's GS2 flags against what the server
// offered: "y" logs in where no binding was offered (its client-final
// carries c=eSws, base64 "y,,") and is refused as a downgrade over TLS;
// "n" is refused under SCRAM-SHA-256-PLUS, "p" under SCRAM-SHA-256; PLUS
// logs in with the connection's binding and fails with another's.
func TestSCRAMServerGS2(t *testing.T) {
	binding := sha256.Sum256([]byte("certificate"))
	other := sha256.Sum256([]byte("another certificate"))
	for _, c := range []struct {
		name              string
		gs2               string
		clientBinding     []byte
		mechanism         string
		serverBinding     []byte
		wantState         string // "" logs in
		wantWrongPassword bool
	}{
		{"n without TLS", "n,,", nil, SCRAMSHA256, nil, "", false},
		{"y without TLS", "y,,", nil, SCRAMSHA256, nil, "", false},
		{"n over TLS", "n,,", nil, SCRAMSHA256, binding[:], "", false},
		{"y over TLS is a downgrade", "y,,", nil, SCRAMSHA256, binding[:], "28000", false},
		{"PLUS", "", binding[:], SCRAMSHA256Plus, binding[:], "", false},
		{"PLUS bound to another certificate", "", other[:], SCRAMSHA256Plus, binding[:], "28000", false},
		{"PLUS without TLS", "", binding[:], SCRAMSHA256Plus, nil, "08P01", false},
		{"n under PLUS", "n,,", nil, SCRAMSHA256Plus, binding[:], "08P01", false},
		{"p under SCRAM-SHA-256", "", binding[:], SCRAMSHA256, binding[:], "08P01", false},
		{"another binding type", "p=tls-unique,,", binding[:], SCRAMSHA256Plus, binding[:], "08P01", false},
		{"authzid", "n,a=admin,", nil, SCRAMSHA256, nil, "0A000", false},
	} {
		client, _ := NewSCRAM("secret")
		client.ChannelBinding, client.gs2 = c.clientBinding, c.gs2
		server, _ := NewSCRAMServer("secret", []byte("0123456789abcdef"), 4096)
		server.Mechanism, server.Binding = c.mechanism, c.serverBinding
		serr, cerr := scramExchange(client, server)
		if cerr != nil {
			t.Errorf("%s: client: %v", c.name, cerr)
			continue
		}
		var pe *Error
		switch {
		case c.wantState == "" && serr != nil:
			t.Errorf("%s: refused: %v", c.name, serr)
		case c.wantState != "" && (!errors.As(serr, &pe) || pe.SQLState() != c.wantState || pe.Severity() != "FATAL"):
			t.Errorf("%s: got %v, want a FATAL %s", c.name, serr, c.wantState)
		}
	}
	// The same exchanges with a wrong password fail with ErrWrongPassword
	// only after the binding checked out.
	client, _ := NewSCRAM("wrong")
	client.ChannelBinding = binding[:]
	server, _ := NewSCRAMServer("secret", []byte("0123456789abcdef"), 4096)
	server.Mechanism, server.Binding = SCRAMSHA256Plus, binding[:]
	if serr, _ := scramExchange(client, server); !errors.Is(serr, ErrWrongPassword) {
		t.Errorf("PLUS with a wrong password: %v", serr)
	}
}

// TestTLSServerEndPoint: RFC 5929's hash follows the signature, with
// SHA-256 standing in for SHA-1, and Ed25519 has none.
func TestTLSServerEndPoint(t *testing.T) {
	raw := []byte("DER bytes")
	for alg, size := range map[x509.SignatureAlgorithm]int{x509.SHA1WithRSA: 32, x509.ECDSAWithSHA256: 32, x509.SHA384WithRSA: 48, x509.ECDSAWithSHA512: 64} {
		got, err := TLSServerEndPoint(&x509.Certificate{Raw: raw, SignatureAlgorithm: alg})
		if err != nil || len(got) != size {
			t.Errorf("%v: %d bytes, %v; want %d", alg, len(got), err, size)
		}
	}
	want := sha256.Sum256(raw)
	if got, _ := TLSServerEndPoint(&x509.Certificate{Raw: raw, SignatureAlgorithm: x509.SHA256WithRSA}); string(got) != string(want[:]) {
		t.Errorf("SHA256WithRSA: %x, want %x", got, want)
	}
	if _, err := TLSServerEndPoint(&x509.Certificate{Raw: raw, SignatureAlgorithm: x509.PureEd25519}); err == nil {
		t.Error("Ed25519 has a binding")
	}
}
