package session

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/codec"
)

// Auth answers a server's authentication requests for one session:
// cleartext password, MD5 and SCRAM-SHA-256 (without channel binding).
// Feed it each message the server sends until it reports done.
type Auth struct {
	User, Password string
	// Method is how the server authenticates: "trust" (nothing asked),
	// "password", "md5" or "SCRAM-SHA-256"; empty until known.
	Method string
	// Require, when not empty, lists the methods the client accepts, as
	// libpq's require_auth does: a server (or a man in the middle) that asks
	// for another — say cleartext, to read the password — or for none
	// ("trust") gets no answer but an error.
	Require []string

	scram *SCRAM
	// verified is set once the SCRAM server signature checked out.
	verified bool
}

// Reply takes a message the server sent during authentication and returns
// the message to answer with, nil when none is due. done is true at
// AuthenticationOk. An ErrorResponse is returned as *Error; a SCRAM server
// that cannot prove it knows the password is an error too, and so is one
// that skips the proof (AuthenticationOk before AuthenticationSASLFinal): a
// man in the middle could otherwise log the client in anywhere.
func (a *Auth) Reply(m codec.Message) (reply codec.Message, done bool, err error) {
	switch m := m.(type) {
	case *codec.AuthenticationOk:
		if a.scram != nil && !a.verified {
			return nil, false, errUnexpected(m, "before the SCRAM server signature")
		}
		if a.Method == "" {
			if err := a.use("trust"); err != nil {
				return nil, false, err
			}
		}
		return nil, true, nil
	case *codec.AuthenticationCleartextPassword:
		if err := a.use("password"); err != nil {
			return nil, false, err
		}
		return &codec.PasswordMessage{Password: a.Password}, false, nil
	case *codec.AuthenticationMD5Password:
		if err := a.use("md5"); err != nil {
			return nil, false, err
		}
		return &codec.PasswordMessage{Password: MD5Password(a.User, a.Password, m.Salt)}, false, nil
	case *codec.AuthenticationSASL:
		if a.scram != nil {
			return nil, false, errUnexpected(m, "a second time")
		}
		if !slices.Contains(m.AuthMechanisms, SCRAMSHA256) {
			return nil, false, fmt.Errorf("session: the server offers SASL mechanisms %q, not %s", m.AuthMechanisms, SCRAMSHA256)
		}
		if err := a.use(SCRAMSHA256); err != nil {
			return nil, false, err
		}
		if a.scram, err = NewSCRAM(a.Password); err != nil {
			return nil, false, err
		}
		return &codec.SASLInitialResponse{AuthMechanism: SCRAMSHA256, Data: a.scram.ClientFirst()}, false, nil
	case *codec.AuthenticationSASLContinue:
		if a.scram == nil {
			return nil, false, errUnexpected(m, "before AuthenticationSASL")
		}
		final, err := a.scram.ClientFinal(m.Data)
		if err != nil {
			return nil, false, err
		}
		return &codec.SASLResponse{Data: final}, false, nil
	case *codec.AuthenticationSASLFinal:
		if a.scram == nil {
			return nil, false, errUnexpected(m, "before AuthenticationSASL")
		}
		err := a.scram.VerifyServerFinal(m.Data)
		a.verified = err == nil
		return nil, false, err
	case *codec.ErrorResponse:
		return nil, false, NewError(m.Fields)
	case *codec.NegotiateProtocolVersion, *codec.NoticeResponse:
		// Conn.Receive has taken note of the one; the other may come at
		// any time, the manual says, and Conn.OnMessage sees it.
		return nil, false, nil
	}
	return nil, false, errUnexpected(m, "during authentication")
}

// use records the method the server asked for, unless Require rules it out.
func (a *Auth) use(method string) error {
	if len(a.Require) > 0 && !slices.Contains(a.Require, method) {
		return fmt.Errorf("session: the server asks for authentication by %q, not one of %q", method, a.Require)
	}
	a.Method = method
	return nil
}

// MD5Password is the answer to AuthenticationMD5Password:
// "md5" + hex(md5(hex(md5(password + user)) + salt)).
func MD5Password(user, password string, salt [4]byte) string {
	inner := md5.Sum([]byte(password + user))
	outer := md5.Sum(append([]byte(hex.EncodeToString(inner[:])), salt[:]...))
	return "md5" + hex.EncodeToString(outer[:])
}

// SCRAMSHA256 is the SASL mechanism SCRAM speaks.
const SCRAMSHA256 = "SCRAM-SHA-256"

