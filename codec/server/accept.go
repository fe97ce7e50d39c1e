package server

import (
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// PostgreSQL's limits before a client has authenticated (backend_startup.c,
// auth.c): the startup packet, a password or SASL message, and the time to
// get through both (authentication_timeout).
const (
	MaxStartupPacket   = 10000
	MaxAuthMessage     = 65535
	DefaultAuthTimeout = 60 * time.Second
)

// LatestProtocol is the newest protocol version the server speaks: the
// newest its major's manual documents (codec.ProtocolMinor). A function, not
// a variable, so that no package can change what every server answers.
func LatestProtocol() session.ProtocolVersion {
	return session.ProtocolVersion(3<<16 | codec.ProtocolMinor(serverMajor))
}

// Method is how a client proves who it is.
type Method int

// The authentication methods, pg_hba.conf's trust, password, md5 and
// scram-sha-256 (which offers SCRAM-SHA-256-PLUS first over TLS).
const (
	Trust Method = iota
	Cleartext
	MD5
	SCRAM
)

// Credential is how one client must authenticate: the method and the
// password it must know.
type Credential struct {
	Method   Method
	Password string
}

// Config says how a server accepts its clients.
type Config struct {
	// TLS, when set, is offered to SSLRequest and direct TLS; nil answers
	// 'N' and refuses direct TLS, as a server with ssl=off does.
	TLS *tls.Config
	// Authenticate decides how the user of a startup authenticates; a
	// *session.Error it returns is sent as it is (28000 for a user not
	// allowed), another error as 28000. Nil lets everyone in (trust).
	Authenticate func(st *Startup) (Credential, error)
	// Parameters are the ParameterStatus values sent after authentication,
	// on top of those PostgreSQL sends (server_version "18.0", UTF8,
	// DateStyle ISO, MDY, TimeZone UTC …).
	Parameters map[string]string
	// AuthTimeout bounds the startup phase; 0 means DefaultAuthTimeout.
	AuthTimeout time.Duration
	// OnCancel is handed every CancelRequest, with the process ID and key
	// the client sent; Server sets it to find the session and compare keys
	// in constant time.
	OnCancel func(processID uint32, key []byte)
	// MaxConns, when not 0, is how many sessions a Server serves at once
	// (max_connections). One more gets PostgreSQL's answers up to its
	// StartupMessage ('N' or TLS to SSLRequest, a CancelRequest handled),
	// then FATAL 53300.
	MaxConns int

	full bool // Server: this connection is one too many
}

// Startup is what a client asked for in its StartupMessage.
type Startup struct {
	User, Database string
	// Params are the parameters other than user, database and "_pq_."
	// options: application_name, client_encoding, options, replication …
	Params map[string]string
	// Protocol is the version the session speaks: the client's, at most
	// LatestProtocol.
	Protocol session.ProtocolVersion
	// UnrecognizedOptions are the "_pq_." options the client sent, which
	// NegotiateProtocolVersion listed as unknown.
	UnrecognizedOptions []string
	// TLS is the connection's TLS state, nil in plaintext; DirectTLS is
	// whether the client started TLS without SSLRequest.
	TLS       *tls.ConnectionState
	DirectTLS bool
}

// ErrCancelRequest is what Accept returns for a connection that carried a
// CancelRequest, which it handed to Config.OnCancel; the connection has
// nothing more to say.
var ErrCancelRequest = errors.New("server: the connection carried a CancelRequest")

// serverMajor is the layout the server encodes with: PostgreSQL 18, the
// first to speak 3.2.
const serverMajor = 18

// processIDs numbers the sessions of this process, for BackendKeyData.
var processIDs atomic.Uint32

// Accept takes nc through the startup phase: encryption requests,
// StartupMessage, protocol negotiation and authentication, then sends
// ParameterStatus, BackendKeyData and ReadyForQuery. A client that breaks
// the protocol gets PostgreSQL's FATAL error (or, where PostgreSQL sends
// nothing, a closed connection) and Accept returns the error; the caller
// closes nc.
func Accept(nc net.Conn, cfg *Config) (*Conn, error) {
	timeout := cfg.AuthTimeout
	if timeout == 0 {
		timeout = DefaultAuthTimeout
	}
	if err := nc.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	c := &Conn{nc: nc, P: codec.Params{Major: serverMajor}}
	c.types = pgtype.NewMap()
	// The conversation takes every packet from the first: what the client
	// may send next is the protocol's flow, and what the server answers
	// is held to it too.
	c.conv = codec.NewConversation(c.P)
	c.conv.FixMajor = true
	st, err := c.startup(cfg)
	if err != nil {
		return nil, err
	}
	c.Startup = *st
	c.P.ProtocolMinor = st.Protocol.Minor()
	if cfg.full {
		return nil, c.fatal(session.ServerError("FATAL", "53300", "sorry, too many clients already", ""))
	}
	if err := c.authenticate(cfg); err != nil {
		return nil, err
	}
	if err := c.ready(cfg); err != nil {
		return nil, err
	}
	return c, nc.SetDeadline(time.Time{})
}

// startup reads startup-phase packets until the StartupMessage, answering
// the encryption requests on the way. The conversation says which may come:
// each encryption once, the other after an 'N', none after an 'S'; through
// direct TLS each once, answered 'N', as PostgreSQL 17 on does.
func (c *Conn) startup(cfg *Config) (*Startup, error) {
	var first [1]byte
	if _, err := io.ReadFull(c.nc, first[:]); err != nil {
		return nil, err
	}
	// The byte goes back in front of the rest: to the TLS handshake it
	// begins, or to the first startup packet.
	raw := &prefixConn{Conn: c.nc, prefix: first[:]}
	direct := codec.IsDirectTLS(first[0])
	if direct {
		if _, err := c.conv.Frontend.DirectTLS(); err != nil {
			return nil, err
		}
		if err := c.startTLS(cfg, raw, true); err != nil {
			return nil, err
		}
	} else {
		c.read(raw)
	}
	for {
		pkt, err := c.fr.NextUntagged()
		if err != nil {
			// A length outside 8..MaxStartupPacket closes the connection
			// unanswered, as in PostgreSQL.
			return nil, fmt.Errorf("server: startup packet: %w", err)
		}
		step, err := c.conv.Frontend.Next(pkt)
		if err != nil {
			return nil, c.fatal(refusal(pkt, err))
		}
		switch m := step.Msg.(type) {
		case *codec.SSLRequest:
			// No SSL negotiation through TLS (direct TLS): 'N'.
			_, inTLS := c.nc.(*tls.Conn)
			answer := byte('N')
			if cfg.TLS != nil && !inTLS {
				answer = 'S'
			}
			if err := c.answer(&codec.SSLResponse{Answer: answer}); err != nil {
				return nil, err
			}
			if answer == 'S' {
				// What came with the request is the handshake's, as in
				// PostgreSQL 17 on: a client may send its ClientHello
				// without waiting, and anything else fails the handshake.
				err = c.startTLS(cfg, &prefixConn{Conn: c.nc, prefix: c.fr.Drain(nil)}, false)
			} else {
				err = c.early("SSL request")
			}
			if err != nil {
				return nil, err
			}
		case *codec.GSSEncRequest:
			if err := c.answer(&codec.GSSEncResponse{Answer: 'N'}); err != nil {
				return nil, err
			}
			if err := c.early("GSSAPI encryption request"); err != nil {
				return nil, err
			}
		case *codec.CancelRequest:
			if cfg.OnCancel != nil {
				cfg.OnCancel(m.ProcessID, m.SecretKey)
			}
			return nil, ErrCancelRequest
		case *codec.StartupMessage:
			st, err := c.negotiate(m)
			if st != nil {
				st.DirectTLS = direct
				if tc, ok := c.nc.(*tls.Conn); ok {
					cs := tc.ConnectionState()
					st.TLS = &cs
				}
			}
			return st, err
		}
	}
}

// read goes on reading the client's packets from r, in reads of what has
// arrived, as PostgreSQL's buffer does: what came with an encryption
// request is then seen (early).
func (c *Conn) read(r io.Reader) {
	c.fr = codec.NewFrameReader(r)
	c.fr.MaxSize = MaxStartupPacket
}

// early refuses bytes that arrived with an encryption request, before its
// 'N', as PostgreSQL does (CVE-2021-23214): they were not encrypted, and may
// be a man-in-the-middle's.
func (c *Conn) early(request string) error {
	if c.fr.Buffered() == 0 {
		return nil
	}
	return c.fatal(session.ServerError("FATAL", "08P01", "received unencrypted data after "+request,
		"This could be either a client-software bug or evidence of an attempted man-in-the-middle attack."))
}

// refusal is PostgreSQL's answer to a startup packet the conversation did
// not take: a protocol 3 StartupMessage that does not decode has a bad
// layout; an encryption request where none may come (a second of its kind,
// any after TLS began) and a code that is no version are unsupported.
func refusal(pkt []byte, err error) *session.Error {
	v := session.ProtocolVersion(binary.BigEndian.Uint32(pkt[4:]))
	var de *codec.DecodeError
	if v.Major() == 3 && errors.As(err, &de) {
		return session.ServerError("FATAL", "08P01", "invalid startup packet layout: expected terminator as last byte", "")
	}
	return unsupportedProtocol(v)
}

func unsupportedProtocol(v session.ProtocolVersion) *session.Error {
	return session.ServerError("FATAL", "0A000", fmt.Sprintf("unsupported frontend protocol %s: server supports 3.0 to %s", v, LatestProtocol()), "")
}

// startTLS runs the TLS handshake on raw and goes on over TLS. Direct TLS
// must negotiate ALPN "postgresql"; after SSLRequest a client that offers
// ALPN must offer that too (the handshake fails otherwise).
func (c *Conn) startTLS(cfg *Config, raw net.Conn, direct bool) error {
	if cfg.TLS == nil {
		return errors.New("server: direct TLS without a TLS configuration")
	}
	tc := cfg.TLS.Clone()
	tc.NextProtos = []string{"postgresql"}
	tc.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		cert, err := chooseCertificate(cfg.TLS, hello)
		c.cert = cert
		return cert, err
	}
	conn := tls.Server(raw, tc)
	if err := conn.Handshake(); err != nil {
		return fmt.Errorf("server: TLS handshake: %w", err)
	}
	c.nc = conn
	c.read(conn)
	c.conv.Decrypted()
	if direct && conn.ConnectionState().NegotiatedProtocol != "postgresql" {
		return c.fatal(session.ServerError("FATAL", "08P01", "received direct SSL connection request without ALPN protocol negotiation extension", ""))
	}
	return nil
}

