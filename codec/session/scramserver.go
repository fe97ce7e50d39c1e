package session

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// SCRAMServer is the server side of one SCRAM-SHA-256 exchange, for
// proxies, poolers and test servers that authenticate clients themselves:
// ServerFirst answers SASLInitialResponse's data (send it in
// AuthenticationSASLContinue), ServerFinal checks the client's proof in
// SASLResponse (send its result in AuthenticationSASLFinal).
type SCRAMServer struct {
	salt                 []byte
	iterations           int
	storedKey, serverKey []byte
	// nonce is the server's part; the others are kept between steps.
	nonce, clientFirstBare, serverFirst string
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

var errSCRAMClient = errors.New("session: malformed SCRAM client message")

// ServerFirst answers the client-first message: the combined nonce, the
// salt and the iteration count. Channel binding is refused.
func (s *SCRAMServer) ServerFirst(clientFirst []byte) ([]byte, error) {
	gs2, bare, ok := strings.Cut(string(clientFirst), ",,")
	if !ok || (gs2 != "n" && gs2 != "y") {
		return nil, errSCRAMClient
	}
	attrs, err := scramAttrs([]byte(bare))
	if err != nil || attrs["r"] == "" {
		return nil, errSCRAMClient
	}
	s.clientFirstBare = bare
	s.serverFirst = "r=" + attrs["r"] + s.nonce + ",s=" + base64.StdEncoding.EncodeToString(s.salt) + ",i=" + strconv.Itoa(s.iterations)
	return []byte(s.serverFirst), nil
}

// ServerFinal checks the client-final message's proof and returns the
// server's signature; a wrong proof (a wrong password) is an error.
func (s *SCRAMServer) ServerFinal(clientFinal []byte) ([]byte, error) {
	withoutProof, proof64, ok := strings.Cut(string(clientFinal), ",p=")
	attrs, err := scramAttrs([]byte(withoutProof))
	if !ok || err != nil || s.serverFirst == "" || attrs["c"] != "biws" || !strings.HasPrefix(s.serverFirst, "r="+attrs["r"]+",") {
		return nil, errSCRAMClient
	}
	proof, err := base64.StdEncoding.DecodeString(proof64)
	if err != nil || len(proof) != sha256.Size {
		return nil, errSCRAMClient
	}
	authMessage := s.clientFirstBare + "," + s.serverFirst + "," + withoutProof
	signature := hmacSHA256(s.storedKey, authMessage)
	for i := range proof {
		proof[i] ^= signature[i] // recovers the client key
	}
	if got := sha256.Sum256(proof); !hmac.Equal(got[:], s.storedKey) {
		return nil, errors.New("session: SCRAM proof does not match: wrong password")
	}
	return []byte("v=" + base64.StdEncoding.EncodeToString(hmacSHA256(s.serverKey, authMessage))), nil
}
