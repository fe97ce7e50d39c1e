package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
)

// tlsFlags are trace's TLS flags: the certificate it shows its clients and
// how it connects to the upstream.
type tlsFlags struct {
	cert, key, ca, serverName *string
	upstream                  upstreamMode
}

func newTLSFlags(fs *flag.FlagSet) *tlsFlags {
	t := &tlsFlags{
		cert:       fs.String("tls-cert", "", "PEM certificate (chain) to terminate clients' TLS with, after SSLRequest or direct (ALPN \"postgresql\"); with --tls-key"),
		key:        fs.String("tls-key", "", "PEM private key of --tls-cert"),
		ca:         fs.String("upstream-ca", "", "PEM CA certificates to verify the upstream with (default: the system's)"),
		serverName: fs.String("upstream-server-name", "", "name the upstream's certificate must hold (default: the host of --upstream)"),
	}
	fs.Var(&t.upstream, "upstream-tls", "connect to the upstream over TLS: verify-full (alone: --upstream-tls), verify-ca or require (no verification), as libpq's sslmode")
	return t
}

// upstreamMode is --upstream-tls: "" (plain), verify-full, verify-ca or require.
type upstreamMode string

func (m *upstreamMode) String() string   { return string(*m) }
func (m *upstreamMode) IsBoolFlag() bool { return true }

func (m *upstreamMode) Set(v string) error {
	switch v {
	case "true", "verify-full":
		*m = "verify-full"
	case "verify-ca", "require":
		*m = upstreamMode(v)
	case "false":
		*m = ""
	default:
		return errors.New("want verify-full, verify-ca or require")
	}
	return nil
}

// configs builds the TLS configurations the flags ask for (nil: none).
func (t *tlsFlags) configs(upstream string) (client, server *tls.Config, err error) {
	switch {
	case (*t.cert == "") != (*t.key == ""):
		return nil, nil, errors.New("--tls-cert and --tls-key go together")
	case t.upstream == "" && (*t.ca != "" || *t.serverName != ""):
		return nil, nil, errors.New("--upstream-ca and --upstream-server-name need --upstream-tls")
	}
	if *t.cert != "" {
		cert, err := tls.LoadX509KeyPair(*t.cert, *t.key)
		if err != nil {
			return nil, nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		client = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if t.upstream == "" {
		return client, nil, nil
	}
	server = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: *t.serverName}
	if server.ServerName == "" {
		if server.ServerName, _, err = net.SplitHostPort(upstream); err != nil {
			return nil, nil, fmt.Errorf("--upstream %q: %w", upstream, err)
		}
	}
	if *t.ca != "" {
		pem, err := os.ReadFile(*t.ca)
		if err != nil {
			return nil, nil, fmt.Errorf("--upstream-ca: %w", err)
		}
		server.RootCAs = x509.NewCertPool()
		if !server.RootCAs.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("--upstream-ca %s: no PEM certificate in it", *t.ca)
		}
	}
	switch t.upstream {
	case "require":
		server.InsecureSkipVerify = true
	case "verify-ca": // the chain, not the name
		server.InsecureSkipVerify = true
		server.VerifyConnection = func(cs tls.ConnectionState) error {
			opts := x509.VerifyOptions{Roots: server.RootCAs, Intermediates: x509.NewCertPool()}
			for _, c := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	return client, server, nil
}