// prefixConn replays bytes already read before the connection's own.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// negotiate checks the StartupMessage and settles the protocol version,
// sending NegotiateProtocolVersion for a newer minor or "_pq_." options.
func (c *Conn) negotiate(m *codec.StartupMessage) (*Startup, error) {
	v := session.ProtocolVersion(m.ProtocolVersion)
	if v.Major() != 3 {
		return nil, c.fatal(unsupportedProtocol(v))
	}
	st := &Startup{Params: map[string]string{}, Protocol: min(v, LatestProtocol())}
	for _, p := range m.Parameters {
		switch {
		case p.Name == "user":
			st.User = p.Value
		case p.Name == "database":
			st.Database = p.Value
		case strings.HasPrefix(p.Name, "_pq_."):
			st.UnrecognizedOptions = append(st.UnrecognizedOptions, p.Name)
		default:
			st.Params[p.Name] = p.Value
		}
	}
	if st.User == "" {
		return nil, c.fatal(session.ServerError("FATAL", "28000", "no PostgreSQL user name specified in startup packet", ""))
	}
	if st.Database == "" {
		st.Database = st.User
	}
	if v > LatestProtocol() || len(st.UnrecognizedOptions) > 0 {
		c.send(&codec.NegotiateProtocolVersion{NewestProtocolVersion: int32(st.Protocol), UnrecognizedOptions: st.UnrecognizedOptions})
	}
	return st, nil
}

