package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// engine is the query protocol's state: what the client prepared and
// bound, whether an error discards messages until Sync, and how to cancel
// what runs.
type engine struct {
	types   *pgtype.Map
	stmts   map[string]*Statement
	portals map[string]*portal
	// discard is set by an error in the extended protocol: everything up
	// to the next Sync is read and dropped. failed is set by any error
	// until the implicit transaction ends.
	discard, failed bool
	rd              codec.RowDescription

	mu     sync.Mutex
	cancel context.CancelFunc // of what runs now
}

// Cancel cancels the statement that runs now, if any, as a CancelRequest
// does: it fails with 57014.
func (c *Conn) Cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
}

// running runs f with a context Cancel cancels.
func (c *Conn) running(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	err := f(ctx)
	c.mu.Lock()
	c.cancel = nil
	c.mu.Unlock()
	cancel()
	return err
}

// Serve answers the client's queries with h until it terminates or ctx
// ends (the session then ends with PostgreSQL's 57P01). It returns nil
// when the client sent Terminate or closed the connection between
// messages. It goes on with the conversation Accept began.
func (c *Conn) Serve(ctx context.Context, h Handler) error {
	c.stmts, c.portals = map[string]*Statement{}, map[string]*portal{}
	defer c.closePortals()
	stop := context.AfterFunc(ctx, func() { c.nc.SetReadDeadline(deadlinePassed) })
	defer stop()
	for {
		frame, err := c.fr.Next()
		if err != nil {
			if ctx.Err() != nil {
				return c.fatal(session.ServerError("FATAL", "57P01", "terminating connection due to administrator command", ""))
			}
			if err == io.EOF {
				return nil
			}
			return err // PostgreSQL closes on an invalid length without a word
		}
		step, err := c.conv.Frontend.Next(frame)
		m := step.Msg
		if err != nil && m != nil && isFlowError(err) {
			// Decoded, but the flow has no place for it here: dropped.
			// (CopyData, CopyDone and CopyFail after a COPY ended have
			// one, and dispatch drops them, as PostgreSQL does.)
			continue
		}
		if err != nil {
			if errors.Is(err, codec.ErrUnknownTag) || frame[0] == 'p' {
				return c.fatal(session.ServerError("FATAL", "08P01", fmt.Sprintf("invalid frontend message type %d", frame[0]), ""))
			}
			if err := c.malformed(frame, err); err != nil {
				return err
			}
			continue
		}
		if _, ok := m.(*codec.Terminate); ok {
			return nil
		}
		if c.discard {
			if _, ok := m.(*codec.Sync); !ok {
				continue
			}
			c.discard = false
		}
		if err := c.dispatch(ctx, h, m); err != nil {
			return err
		}
	}
}

// malformed answers a frame that did not decode with PostgreSQL's 08P01,
// unless an extended-query error discards it anyway. The conversation never
// took the frame, so the answer puts it out of step; it does not take the
// error (which, answering nothing it saw, would read as the server's last
// word).
func (c *Conn) malformed(frame []byte, err error) error {
	if c.discard {
		return nil
	}
	conv := c.conv
	c.conv, c.outOfStep = nil, true
	c.fail(protocolError(err), frame[0] != 'Q' && frame[0] != 'F')
	c.conv = conv
	if frame[0] == 'Q' || frame[0] == 'F' {
		return c.readyForQuery()
	}
	return nil
}

