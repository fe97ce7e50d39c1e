package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// Query is one execution of a statement: its arguments, and where its
// results go.
type Query struct {
	// Args are the parameter values Bind supplied (nil is NULL), and
	// Formats the format of each (0 text, 1 binary).
	Args    [][]byte
	Formats []int16

	c       *Conn
	ctx     context.Context
	stmt    *Statement
	formats []int16 // the result format of each column
	rows    int64
	tag     string
	copying byte // 'H' in COPY TO STDOUT, 'G' in COPY FROM STDIN
	// limit is the rows still to send before the portal suspends (0: no
	// limit); yield suspends a portal run under a limit.
	limit int32
	yield func(struct{}) bool
	// row is reused for every DataRow; vals holds the values it points
	// into, ends where each ends (-1: NULL).
	row  codec.DataRow
	vals []byte
	ends []int
}

// Conn is the session the query runs in.
func (q *Query) Conn() *Conn { return q.c }

// Scan decodes argument i into dst (a pointer to a Go value pgtype can
// scan into: *int32, *string, *time.Time, *[]byte …), by the parameter's type.
func (q *Query) Scan(i int, dst any) error {
	if i >= len(q.Args) {
		return session.ServerError("ERROR", "42P02", fmt.Sprintf("there is no parameter $%d", i+1), "")
	}
	if err := q.c.types.Scan(q.stmt.Params[i], q.Formats[i], q.Args[i], dst); err != nil {
		return session.ServerError("ERROR", "22P02", fmt.Sprintf("invalid input for parameter $%d: %v", i+1, err), "")
	}
	return nil
}

// SetTag sets the command tag of CommandComplete ("INSERT 0 1", "BEGIN");
// without one a statement with columns reports "SELECT n".
func (q *Query) SetTag(tag string) { q.tag = tag }

// errSuspendedPortalClosed ends a suspended portal's run: the portal was
// closed, or its transaction ended.
var errSuspendedPortalClosed = errors.New("server: portal closed")

// Row sends one row: a Go value per column, encoded by the column's type
// in the format Bind asked for (nil is NULL). Under a row limit the portal suspends once the limit is
// reached, and Row returns when the client executes it again.
func (q *Query) Row(values ...any) error {
	cols := q.stmt.Columns
	if len(values) != len(cols) {
		return fmt.Errorf("server: a row of %d values for %d columns", len(values), len(cols))
	}
	q.vals, q.ends = q.vals[:0], q.ends[:0]
	for i, v := range values {
		if v == nil {
			q.ends = append(q.ends, -1)
			continue
		}
		var err error
		if q.vals, err = q.c.types.Encode(cols[i].OID, q.formats[i], v, q.vals); err != nil {
			return fmt.Errorf("server: column %q: %w", cols[i].Name, err)
		}
		q.ends = append(q.ends, len(q.vals))
	}
	q.row.Values = q.row.Values[:0]
	start := 0
	for _, end := range q.ends {
		if end < 0 {
			q.row.Values = append(q.row.Values, nil)
			continue
		}
		q.row.Values = append(q.row.Values, q.vals[start:end:end])
		start = end
	}
	if err := q.c.Send(&q.row); err != nil {
		return err
	}
	q.rows++
	if q.limit > 0 {
		if q.limit--; q.limit == 0 && !q.yield(struct{}{}) {
			return errSuspendedPortalClosed
		}
	}
	return q.ctx.Err()
}

// CopyIn starts COPY FROM STDIN: the overall format (0 text, 1 binary)
// and each column's. Read the data with ReadCopy.
func (q *Query) CopyIn(format uint8, columnFormats []int16) error {
	q.copying = 'G'
	q.c.send(&codec.CopyInResponse{OverallFormat: format, ColumnFormatCodes: columnFormats})
	return q.c.Flush()
}