// authenticate runs the exchange Config.Authenticate chose, then sends
// AuthenticationOk.
func (c *Conn) authenticate(cfg *Config) error {
	cred := Credential{Method: Trust}
	if cfg.Authenticate != nil {
		var err error
		if cred, err = cfg.Authenticate(&c.Startup); err != nil {
			var pe *session.Error
			if !errors.As(err, &pe) {
				pe = session.ServerError("FATAL", "28000", err.Error(), "")
			}
			return c.fatal(pe)
		}
	}
	c.fr.MaxSize = 1 + MaxAuthMessage // what followed the StartupMessage is read already
	failed := session.ServerError("FATAL", "28P01", fmt.Sprintf("password authentication failed for user %q", c.User), "")
	switch cred.Method {
	case Trust:
	case Cleartext:
		c.send(&codec.AuthenticationCleartextPassword{})
		m, err := readAuth[*codec.PasswordMessage](c, "password")
		if err != nil {
			return err
		}
		if subtle.ConstantTimeCompare([]byte(m.Password), []byte(cred.Password)) != 1 {
			return c.fatal(failed)
		}
	case MD5:
		var salt [4]byte
		if _, err := rand.Read(salt[:]); err != nil {
			return err
		}
		c.send(&codec.AuthenticationMD5Password{Salt: salt})
		m, err := readAuth[*codec.PasswordMessage](c, "password")
		if err != nil {
			return err
		}
		want := session.MD5Password(c.User, cred.Password, salt)
		if subtle.ConstantTimeCompare([]byte(m.Password), []byte(want)) != 1 {
			return c.fatal(failed)
		}
	case SCRAM:
		if err := c.scram(cred.Password, failed); err != nil {
			return err
		}
	default:
		return fmt.Errorf("server: unknown authentication method %d", cred.Method)
	}
	c.send(&codec.AuthenticationOk{})
	c.fr.MaxSize = 0
	return nil
}

