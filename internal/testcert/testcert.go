// Package testcert makes throwaway TLS certificates for tests: a CA and a
// server certificate it signed, for the names and addresses a test serves
// on, kept in memory and, for commands and libpq, in files.
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

// Set is a CA and one server certificate it signed.
type Set struct {
	// CAFile, CertFile and KeyFile are PEM files in the test's temporary directory.
	CAFile, CertFile, KeyFile string
	// Pool holds the CA, for a client's RootCAs.
	Pool *x509.CertPool
	// Cert is the server certificate with its key.
	Cert tls.Certificate
}

// New makes a CA and a server certificate for hosts (DNS names or IP
// addresses), valid for a day.
func New(t testing.TB, hosts ...string) *Set {
	t.Helper()
	caKey, caDER := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pgspec test CA"},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil, nil)
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	key, der := issue(t, leaf, ca, caKey)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &Set{CAFile: filepath.Join(dir, "ca.crt"), CertFile: filepath.Join(dir, "server.crt"), KeyFile: filepath.Join(dir, "server.key"), Pool: x509.NewCertPool()}
	s.Pool.AddCert(ca)
	write(t, s.CAFile, "CERTIFICATE", caDER)
	write(t, s.CertFile, "CERTIFICATE", der)
	write(t, s.KeyFile, "EC PRIVATE KEY", keyDER)
	if s.Cert, err = tls.LoadX509KeyPair(s.CertFile, s.KeyFile); err != nil {
		t.Fatal(err)
	}
	return s
}

// ServerConfig is a TLS server configuration presenting the certificate.
func (s *Set) ServerConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.Cert}, MinVersion: tls.VersionTLS12}
}

// ClientConfig verifies the server certificate against the CA, as name.
func (s *Set) ClientConfig(name string) *tls.Config {
	return &tls.Config{RootCAs: s.Pool, ServerName: name, MinVersion: tls.VersionTLS12}
}

// issue signs tmpl with parent's key (itself when parent is nil) and
// returns the new key and the certificate.
func issue(t testing.TB, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return key, der
}

func write(t testing.TB, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
