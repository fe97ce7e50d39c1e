package session

import (
	"crypto"
	_ "crypto/sha512" // SHA-384 and SHA-512 for crypto.Hash
	"crypto/x509"
	"fmt"
)

// TLSServerEndPoint is the tls-server-end-point channel binding data of a
// server certificate (RFC 5929 section 4.1), what SCRAM-SHA-256-PLUS binds
// to: the certificate hashed with its signature's hash, SHA-256 for MD5
// and SHA-1. A signature without a hash of its own (Ed25519) has no
// binding, as in PostgreSQL.
func TLSServerEndPoint(cert *x509.Certificate) ([]byte, error) {
	var h crypto.Hash
	switch cert.SignatureAlgorithm {
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.ECDSAWithSHA256, x509.DSAWithSHA256:
		h = crypto.SHA256
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = crypto.SHA384
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = crypto.SHA512
	default:
		return nil, fmt.Errorf("session: tls-server-end-point is undefined for a certificate signed with %v", cert.SignatureAlgorithm)
	}
	d := h.New()
	d.Write(cert.Raw)
	return d.Sum(nil), nil
}
