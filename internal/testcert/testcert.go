// Package testcert makes a throwaway certificate authority and a server
// certificate signed by it, for tests that speak TLS to 127.0.0.1 and
// localhost, or to the names a test gives.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Pair is a server certificate and the CA that signed it.
type Pair struct {
	// Cert is the server's certificate (ECDSA P-256, signed with SHA-256)
	// and key, for the names New was given.
	Cert tls.Certificate
	// Roots holds the CA, for a client's tls.Config.RootCAs.
	Roots *x509.CertPool
	// CertFile, KeyFile and CAFile are the same in PEM files, for programs
	// (psql's sslrootcert, a server's -tls-cert).
	CertFile, KeyFile, CAFile string
}

// New makes a pair in t.TempDir() for hosts (DNS names or IP addresses;
// none: localhost and 127.0.0.1).
func New(t testing.TB, hosts ...string) *Pair {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pgspec test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) == 0 {
		hosts = []string{"localhost", "127.0.0.1"}
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := &Pair{Roots: x509.NewCertPool(), CertFile: filepath.Join(dir, "server.crt"), KeyFile: filepath.Join(dir, "server.key"), CAFile: filepath.Join(dir, "ca.crt")}
	p.Roots.AddCert(ca)
	for file, block := range map[string]*pem.Block{p.CertFile: {Type: "CERTIFICATE", Bytes: der}, p.KeyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}, p.CAFile: {Type: "CERTIFICATE", Bytes: caDER}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if p.Cert, err = tls.LoadX509KeyPair(p.CertFile, p.KeyFile); err != nil {
		t.Fatal(err)
	}
	return p
}

// Client is a client configuration that trusts the pair's CA and expects
// its first name.
func (p *Pair) Client() *tls.Config {
	return &tls.Config{RootCAs: p.Roots, ServerName: p.Cert.Leaf.Subject.CommonName}
}

// Server is a server configuration presenting the certificate.
func (p *Pair) Server() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.Cert}}
}
