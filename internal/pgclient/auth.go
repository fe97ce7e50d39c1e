package pgclient

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
	"strconv"
	"strings"
)

// md5Password is the answer to AuthenticationMD5Password:
// "md5" + hex(md5(hex(md5(password + user)) + salt)).
func md5Password(user, password string, salt [4]byte) string {
	inner := md5.Sum([]byte(password + user))
	outer := md5.Sum(append([]byte(hex.EncodeToString(inner[:])), salt[:]...))
	return "md5" + hex.EncodeToString(outer[:])
}

// scramMechanism is the only SASL mechanism the client speaks (no channel binding).
const scramMechanism = "SCRAM-SHA-256"

// scram is the client side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677).
// The password is used as given: PostgreSQL's SASLprep leaves NFKC-normalised
// passwords without special spaces unchanged, and those are the ones tests use.
type scram struct {
	password    string
	clientNonce string
	// clientFirstBare and authMessage are kept between steps for the proofs.
	clientFirstBare string
	authMessage     string
	serverKey       []byte
}

func newSCRAM(password string) (*scram, error) {
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return &scram{password: password, clientNonce: base64.RawStdEncoding.EncodeToString(nonce)}, nil
}

// clientFirst is the SASLInitialResponse payload. The user name is empty:
// PostgreSQL takes it from the startup message.
func (s *scram) clientFirst() []byte {
	s.clientFirstBare = "n=,r=" + s.clientNonce
	return []byte("n,," + s.clientFirstBare)
}

// clientFinal answers the server-first message (AuthenticationSASLContinue data).
func (s *scram) clientFinal(serverFirst []byte) ([]byte, error) {
	attrs, err := scramAttrs(serverFirst)
	if err != nil {
		return nil, err
	}
	nonce, salt64, iter := attrs["r"], attrs["s"], attrs["i"]
	if !strings.HasPrefix(nonce, s.clientNonce) || len(nonce) == len(s.clientNonce) {
		return nil, fmt.Errorf("scram: server nonce %q does not extend ours", nonce)
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil {
		return nil, fmt.Errorf("scram: salt: %w", err)
	}
	iterations, err := strconv.Atoi(iter)
	if err != nil || iterations < 1 {
		return nil, fmt.Errorf("scram: iteration count %q", iter)
	}
	salted, err := pbkdf2.Key(sha256.New, s.password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	s.serverKey = hmacSHA256(salted, "Server Key")
	withoutProof := "c=biws,r=" + nonce // biws = base64("n,,"): no channel binding
	s.authMessage = s.clientFirstBare + "," + string(serverFirst) + "," + withoutProof
	proof := hmacSHA256(storedKey[:], s.authMessage)
	for i := range proof {
		proof[i] ^= clientKey[i]
	}
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

// verifyServerFinal checks the server's signature (AuthenticationSASLFinal data),
// proving the server knew the password too.
func (s *scram) verifyServerFinal(serverFinal []byte) error {
	attrs, err := scramAttrs(serverFinal)
	if err != nil {
		return err
	}
	if e, ok := attrs["e"]; ok {
		return fmt.Errorf("scram: server error %q", e)
	}
	got, err := base64.StdEncoding.DecodeString(attrs["v"])
	if err != nil {
		return fmt.Errorf("scram: server signature: %w", err)
	}
	if !hmac.Equal(got, hmacSHA256(s.serverKey, s.authMessage)) {
		return errors.New("scram: server signature does not match")
	}
	return nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// scramAttrs splits "k=v,k=v" into a map; values may contain '='.
func scramAttrs(msg []byte) (map[string]string, error) {
	attrs := map[string]string{}
	for _, part := range bytes.Split(msg, []byte(",")) {
		k, v, ok := bytes.Cut(part, []byte("="))
		if !ok || len(k) != 1 {
			return nil, fmt.Errorf("scram: malformed attribute %q in %q", part, msg)
		}
		attrs[string(k)] = string(v)
	}
	return attrs, nil
}