// ReadCopy returns the next CopyData's bytes, valid until the next call,
// and io.EOF at CopyDone. A CopyFail is an error (57014, as PostgreSQL
// reports it), as is any message but Flush and Sync, which are ignored.
func (q *Query) ReadCopy() ([]byte, error) {
	if q.copying != 'G' {
		return nil, errors.New("server: ReadCopy outside COPY FROM STDIN")
	}
	for {
		frame, err := q.c.fr.Next()
		if err != nil {
			return nil, err
		}
		step, err := q.c.conv.Frontend.Next(frame)
		m := step.Msg
		switch {
		case err != nil && m != nil && isFlowError(err):
			m = nil // a message COPY FROM STDIN has no place for: PostgreSQL's error below
		case err != nil:
			return nil, protocolError(err)
		}
		switch m := m.(type) {
		case *codec.CopyData:
			return m.Data, nil
		case *codec.CopyDone:
			q.copying = 0
			return nil, io.EOF
		case *codec.CopyFail:
			q.copying = 0
			return nil, session.ServerError("ERROR", "57014", "COPY from stdin failed: "+m.Message, "")
		case *codec.Flush, *codec.Sync: // ignored, as PostgreSQL does during COPY
		default: // the flow has no place for it (m is nil), or the conversation was out of step
			q.copying = 0
			return nil, session.ServerError("ERROR", "08P01", fmt.Sprintf("unexpected message type 0x%02X during COPY from stdin", frame[0]), "")
		}
	}
}

// CopyOut starts COPY TO STDOUT; send the data with WriteCopy.
func (q *Query) CopyOut(format uint8, columnFormats []int16) error {
	q.copying = 'H'
	return q.c.Send(&codec.CopyOutResponse{OverallFormat: format, ColumnFormatCodes: columnFormats})
}

// WriteCopy sends data in one CopyData.
func (q *Query) WriteCopy(data []byte) error {
	if q.copying != 'H' {
		return errors.New("server: WriteCopy outside COPY TO STDOUT")
	}
	return q.c.Send(&codec.CopyData{Data: data})
}

// Notice sends a NoticeResponse (session.ServerError("NOTICE", …)).
func (q *Query) Notice(n *session.Error) error {
	return q.c.Send(&codec.NoticeResponse{Fields: n.Fields})
}

// complete ends a run that returned err: CopyDone for a COPY TO, then
// CommandComplete, or the error.
func (q *Query) complete(err error) error {
	if err != nil {
		return err
	}
	if q.copying == 'H' {
		q.c.send(&codec.CopyDone{})
		q.copying = 0
	}
	tag := q.tag
	if tag == "" {
		tag = "SELECT " + strconv.FormatInt(q.rows, 10)
	}
	return q.c.Send(&codec.CommandComplete{CommandTag: tag})
}

// portal is a bound statement, and its run while suspended.
type portal struct {
	q *Query
	// next resumes a suspended run (true: suspended again); stop ends it.
	next   func() (struct{}, bool)
	stop   func()
	cancel context.CancelFunc
	err    error // what the run returned
	done   bool
}

// execute runs the portal up to maxRows rows (0: all), reporting whether it
// suspended. A run under a limit goes on a coroutine (iter.Pull) that Row
// suspends; the common unlimited run is a plain call.
func (p *portal) execute(ctx context.Context, maxRows int32) (suspended bool, err error) {
	q := p.q
	q.rows = 0 // CommandComplete counts the rows of this Execute
	if p.done {
		return false, q.complete(nil) // PostgreSQL: an exhausted portal reports what it did
	}
	q.limit = maxRows
	if p.next == nil && maxRows == 0 {
		q.ctx = ctx
		p.done = true
		return false, q.complete(q.stmt.Run(ctx, q))
	}
	if p.next == nil {
		var pctx context.Context
		pctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
		q.ctx = pctx
		p.next, p.stop = iter.Pull(func(yield func(struct{}) bool) {
			q.yield = yield
			p.err = q.stmt.Run(pctx, q)
		})
	}
	stopWatch := context.AfterFunc(ctx, p.cancel)
	_, suspended = p.next()
	stopWatch()
	if suspended {
		return true, q.c.Send(&codec.PortalSuspended{})
	}
	p.done = true
	return false, q.complete(p.err)
}

// close ends a suspended run.
func (p *portal) close() {
	if p.stop != nil {
		p.cancel()
		p.stop()
	}
}