// SCRAM is the client side of one SCRAM-SHA-256 exchange (RFC 5802, RFC
// 7677), with channel binding when ChannelBinding is set: ClientFirst goes in SASLInitialResponse,
// ClientFinal answers AuthenticationSASLContinue, VerifyServerFinal checks
// AuthenticationSASLFinal.
//
// The password is prepared as libpq's pg_saslprep does for ASCII: used as
// is. A non-ASCII password is used as its UTF-8 bytes, unchanged too: that
// is what SASLprep (RFC 4013) yields for a password already in NFKC form
// without mapped or prohibited characters, which covers most passwords (and
// libpq itself falls back to the raw bytes when SASLprep fails). A password
// that SASLprep would change — a non-ASCII space, a soft hyphen, a
// full-width letter, a ligature — does not log in: normalising it needs
// Unicode tables this package, standard library only, does not carry, so
// prepare such a password before handing it over.
type SCRAM struct {
	// ChannelBinding, when set before ClientFirst, is the server's
	// tls-server-end-point data (TLSServerEndPoint): the exchange is then
	// SCRAM-SHA-256-PLUS, bound to that TLS connection.
	ChannelBinding []byte

	password, clientNonce string
	// gs2 is the GS2 header sent: "n,," or "p=tls-server-end-point,,".
	gs2 string
	// clientFirstBare and authMessage are kept between steps for the proofs.
	clientFirstBare, authMessage string
	serverKey                    []byte
}

// NewSCRAM starts an exchange with a random client nonce.
func NewSCRAM(password string) (*SCRAM, error) {
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return &SCRAM{password: password, clientNonce: base64.RawStdEncoding.EncodeToString(nonce)}, nil
}

// ClientFirst is the client-first message. The user name is empty:
// PostgreSQL takes it from the startup message.
func (s *SCRAM) ClientFirst() []byte {
	if s.gs2 == "" {
		s.gs2 = "n,,"
		if s.ChannelBinding != nil {
			s.gs2 = "p=tls-server-end-point,,"
		}
	}
	s.clientFirstBare = "n=,r=" + s.clientNonce
	return []byte(s.gs2 + s.clientFirstBare)
}

// ClientFinal answers the server-first message with the client's proof.
func (s *SCRAM) ClientFinal(serverFirst []byte) ([]byte, error) {
	attrs, err := scramAttrs(serverFirst)
	if err != nil {
		return nil, err
	}
	if _, ok := attrs["m"]; ok {
		return nil, errors.New("session: SCRAM server-first asks for a mandatory extension (m=)")
	}
	nonce, salt64, iter := attrs["r"], attrs["s"], attrs["i"]
	if !strings.HasPrefix(nonce, s.clientNonce) || len(nonce) == len(s.clientNonce) {
		return nil, fmt.Errorf("session: SCRAM server nonce %q does not extend the client's", nonce)
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil || len(salt) == 0 {
		return nil, fmt.Errorf("session: SCRAM salt %q is not base64 (%v)", salt64, err)
	}
	iterations, err := strconv.Atoi(iter)
	if err != nil || iterations < 1 || iterations > maxIterations {
		return nil, fmt.Errorf("session: SCRAM iteration count %q (want 1 to %d)", iter, maxIterations)
	}
	salted, err := pbkdf2.Key(sha256.New, s.password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	s.serverKey = hmacSHA256(salted, "Server Key")
	cbind := append([]byte(s.gs2), s.ChannelBinding...) // "n,," alone is biws
	withoutProof := "c=" + base64.StdEncoding.EncodeToString(cbind) + ",r=" + nonce
	s.authMessage = s.clientFirstBare + "," + string(serverFirst) + "," + withoutProof
	proof := hmacSHA256(storedKey[:], s.authMessage)
	for i := range proof {
		proof[i] ^= clientKey[i]
	}
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

// maxIterations bounds the work a server can ask of the client: PostgreSQL
// uses 4096 (scram_iterations); libpq accepts any, but a hostile server
// should not make a client hash for minutes.
const maxIterations = 1 << 20

// VerifyServerFinal checks the server's signature: the server knew the
// password too.
func (s *SCRAM) VerifyServerFinal(serverFinal []byte) error {
	attrs, err := scramAttrs(serverFinal)
	if err != nil {
		return err
	}
	if e, ok := attrs["e"]; ok {
		return fmt.Errorf("session: SCRAM server error %q", e)
	}
	if s.serverKey == nil {
		return errors.New("session: SCRAM server-final before server-first")
	}
	got, err := base64.StdEncoding.DecodeString(attrs["v"])
	if err != nil {
		return fmt.Errorf("session: SCRAM server signature: %w", err)
	}
	if !hmac.Equal(got, hmacSHA256(s.serverKey, s.authMessage)) {
		return errors.New("session: SCRAM server signature does not match: the server does not know the password")
	}
	return nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// scramAttrs splits "k=v,k=v" into a map; values may contain '='. The
// message is not quoted in errors: it may carry proofs.
func scramAttrs(msg []byte) (map[string]string, error) {
	attrs := map[string]string{}
	for i, part := range bytes.Split(msg, []byte(",")) {
		k, v, ok := bytes.Cut(part, []byte("="))
		if !ok || len(k) != 1 {
			return nil, fmt.Errorf("session: SCRAM message attribute %d is not k=value", i+1)
		}
		attrs[string(k)] = string(v)
	}
	return attrs, nil
}
