package session

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// SCRAMSHA256Plus is SCRAM with tls-server-end-point channel binding, which
// a server offers (first) only over TLS.
const SCRAMSHA256Plus = "SCRAM-SHA-256-PLUS"

// SCRAMServer is the server side of one SCRAM-SHA-256 or
// SCRAM-SHA-256-PLUS exchange, for proxies, poolers and servers that
// authenticate clients themselves: ServerFirst answers SASLInitialResponse's
// data (send it in AuthenticationSASLContinue), ServerFinal checks the
// client's proof in SASLResponse (send its result in
// AuthenticationSASLFinal).
//
// The GS2 header is checked as RFC 5802 and PostgreSQL's auth-scram.c do:
// "n" (no channel binding) only with SCRAM-SHA-256; "y" (the client could
// bind but thinks the server cannot) only where the server offered no
// binding — over TLS it means someone removed SCRAM-SHA-256-PLUS from the
// offer, and the exchange is refused; "p=tls-server-end-point" only with
// SCRAM-SHA-256-PLUS, whose client-final message must then carry Binding.
// Errors are *Error values with PostgreSQL's SQLSTATE and wording, ready to
// send as a FATAL ErrorResponse; a wrong proof is ErrWrongPassword.
type SCRAMServer struct {
	// Mechanism is the one the client chose in SASLInitialResponse:
	// SCRAMSHA256 (also when empty) or SCRAMSHA256Plus.
	Mechanism string
	// Binding is the connection's tls-server-end-point data when the server
	// runs over TLS and so offered SCRAMSHA256Plus; nil otherwise.
	Binding []byte

	salt                 []byte
	iterations           int
	storedKey, serverKey []byte
	// nonce is the server's part; the others are kept between steps.
	nonce, clientFirstBare, serverFirst string
	// cbind is what the client-final message's c= must hold: the base64 of
	// the GS2 header, followed by Binding for "p".
	cbind string
}

// NewSCRAMServer prepares an exchange for password, stored with salt and
// iterations (PostgreSQL: 16 random bytes, scram_iterations = 4096).
func NewSCRAMServer(password string, salt []byte, iterations int) (*SCRAMServer, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	stored := sha256.Sum256(hmacSHA256(salted, "Client Key"))
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return &SCRAMServer{salt: salt, iterations: iterations, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key"),
		nonce: base64.RawStdEncoding.EncodeToString(nonce)}, nil
}

// ErrWrongPassword is a client proof that does not match the password.
var ErrWrongPassword = errors.New("session: SCRAM proof does not match: wrong password")

// The SQLSTATEs SCRAM errors carry.
const (
	stateProtocolViolation = "08P01"
	stateInvalidAuthSpec   = "28000"
	stateNotSupported      = "0A000"
)

func scramMalformed(detail string) *Error {
	return ServerError("FATAL", stateProtocolViolation, "malformed SCRAM message", detail)
}

// ServerFirst answers the client-first message: the combined nonce, the
// salt and the iteration count.
func (s *SCRAMServer) ServerFirst(clientFirst []byte) ([]byte, error) {
	plus := s.Mechanism == SCRAMSHA256Plus
	if plus && s.Binding == nil || !plus && s.Mechanism != "" && s.Mechanism != SCRAMSHA256 {
		return nil, ServerError("FATAL", stateProtocolViolation, "client selected an invalid SASL authentication mechanism", "")
	}
	msg := string(clientFirst)
	header, rest, ok := strings.Cut(msg, ",")
	if !ok {
		return nil, scramMalformed("Comma expected after the channel-binding flag.")
	}
	const noBinding = "The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data."
	switch {
	case header == "n" || header == "y":
		if plus {
			return nil, scramMalformed(noBinding)
		}
		if header == "y" && s.Binding != nil {
			return nil, ServerError("FATAL", stateInvalidAuthSpec, "SCRAM channel binding negotiation error",
				"The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding.")
		}
	case strings.HasPrefix(header, "p="):
		if !plus {
			return nil, scramMalformed("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.")
		}
		if header != "p=tls-server-end-point" {
			return nil, ServerError("FATAL", stateProtocolViolation, "unsupported SCRAM channel-binding type", "")
		}
	default:
		return nil, scramMalformed("Unexpected channel-binding flag.")
	}
	authzid, bare, ok := strings.Cut(rest, ",")
	switch {
	case !ok:
		return nil, scramMalformed("Comma expected after the authorization identity.")
	case authzid != "":
		return nil, ServerError("FATAL", stateNotSupported, "client uses authorization identity, but it is not supported", "")
	case strings.HasPrefix(bare, "m="):
		return nil, ServerError("FATAL", stateNotSupported, "client requires an unsupported SCRAM extension", "")
	}
	attrs, err := scramAttrs([]byte(bare))
	if err != nil || !strings.HasPrefix(bare, "n=") || attrs["r"] == "" {
		return nil, scramMalformed("The client-first message lacks its user name or nonce.")
	}
	gs2 := msg[:len(msg)-len(bare)]
	s.cbind = base64.StdEncoding.EncodeToString(append([]byte(gs2), s.bindingFor(plus)...))
	s.clientFirstBare = bare
	s.serverFirst = "r=" + attrs["r"] + s.nonce + ",s=" + base64.StdEncoding.EncodeToString(s.salt) + ",i=" + strconv.Itoa(s.iterations)
	return []byte(s.serverFirst), nil
}

func (s *SCRAMServer) bindingFor(plus bool) []byte {
	if plus {
		return s.Binding
	}
	return nil
}

// ServerFinal checks the client-final message's channel binding and proof
// and returns the server's signature.
func (s *SCRAMServer) ServerFinal(clientFinal []byte) ([]byte, error) {
	if s.serverFirst == "" {
		return nil, scramMalformed("The client-final message came before the client-first message.")
	}
	withoutProof, proof64, ok := strings.Cut(string(clientFinal), ",p=")
	attrs, err := scramAttrs([]byte(withoutProof))
	if !ok || err != nil || !strings.HasPrefix(withoutProof, "c=") || !strings.HasPrefix(s.serverFirst, "r="+attrs["r"]+",") {
		return nil, scramMalformed("The client-final message is not c=…,r=…,p=… with the combined nonce.")
	}
	if subtle.ConstantTimeCompare([]byte(attrs["c"]), []byte(s.cbind)) != 1 {
		if s.Mechanism == SCRAMSHA256Plus {
			return nil, ServerError("FATAL", stateInvalidAuthSpec, "SCRAM channel binding check failed", "")
		}
		return nil, ServerError("FATAL", stateProtocolViolation, "unexpected SCRAM channel-binding attribute in client-final-message", "")
	}
	proof, err := base64.StdEncoding.DecodeString(proof64)
	if err != nil || len(proof) != sha256.Size {
		return nil, scramMalformed("Malformed proof in client-final-message.")
	}
	authMessage := s.clientFirstBare + "," + s.serverFirst + "," + withoutProof
	signature := hmacSHA256(s.storedKey, authMessage)
	for i := range proof {
		proof[i] ^= signature[i] // recovers the client key
	}
	if got := sha256.Sum256(proof); !hmac.Equal(got[:], s.storedKey) {
		return nil, ErrWrongPassword
	}
	return []byte("v=" + base64.StdEncoding.EncodeToString(hmacSHA256(s.serverKey, authMessage))), nil
}