// dispatch handles one message; an error ends the session.
func (c *Conn) dispatch(ctx context.Context, h Handler, m codec.Message) error {
	var err error
	switch m := m.(type) {
	case *codec.Query:
		if err := c.simpleQuery(ctx, h, m.String); err != nil {
			return err
		}
		c.endImplicit(h)
		return c.readyForQuery()
	case *codec.Parse:
		err = c.parse(ctx, h, m)
	case *codec.Bind:
		err = c.bind(m)
	case *codec.Describe:
		err = c.describe(m)
	case *codec.Execute:
		err = c.execute(ctx, m)
	case *codec.Close:
		err = c.close(m)
	case *codec.Sync:
		if c.TxStatus == 'I' {
			c.closePortals() // the implicit transaction ends
		}
		c.endImplicit(h)
		return c.readyForQuery()
	case *codec.Flush:
		return c.Flush()
	case *codec.FunctionCall:
		if err := c.functionCall(ctx, h, m); err != nil {
			c.fail(err, false)
		}
		return c.readyForQuery()
	case *codec.CopyData, *codec.CopyDone, *codec.CopyFail:
		// Outside COPY FROM STDIN (after it failed): PostgreSQL drops them.
	}
	if err != nil {
		c.fail(err, true)
		if isFatal(err) {
			return err
		}
	}
	return c.err
}

// endImplicit tells h that an implicit transaction ended.
func (c *Conn) endImplicit(h Handler) {
	if it, ok := h.(ImplicitTransactions); ok && c.TxStatus == 'I' {
		it.EndImplicit(c, c.failed)
	}
	c.failed = false
}

// readyForQuery ends the answer to a Query, FunctionCall or Sync. The
// engine reads the next message only after answering one, so the server is
// idle now, whatever the conversation says: one out of step (an answer it
// did not expect, to a frame that did not decode) is put back in step.
func (c *Conn) readyForQuery() error {
	c.send(&codec.ReadyForQuery{TxStatus: c.TxStatus})
	if c.outOfStep {
		c.inStep()
	}
	return c.Flush()
}

// inStep puts the conversation where the session is after ReadyForQuery:
// the client authenticated, the server idle, nothing waiting.
func (c *Conn) inStep() {
	c.conv.Reset(c.P)
	c.conv.FixMajor = true
	c.conv.Resume()
	c.outOfStep = false
}

// fail sends err as ErrorResponse, at once as PostgreSQL does (elog.c's
// send_message_to_frontend flushes every error: a client that sent no Sync
// or Flush yet still learns of it); in the extended protocol the messages
// up to Sync are then discarded, and inside a transaction block it fails.
// A write error is the next Flush's.
func (c *Conn) fail(err error, extended bool) {
	e := asPGError(err)
	c.send(&codec.ErrorResponse{Fields: e.Fields})
	if err := c.Flush(); err != nil && c.err == nil {
		c.err = err
	}
	c.failed = true
	if c.TxStatus == 'T' {
		c.TxStatus = 'E'
	}
	c.discard = extended
}

// asPGError is err as the client sees it.
func asPGError(err error) *session.Error {
	var e *session.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled), errors.Is(err, errSuspendedPortalClosed):
		return session.ServerError("ERROR", "57014", "canceling statement due to user request", "")
	}
	return session.ServerError("ERROR", "XX000", err.Error(), "")
}

// isFlowError is whether err is the conversation's *codec.FlowError.
func isFlowError(err error) bool {
	var fe *codec.FlowError
	return errors.As(err, &fe)
}

func isFatal(err error) bool {
	var e *session.Error
	return errors.As(err, &e) && e.Severity() == "FATAL"
}

// protocolError is a message that does not decode.
func protocolError(err error) *session.Error {
	return session.ServerError("ERROR", "08P01", "invalid message format", err.Error())
}

// simpleQuery runs the statements of a Query until one fails; only a
// FATAL error, which ends the session, is returned.
func (c *Conn) simpleQuery(ctx context.Context, h Handler, sql string) error {
	stmts, err := h.Parse(ctx, c, sql, nil)
	if err == nil && len(stmts) == 0 {
		c.send(&codec.EmptyQueryResponse{})
	}
	for i := 0; err == nil && i < len(stmts); i++ {
		st := &stmts[i]
		if len(st.Params) > 0 {
			err = session.ServerError("ERROR", "42P02", "there is no parameter $1", "")
			break
		}
		if st.Run == nil {
			c.send(&codec.EmptyQueryResponse{})
			continue
		}
		q := c.newQuery(st, make([]int16, len(st.Columns)))
		if st.Columns != nil {
			c.send(c.rowDescription(st.Columns, q.formats))
		}
		err = c.running(ctx, func(ctx context.Context) error {
			q.ctx = ctx
			return q.complete(st.Run(ctx, q))
		})
	}
	if err != nil {
		c.fail(err, false)
		if isFatal(err) {
			return err
		}
	}
	return nil
}

