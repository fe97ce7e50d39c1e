// Package session holds the pieces every PostgreSQL client, proxy or
// replication consumer writes around the codec: protocol versions, the
// server's major from server_version, LSNs, PostgreSQL timestamps,
// authentication exchanges (SCRAM-SHA-256, MD5), startup and protocol
// negotiation, ErrorResponse as a Go error, and replication replies.
//
// It is built only on package codec and the standard library, and does no
// I/O of its own except where a function takes an io.Reader or io.Writer:
// the exchanges are values that turn the server's messages into the
// client's answers, so they work over any transport.
package session
