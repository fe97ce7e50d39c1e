// Package server is the server side of PostgreSQL's frontend/backend
// protocol on the codec: what a PostgreSQL-compatible database, a pooler or
// a test server writes so that any client that talks to PostgreSQL talks to
// it.
//
// Accept takes a net.Conn through the startup phase as PostgreSQL 18 does:
// SSLRequest with the caller's *tls.Config, GSSENCRequest (declined), TLS
// from the first byte (PostgreSQL 17's direct TLS, ALPN "postgresql"),
// CancelRequest, protocol 3.0 and 3.2 with NegotiateProtocolVersion for
// newer minors and "_pq_." options, authentication (trust, cleartext, MD5,
// SCRAM-SHA-256, SCRAM-SHA-256-PLUS) and BackendKeyData, within
// PostgreSQL's pre-authentication limits. Conn.Serve then runs the simple
// and extended query protocols against a Handler: prepared statements and
// portals, pipelining, row limits, COPY, function calls, and an error that
// discards everything up to Sync. Server puts both behind a listener and
// routes cancel requests.
//
// Errors a Handler returns reach the client as ErrorResponse: a
// *session.Error (session.ServerError) with its SQLSTATE as it is, any
// other error as XX000, a cancelled context as 57014.
package server