func (c *Conn) newQuery(st *Statement, formats []int16) *Query {
	return &Query{c: c, stmt: st, formats: formats}
}

func (c *Conn) parse(ctx context.Context, h Handler, m *codec.Parse) error {
	if _, ok := c.stmts[m.Name]; ok && m.Name != "" {
		return session.ServerError("ERROR", "42P05", fmt.Sprintf("prepared statement %q already exists", m.Name), "")
	}
	stmts, err := h.Parse(ctx, c, m.Query, slices.Clone(m.ParameterOIDs))
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return session.ServerError("ERROR", "42601", "cannot insert multiple commands into a prepared statement", "")
	}
	st := &Statement{} // the empty query
	if len(stmts) == 1 {
		st = &stmts[0]
	}
	c.stmts[m.Name] = st
	c.send(&codec.ParseComplete{})
	return nil
}

// formats expands a format code list that Bind gives for n values: none
// (all text), one (for all) or one each.
func formats(codes []int16, n int, what string) ([]int16, error) {
	switch len(codes) {
	case n:
		return slices.Clone(codes), nil
	case 0, 1:
		f := make([]int16, n)
		if len(codes) == 1 {
			for i := range f {
				f[i] = codes[0]
			}
		}
		return f, nil
	}
	return nil, session.ServerError("ERROR", "08P01", fmt.Sprintf("bind message has %d %s formats but %d %ss", len(codes), what, n, what), "")
}

func (c *Conn) bind(m *codec.Bind) error {
	st, ok := c.stmts[m.PreparedStatement]
	if !ok {
		return session.ServerError("ERROR", "26000", fmt.Sprintf("prepared statement %q does not exist", m.PreparedStatement), "")
	}
	if len(m.Parameters) != len(st.Params) {
		return session.ServerError("ERROR", "08P01", fmt.Sprintf("bind message supplies %d parameters, but prepared statement %q requires %d", len(m.Parameters), m.PreparedStatement, len(st.Params)), "")
	}
	if _, ok := c.portals[m.DestinationPortal]; ok && m.DestinationPortal != "" {
		return session.ServerError("ERROR", "42P03", fmt.Sprintf("portal %q already exists", m.DestinationPortal), "")
	}
	argFormats, err := formats(m.ParameterFormatCodes, len(m.Parameters), "parameter")
	if err != nil {
		return err
	}
	resultFormats, err := formats(m.ResultFormatCodes, len(st.Columns), "result")
	if err != nil {
		return err
	}
	for _, f := range slices.Concat(argFormats, resultFormats) {
		if f != 0 && f != 1 {
			return session.ServerError("ERROR", "22023", fmt.Sprintf("unsupported format code: %d", f), "")
		}
	}
	q := c.newQuery(st, resultFormats)
	q.Formats = argFormats
	// The arguments alias the frame, which the next message reuses.
	q.Args = make([][]byte, len(m.Parameters))
	buf := bytes.Join(m.Parameters, nil)
	for i, a := range m.Parameters {
		if a != nil {
			q.Args[i], buf = buf[:len(a):len(a)], buf[len(a):]
		}
	}
	if old := c.portals[m.DestinationPortal]; old != nil {
		old.close()
	}
	c.portals[m.DestinationPortal] = &portal{q: q}
	c.send(&codec.BindComplete{})
	return nil
}

