package server

import (
	"context"
)

// Handler is what a server answers queries with.
type Handler interface {
	// Parse turns query text into its statements, in order: none for an
	// empty query. paramTypes are the parameter type OIDs the client gave
	// in Parse (0 where it left one open, nil for a simple query); the
	// statement decides them. The extended protocol allows one statement.
	Parse(ctx context.Context, c *Conn, query string, paramTypes []uint32) ([]Statement, error)
}

// FunctionCaller is a Handler that also answers FunctionCall messages:
// the function's result in resultFormat, nil for NULL.
type FunctionCaller interface {
	CallFunction(ctx context.Context, c *Conn, oid uint32, args [][]byte, argFormats []int16, resultFormat int16) ([]byte, error)
}

// ImplicitTransactions is a Handler told where PostgreSQL's implicit
// transactions end: outside a transaction block (TxStatus 'I'), the
// statements of one simple Query, or the extended-protocol messages up to
// a Sync, commit together or, when one failed, not at all.
type ImplicitTransactions interface {
	EndImplicit(c *Conn, failed bool)
}

// Statement is one parsed statement.
type Statement struct {
	// Params are the type OIDs of its parameters ($1 …), what
	// ParameterDescription reports; Bind must supply that many.
	Params []uint32
	// Columns are the rows it returns (RowDescription); nil for a
	// statement without rows (NoData), a COPY included.
	Columns []Column
	// Run executes it with the arguments Bind gave: it sends rows with
	// q.Row, COPY data with q.CopyIn/q.CopyOut, and sets the command tag.
	// It must return when ctx is done (a cancel request or a closed
	// portal).
	Run func(ctx context.Context, q *Query) error
}

// Column describes one result column.
type Column struct {
	Name string
	// OID is the column's data type, which decides its encoding
	// (pgtype.Map): text, int4, int8, bool, float8, timestamptz, bytea …
	OID uint32
	// TableOID and Attribute name the table column it comes from, if any;
	// Modifier is the type modifier (-1 when none, the default for 0).
	TableOID  uint32
	Attribute int16
	Modifier  int32
}
