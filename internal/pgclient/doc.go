// Package pgclient is a minimal PostgreSQL client built only on the generated
// codec and the standard library. It exists to prove the codec against a real
// server: every byte it sends is produced by a generated Encode and every
// byte it reads is taken apart by a generated Decode.
package pgclient