// scram runs SCRAM-SHA-256, offering SCRAM-SHA-256-PLUS first over TLS.
func (c *Conn) scram(password string, failed *session.Error) error {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return err
	}
	s, err := session.NewSCRAMServer(password, salt, 4096)
	if err != nil {
		return err
	}
	mechanisms := []string{session.SCRAMSHA256}
	if c.cert != nil {
		if b, err := serverBinding(c.cert); err == nil {
			s.Binding = b
			mechanisms = []string{session.SCRAMSHA256Plus, session.SCRAMSHA256}
		}
	}
	c.send(&codec.AuthenticationSASL{AuthMechanisms: mechanisms})
	initial, err := readAuth[*codec.SASLInitialResponse](c, "SASL")
	if err != nil {
		return err
	}
	if !slices.Contains(mechanisms, initial.AuthMechanism) {
		return c.fatal(session.ServerError("FATAL", "08P01", "client selected an invalid SASL authentication mechanism", ""))
	}
	s.Mechanism = initial.AuthMechanism
	first, err := s.ServerFirst(initial.Data)
	if err != nil {
		return c.scramFailed(err, failed)
	}
	c.send(&codec.AuthenticationSASLContinue{Data: first})
	resp, err := readAuth[*codec.SASLResponse](c, "SASL")
	if err != nil {
		return err
	}
	final, err := s.ServerFinal(resp.Data)
	if err != nil {
		return c.scramFailed(err, failed)
	}
	c.send(&codec.AuthenticationSASLFinal{Data: final})
	return nil
}

func (c *Conn) scramFailed(err error, failed *session.Error) error {
	var pe *session.Error
	if !errors.As(err, &pe) {
		pe = failed
	}
	return c.fatal(pe)
}