func (c *Conn) describe(m *codec.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, ok := c.stmts[m.Name]
		if !ok {
			return session.ServerError("ERROR", "26000", fmt.Sprintf("prepared statement %q does not exist", m.Name), "")
		}
		c.send(&codec.ParameterDescription{ParameterOIDs: st.Params})
		c.describeRows(st.Columns, make([]int16, len(st.Columns)))
	case 'P':
		p, ok := c.portals[m.Name]
		if !ok {
			return session.ServerError("ERROR", "34000", fmt.Sprintf("portal %q does not exist", m.Name), "")
		}
		c.describeRows(p.q.stmt.Columns, p.q.formats)
	default:
		return session.ServerError("ERROR", "08P01", fmt.Sprintf("invalid DESCRIBE message subtype %d", m.ObjectType), "")
	}
	return nil
}

func (c *Conn) describeRows(cols []Column, formats []int16) {
	if cols == nil {
		c.send(&codec.NoData{})
		return
	}
	c.send(c.rowDescription(cols, formats))
}

// rowDescription describes cols in formats, in a value reused for each.
func (c *Conn) rowDescription(cols []Column, formats []int16) *codec.RowDescription {
	c.rd.Fields = c.rd.Fields[:0]
	for i, col := range cols {
		mod := col.Modifier
		if mod == 0 {
			mod = -1
		}
		c.rd.Fields = append(c.rd.Fields, codec.FieldDescription{Name: col.Name, TableOID: col.TableOID, TableAttributeNumber: col.Attribute,
			DataTypeOID: col.OID, DataTypeSize: typeSize(col.OID), TypeModifier: mod, Format: formats[i]})
	}
	return &c.rd
}

// typeSize is pg_type.typlen of the built-in types pgtype knows: the
// fixed sizes, -1 (varlena) for the rest.
func typeSize(oid uint32) int16 {
	switch oid {
	case pgtype.BoolOID, pgtype.QCharOID:
		return 1
	case pgtype.Int2OID:
		return 2
	case pgtype.Int4OID, pgtype.Float4OID, pgtype.OIDOID, pgtype.DateOID, pgtype.XIDOID, pgtype.CIDOID:
		return 4
	case pgtype.Int8OID, pgtype.Float8OID, pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.TimeOID:
		return 8
	case pgtype.UUIDOID, pgtype.IntervalOID:
		return 16
	case pgtype.NameOID:
		return 64
	}
	return -1
}

func (c *Conn) execute(ctx context.Context, m *codec.Execute) error {
	p, ok := c.portals[m.Portal]
	if !ok {
		return session.ServerError("ERROR", "34000", fmt.Sprintf("portal %q does not exist", m.Portal), "")
	}
	if p.q.stmt.Run == nil {
		c.send(&codec.EmptyQueryResponse{})
		return nil
	}
	return c.running(ctx, func(ctx context.Context) error {
		_, err := p.execute(ctx, max(m.MaxRows, 0))
		return err
	})
}

func (c *Conn) close(m *codec.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		if p := c.portals[m.Name]; p != nil {
			p.close()
			delete(c.portals, m.Name)
		}
	default:
		return session.ServerError("ERROR", "08P01", fmt.Sprintf("invalid CLOSE message subtype %d", m.ObjectType), "")
	}
	c.send(&codec.CloseComplete{})
	return nil
}

// closePortals ends every portal, as the end of a transaction does.
func (c *Conn) closePortals() {
	for name, p := range c.portals {
		p.close()
		delete(c.portals, name)
	}
}

func (c *Conn) functionCall(ctx context.Context, h Handler, m *codec.FunctionCall) error {
	fc, ok := h.(FunctionCaller)
	if !ok {
		return session.ServerError("ERROR", "42883", fmt.Sprintf("function with OID %d does not exist", m.Function), "")
	}
	argFormats, err := formats(m.ArgumentFormatCodes, len(m.Arguments), "argument")
	if err != nil {
		return err
	}
	return c.running(ctx, func(ctx context.Context) error {
		result, err := fc.CallFunction(ctx, c, m.Function, m.Arguments, argFormats, m.ResultFormatCode)
		if err != nil {
			return err
		}
		return c.Send(&codec.FunctionCallResponse{Result: result})
	})
}