// serverBinding is the tls-server-end-point data of the certificate the
// server presented.
func serverBinding(cert *tls.Certificate) ([]byte, error) {
	leaf := cert.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, err
		}
	}
	return session.TLSServerEndPoint(leaf)
}

// chooseCertificate is the certificate cfg presents to hello, as crypto/tls
// picks it, kept for channel binding.
func chooseCertificate(cfg *tls.Config, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if cfg.GetCertificate != nil {
		if cert, err := cfg.GetCertificate(hello); cert != nil || err != nil {
			return cert, err
		}
	}
	for i := range cfg.Certificates {
		if hello.SupportsCertificate(&cfg.Certificates[i]) == nil {
			return &cfg.Certificates[i], nil
		}
	}
	if len(cfg.Certificates) == 0 {
		return nil, errors.New("server: the TLS configuration has no certificate")
	}
	return &cfg.Certificates[0], nil
}

// readAuth sends what is pending and reads the client's answer, a 'p'
// message the conversation decodes as the exchange has it (a
// PasswordMessage after AuthenticationCleartextPassword …).
func readAuth[M codec.Message](c *Conn, what string) (M, error) {
	var none M
	if err := c.Flush(); err != nil {
		return none, err
	}
	frame, err := c.fr.Next()
	if err != nil {
		return none, err // an EOF or an oversized message: PostgreSQL closes silently
	}
	if frame[0] != 'p' {
		return none, c.fatal(session.ServerError("FATAL", "08P01", fmt.Sprintf("expected %s response, got message type %d", what, frame[0]), ""))
	}
	step, err := c.conv.Frontend.Next(frame)
	m, ok := step.Msg.(M)
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("a %s, not the %s response the exchange is at", step.Msg.Slug(), what)
		}
		return none, c.fatal(session.ServerError("FATAL", "08P01", "invalid "+what+" packet: "+err.Error(), ""))
	}
	return m, nil
}

// defaultParameters are the ParameterStatus values PostgreSQL 18 reports
// at startup (those marked GUC_REPORT), for a UTF-8 database in UTC.
var defaultParameters = map[string]string{
	"server_version":                "18.0",
	"server_encoding":               "UTF8",
	"client_encoding":               "UTF8",
	"DateStyle":                     "ISO, MDY",
	"IntervalStyle":                 "postgres",
	"TimeZone":                      "UTC",
	"integer_datetimes":             "on",
	"standard_conforming_strings":   "on",
	"default_transaction_read_only": "off",
	"in_hot_standby":                "off",
	"is_superuser":                  "off",
	"scram_iterations":              "4096",
}

// ready sends the session's parameters, its BackendKeyData (a random key
// of 4 bytes under 3.0, 32 under 3.2) and the first ReadyForQuery.
func (c *Conn) ready(cfg *Config) error {
	params := maps.Clone(defaultParameters)
	params["session_authorization"] = c.User
	for _, k := range []string{"application_name", "client_encoding"} {
		if v, ok := c.Params[k]; ok {
			params[k] = v
		}
	}
	maps.Copy(params, cfg.Parameters)
	for _, k := range slices.Sorted(maps.Keys(params)) {
		c.send(&codec.ParameterStatus{Name: k, Value: params[k]})
	}
	c.ProcessID = processIDs.Add(1)
	c.SecretKey = make([]byte, 4)
	if c.Protocol >= session.Protocol32 {
		c.SecretKey = make([]byte, 32)
	}
	if _, err := rand.Read(c.SecretKey); err != nil {
		return err
	}
	c.send(&codec.BackendKeyData{ProcessID: c.ProcessID, SecretKey: c.SecretKey})
	c.TxStatus = 'I'
	c.send(&codec.ReadyForQuery{TxStatus: c.TxStatus})
	return c.Flush()
}

// CheckCancel reports whether a CancelRequest's key is the session's,
// comparing in constant time.
func (c *Conn) CheckCancel(processID uint32, key []byte) bool {
	return processID == c.ProcessID && subtle.ConstantTimeCompare(key, c.SecretKey) == 1
}
