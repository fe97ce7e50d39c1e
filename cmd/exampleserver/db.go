package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
)

// column is a table column: its name and type.
type column struct {
	name string
	oid  uint32
}

// table is an in-memory table whose first column is its key.
type table struct {
	name string
	oid  uint32
	cols []column

	mu   sync.RWMutex
	rows [][]any
	key  map[any]int // first column's value → row index
}

func (t *table) col(name string) (int, error) {
	for i, c := range t.cols {
		if c.name == name {
			return i, nil
		}
	}
	return 0, session.ServerError("ERROR", "42703", fmt.Sprintf("column %q does not exist", name), "")
}

// reindex rebuilds the key index after rows moved; the caller holds mu.
func (t *table) reindex() {
	clear(t.key)
	for i, r := range t.rows {
		t.key[r[0]] = i
	}
}

// db is the example's database: a few tables shaped like pgbench's, and
// items for the pgx tests.
type db struct {
	tables map[string]*table
}

func newDB(accounts int) *db {
	d := &db{tables: map[string]*table{}}
	add := func(name string, cols []column, rows [][]any) {
		t := &table{name: name, oid: uint32(16384 + len(d.tables)), cols: cols, rows: rows, key: map[any]int{}}
		t.reindex()
		d.tables[name] = t
	}
	int4 := func(n string) column { return column{n, pgtype.Int4OID} }
	text := func(n string) column { return column{n, pgtype.TextOID} }
	var acc [][]any
	for i := range accounts {
		acc = append(acc, []any{int32(i + 1), int32(1), int32(0), "account " + strconv.Itoa(i+1)})
	}
	add("pgbench_accounts", []column{int4("aid"), int4("bid"), int4("abalance"), text("filler")}, acc)
	add("pgbench_branches", []column{int4("bid"), int4("bbalance"), text("filler")}, [][]any{{int32(1), int32(0), "branch 1"}})
	var tellers [][]any
	for i := range 10 {
		tellers = append(tellers, []any{int32(i + 1), int32(1), int32(0), "teller"})
	}
	add("pgbench_tellers", []column{int4("tid"), int4("bid"), int4("tbalance"), text("filler")}, tellers)
	add("pgbench_history", []column{{"hid", pgtype.Int8OID}, int4("tid"), int4("bid"), int4("aid"), int4("delta"), {"mtime", pgtype.TimestamptzOID}, text("filler")}, nil)
	created := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	add("items", []column{{"id", pgtype.Int8OID}, text("name"), {"price", pgtype.Float8OID}, {"created", pgtype.TimestamptzOID}}, [][]any{
		{int64(1), "pencil", 1.5, created},
		{int64(2), "eraser", 0.75, created.Add(time.Hour)},
		{int64(3), "ruler", nil, created.Add(2 * time.Hour)},
	})
	return d
}

// txState is a session's transaction: the undo log of its writes.
type txState struct {
	undo []func()
}

// Parse implements server.Handler.
func (d *db) Parse(ctx context.Context, c *server.Conn, sql string, paramTypes []uint32) ([]server.Statement, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	if c.State == nil {
		c.State = &txState{}
	}
	var stmts []server.Statement
	for _, st := range split(toks) {
		p := &planner{parser: parser{toks: st}, db: d, conn: c, params: slices.Clone(paramTypes)}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		if p.pos < len(p.toks) {
			return nil, p.unexpected()
		}
		if !p.endsTx {
			if c.TxStatus == 'E' {
				return nil, errAborted
			}
			run := s.Run
			s.Run = func(ctx context.Context, q *server.Query) error {
				if q.Conn().TxStatus == 'E' {
					return errAborted
				}
				return run(ctx, q)
			}
		}
		s.Params = p.params
		for i, oid := range s.Params {
			if oid == 0 {
				s.Params[i] = pgtype.TextOID // as PostgreSQL does for an unknown used as text
			}
		}
		stmts = append(stmts, s)
	}
	return stmts, nil
}

// planner turns one statement's tokens into a server.Statement.
type planner struct {
	parser
	db     *db
	conn   *server.Conn
	params []uint32 // the type of each $n seen, growing as they appear
	endsTx bool     // COMMIT or ROLLBACK: allowed in a failed transaction
}

// errAborted is any statement but COMMIT and ROLLBACK in a failed transaction block.
var errAborted = session.ServerError("ERROR", "25P02", "current transaction is aborted, commands ignored until end of transaction block", "")

// operand is a value in a statement: a literal, a parameter ($n), or a
// column (col + operand in UPDATE … SET).
type operand struct {
	param int // 1-based; 0 for a literal
	lit   any
	now   bool // CURRENT_TIMESTAMP / now()
}

// value reads an operand of type oid.
func (p *planner) value(oid uint32) (operand, error) {
	t := p.next()
	switch {
	case t.kind == '$':
		n, err := strconv.Atoi(t.text[1:])
		if err != nil || n < 1 || n > 65535 {
			return operand{}, syntaxError(fmt.Sprintf("syntax error at or near %q", t.text))
		}
		for len(p.params) < n {
			p.params = append(p.params, 0)
		}
		if p.params[n-1] == 0 {
			p.params[n-1] = oid
		}
		return operand{param: n}, nil
	case t.kind == 'i' && t.text == "null":
		return operand{}, nil
	case t.kind == 'i' && (t.text == "current_timestamp" || t.text == "now"):
		if t.text == "now" && (p.expect("(") != nil || p.expect(")") != nil) {
			return operand{}, p.unexpected()
		}
		return operand{now: true}, nil
	case t.kind == '-' && p.peek().kind == 'n':
		t = p.next()
		t.text = "-" + t.text
		fallthrough
	case t.kind == 'n' || t.kind == 's' || t.kind == 'i' && (t.text == "true" || t.text == "false"):
		v, err := parseValue(p.conn.TypeMap(), oid, 0, []byte(t.text))
		if err != nil {
			return operand{}, err
		}
		return operand{lit: v}, nil
	}
	p.pos--
	return operand{}, p.unexpected()
}

// parseValue decodes src of type oid into the Go value the tables hold.
func parseValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	var err error
	var v any
	switch oid {
	case pgtype.Int4OID:
		v, err = scanAs[int32](m, oid, format, src)
	case pgtype.Int8OID:
		v, err = scanAs[int64](m, oid, format, src)
	case pgtype.Float8OID:
		v, err = scanAs[float64](m, oid, format, src)
	case pgtype.BoolOID:
		v, err = scanAs[bool](m, oid, format, src)
	case pgtype.TimestamptzOID:
		v, err = scanAs[time.Time](m, oid, format, src)
	default:
		v, err = scanAs[string](m, pgtype.TextOID, format, src)
	}
	if err != nil {
		return nil, session.ServerError("ERROR", "22P02", fmt.Sprintf("invalid input syntax for type %s: %q", typeName(m, oid), src), "")
	}
	return v, nil
}

func scanAs[T any](m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	var x T
	err := m.Scan(oid, format, src, &x)
	return x, err
}

func typeName(m *pgtype.Map, oid uint32) string {
	if t, ok := m.TypeForOID(oid); ok {
		return t.Name
	}
	return "oid " + strconv.FormatUint(uint64(oid), 10)
}

// valueKeyword is whether a keyword is a value, not a column name.
func valueKeyword(k string) bool {
	switch k {
	case "null", "true", "false", "current_timestamp", "now":
		return true
	}
	return false
}

// eval is an operand's value in a query.
func eval(q *server.Query, oid uint32, o operand) (any, error) {
	switch {
	case o.now:
		return time.Now().UTC(), nil
	case o.param > 0:
		return parseValue(q.Conn().TypeMap(), oid, q.Formats[o.param-1], q.Args[o.param-1])
	}
	return o.lit, nil
}

func equal(a, b any) bool {
	switch a := a.(type) {
	case time.Time:
		b, ok := b.(time.Time)
		return ok && a.Equal(b)
	case nil:
		return false // NULL equals nothing
	}
	return a == b
}

func (p *planner) statement() (server.Statement, error) {
	switch t := p.next(); t.text {
	case "select":
		if s, ok := p.partitionInfo(); ok {
			return s, nil
		}
		return p.selectStmt()
	case "vacuum":
		return p.vacuum()
	case "truncate":
		return p.truncate()
	case "insert":
		return p.insert()
	case "update":
		return p.update()
	case "delete":
		return p.delete()
	case "copy":
		return p.copyStmt()
	case "begin", "start":
		p.is("transaction")
		p.is("work")
		return p.txStmt("BEGIN"), nil
	case "commit", "end":
		p.is("transaction")
		p.is("work")
		p.endsTx = true
		return p.txStmt("COMMIT"), nil
	case "rollback", "abort":
		p.is("transaction")
		p.is("work")
		p.endsTx = true
		return p.txStmt("ROLLBACK"), nil
	case "set":
		p.is("session")
		if _, err := p.ident(); err != nil {
			return server.Statement{}, err
		}
		if !p.is("=") && !p.is("to") {
			return server.Statement{}, p.unexpected()
		}
		for p.pos < len(p.toks) {
			p.next()
		}
		return tagged("SET"), nil
	}
	p.pos--
	return server.Statement{}, p.unexpected()
}

// tagged is a statement that only reports tag.
func tagged(tag string) server.Statement {
	return server.Statement{Run: func(ctx context.Context, q *server.Query) error {
		q.SetTag(tag)
		return nil
	}}
}

func (p *planner) txStmt(verb string) server.Statement {
	return server.Statement{Run: func(ctx context.Context, q *server.Query) error {
		c := q.Conn()
		tx := c.State.(*txState)
		tag := verb
		switch {
		case verb == "BEGIN" && c.TxStatus != 'I':
			return q.Notice(session.ServerError("WARNING", "25001", "there is already a transaction in progress", ""))
		case verb != "BEGIN" && c.TxStatus == 'I':
			q.SetTag(verb)
			return q.Notice(session.ServerError("WARNING", "25P01", "there is no transaction in progress", ""))
		case verb == "BEGIN":
			c.TxStatus = 'T'
		case verb == "ROLLBACK" || c.TxStatus == 'E':
			tx.rollback()
			tag = "ROLLBACK"
			fallthrough
		default:
			tx.undo = tx.undo[:0]
			c.TxStatus = 'I'
		}
		q.SetTag(tag)
		return nil
	}}
}

// logUndo records how to undo a write to t, for ROLLBACK or a failed
// implicit transaction; the undo runs under t.mu.
func logUndo(q *server.Query, t *table, undo func()) {
	tx := q.Conn().State.(*txState)
	tx.undo = append(tx.undo, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		undo()
	})
}

// rollback undoes the transaction's writes, newest first.
func (tx *txState) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		tx.undo[i]()
	}
	tx.undo = tx.undo[:0]
}

// EndImplicit implements server.ImplicitTransactions: a failed implicit
// transaction is undone, a successful one kept.
func (d *db) EndImplicit(c *server.Conn, failed bool) {
	tx, ok := c.State.(*txState)
	if !ok {
		return
	}
	if failed {
		tx.rollback()
	}
	tx.undo = tx.undo[:0]
}

func (p *planner) table() (*table, error) {
	name, err := p.name()
	if err != nil {
		return nil, err
	}
	t, ok := p.db.tables[name]
	if !ok {
		return nil, session.ServerError("ERROR", "42P01", fmt.Sprintf("relation %q does not exist", name), "")
	}
	return t, nil
}

// cond is WHERE col = operand; col < 0 means no WHERE.
type cond struct {
	col int
	val operand
}

func (p *planner) where(t *table) (cond, error) {
	if !p.is("where") {
		return cond{col: -1}, nil
	}
	name, err := p.ident()
	if err != nil {
		return cond{}, err
	}
	col, err := t.col(name)
	if err != nil {
		return cond{}, err
	}
	if err := p.expect("="); err != nil {
		return cond{}, err
	}
	v, err := p.value(t.cols[col].oid)
	return cond{col, v}, err
}

// match calls f with the index of each row cond selects, under t.mu.
func (t *table) match(q *server.Query, w cond, f func(i int) error) error {
	if w.col < 0 {
		for i := range t.rows {
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	want, err := eval(q, t.cols[w.col].oid, w.val)
	if err != nil {
		return err
	}
	if w.col == 0 {
		if i, ok := t.key[want]; ok {
			return f(i)
		}
		return nil
	}
	for i, r := range t.rows {
		if equal(r[w.col], want) {
			if err := f(i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *planner) selectStmt() (server.Statement, error) {
	// SELECT without FROM: values, and pg_sleep(seconds).
	if p.is("pg_sleep") {
		if err := p.expect("("); err != nil {
			return server.Statement{}, err
		}
		secs, err := p.value(pgtype.Float8OID)
		if err != nil {
			return server.Statement{}, err
		}
		if err := p.expect(")"); err != nil {
			return server.Statement{}, err
		}
		return server.Statement{Columns: []server.Column{{Name: "pg_sleep", OID: pgtype.TextOID}}, Run: func(ctx context.Context, q *server.Query) error {
			v, err := eval(q, pgtype.Float8OID, secs)
			if err != nil {
				return err
			}
			d, _ := v.(float64)
			select {
			case <-time.After(time.Duration(d * float64(time.Second))):
			case <-ctx.Done():
				return ctx.Err()
			}
			return q.Row("")
		}}, nil
	}
	var count bool
	var names []string
	switch {
	case p.is("*"):
	case p.is("count"):
		if p.expect("(") != nil || p.expect("*") != nil || p.expect(")") != nil {
			return server.Statement{}, p.unexpected()
		}
		count = true
	default:
		if t := p.peek(); t.kind != 'i' && t.kind != 'q' || t.kind == 'i' && valueKeyword(t.text) {
			return p.selectValues()
		}
		if err := p.commaList(func() error {
			n, err := p.ident()
			names = append(names, n)
			return err
		}); err != nil {
			return server.Statement{}, err
		}
	}
	if err := p.expect("from"); err != nil {
		return server.Statement{}, err
	}
	t, err := p.table()
	if err != nil {
		return server.Statement{}, err
	}
	var idx []int
	if names == nil && !count {
		for i := range t.cols {
			idx = append(idx, i)
		}
	}
	for _, n := range names {
		i, err := t.col(n)
		if err != nil {
			return server.Statement{}, err
		}
		idx = append(idx, i)
	}
	w, err := p.where(t)
	if err != nil {
		return server.Statement{}, err
	}
	limit := -1
	if p.is("limit") {
		n, err := strconv.Atoi(p.next().text)
		if err != nil || n < 0 {
			return server.Statement{}, syntaxError("LIMIT must be a non-negative integer")
		}
		limit = n
	}
	if count {
		return server.Statement{Columns: []server.Column{{Name: "count", OID: pgtype.Int8OID}}, Run: func(ctx context.Context, q *server.Query) error {
			t.mu.RLock()
			n := int64(0)
			err := t.match(q, w, func(int) error { n++; return nil })
			t.mu.RUnlock()
			if err != nil {
				return err
			}
			return q.Row(n)
		}}, nil
	}
	cols := make([]server.Column, len(idx))
	for i, c := range idx {
		cols[i] = server.Column{Name: t.cols[c].name, OID: t.cols[c].oid, TableOID: t.oid, Attribute: int16(c + 1)}
	}
	return server.Statement{Columns: cols, Run: func(ctx context.Context, q *server.Query) error {
		// Rows are copied out under the lock, then sent: a suspended
		// portal must not hold it.
		t.mu.RLock()
		var rows [][]any
		err := t.match(q, w, func(i int) error {
			if limit < 0 || len(rows) < limit {
				row := make([]any, len(idx))
				for j, c := range idx {
					row[j] = t.rows[i][c]
				}
				rows = append(rows, row)
			}
			return nil
		})
		t.mu.RUnlock()
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := q.Row(r...); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

// selectValues is SELECT value, … without a table: literals and
// parameters, each a column named ?column? as in PostgreSQL.
func (p *planner) selectValues() (server.Statement, error) {
	var vals []operand
	var cols []server.Column
	err := p.commaList(func() error {
		oid := uint32(pgtype.TextOID)
		switch t := p.peek(); {
		case t.kind == 'n' || t.kind == '-':
			oid = pgtype.Int4OID
			if strings.Contains(t.text, ".") {
				oid = pgtype.Float8OID
			} else if n, err := strconv.ParseInt(t.text, 10, 64); err == nil && int64(int32(n)) != n {
				oid = pgtype.Int8OID
			}
		case t.kind == 'i' && (t.text == "true" || t.text == "false"):
			oid = pgtype.BoolOID
		case t.kind == 'i' && (t.text == "current_timestamp" || t.text == "now"):
			oid = pgtype.TimestamptzOID
		case t.kind == '$':
			if n, err := strconv.Atoi(t.text[1:]); err == nil && n <= len(p.params) && p.params[n-1] != 0 {
				oid = p.params[n-1]
			}
		}
		v, err := p.value(oid)
		if err != nil {
			return err
		}
		name := "?column?"
		if p.is("as") {
			if name, err = p.ident(); err != nil {
				return err
			}
		}
		vals = append(vals, v)
		cols = append(cols, server.Column{Name: name, OID: oid})
		return nil
	})
	if err != nil {
		return server.Statement{}, err
	}
	return server.Statement{Columns: cols, Run: func(ctx context.Context, q *server.Query) error {
		row := make([]any, len(vals))
		for i, v := range vals {
			var err error
			if row[i], err = eval(q, cols[i].OID, v); err != nil {
				return err
			}
		}
		return q.Row(row...)
	}}, nil
}

// columnList reads an optional (col, …) list; none means every column.
func (p *planner) columnList(t *table) ([]int, error) {
	var idx []int
	if !p.is("(") {
		for i := range t.cols {
			idx = append(idx, i)
		}
		return idx, nil
	}
	err := p.commaList(func() error {
		n, err := p.ident()
		if err != nil {
			return err
		}
		i, err := t.col(n)
		idx = append(idx, i)
		return err
	})
	if err != nil {
		return nil, err
	}
	return idx, p.expect(")")
}

// tableColumns reads a table name and its optional column list.
func (p *planner) tableColumns() (*table, []int, error) {
	t, err := p.table()
	if err != nil {
		return nil, nil, err
	}
	idx, err := p.columnList(t)
	return t, idx, err
}

// insertRow adds a row whose columns idx hold vals (the others NULL); the
// caller holds t.mu.
func (t *table) insertRow(q *server.Query, idx []int, vals []any) error {
	row := make([]any, len(t.cols))
	for i, c := range idx {
		row[c] = vals[i]
	}
	if row[0] == nil {
		return session.ServerError("ERROR", "23502", fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", t.cols[0].name, t.name), "")
	}
	if _, dup := t.key[row[0]]; dup {
		return session.ServerError("ERROR", "23505", fmt.Sprintf("duplicate key value violates unique constraint %q", t.name+"_pkey"), fmt.Sprintf("Key (%s)=(%v) already exists.", t.cols[0].name, row[0]))
	}
	t.key[row[0]] = len(t.rows)
	t.rows = append(t.rows, row)
	logUndo(q, t, func() { t.remove(row[0]) })
	return nil
}

// remove deletes the row with key k; the caller holds t.mu.
func (t *table) remove(k any) {
	if i, ok := t.key[k]; ok {
		t.rows = slices.Delete(t.rows, i, i+1)
		t.reindex()
	}
}

func (p *planner) insert() (server.Statement, error) {
	if err := p.expect("into"); err != nil {
		return server.Statement{}, err
	}
	t, idx, err := p.tableColumns()
	if err != nil {
		return server.Statement{}, err
	}
	if err := p.expect("values"); err != nil {
		return server.Statement{}, err
	}
	var rows [][]operand
	err = p.commaList(func() error {
		if err := p.expect("("); err != nil {
			return err
		}
		var row []operand
		err := p.commaList(func() error {
			if len(row) == len(idx) {
				return session.ServerError("ERROR", "42601", "INSERT has more expressions than target columns", "")
			}
			v, err := p.value(t.cols[idx[len(row)]].oid)
			row = append(row, v)
			return err
		})
		rows = append(rows, row)
		if err != nil {
			return err
		}
		return p.expect(")")
	})
	if err != nil {
		return server.Statement{}, err
	}
	if t.name == "pgbench_history" {
		idx = append([]int{0}, idx...) // hid is generated
	}
	return writing(t, func(q *server.Query) error {
		for _, r := range rows {
			vals := make([]any, 0, len(idx))
			if t.name == "pgbench_history" {
				vals = append(vals, int64(len(t.rows)+1))
			}
			for i, o := range r {
				v, err := eval(q, t.cols[idx[len(idx)-len(r)+i]].oid, o)
				if err != nil {
					return err
				}
				vals = append(vals, v)
			}
			if err := t.insertRow(q, idx, vals); err != nil {
				return err
			}
		}
		q.SetTag("INSERT 0 " + strconv.Itoa(len(rows)))
		return nil
	}), nil
}

// assign is SET col = [col +|-] operand.
type assign struct {
	col  int
	add  int // +1 or -1 for col ± value, 0 for a plain value
	val  operand
	base int // the column added to
}

func (p *planner) update() (server.Statement, error) {
	t, err := p.table()
	if err != nil {
		return server.Statement{}, err
	}
	if err := p.expect("set"); err != nil {
		return server.Statement{}, err
	}
	var sets []assign
	err = p.commaList(func() error {
		n, err := p.ident()
		if err != nil {
			return err
		}
		a := assign{}
		if a.col, err = t.col(n); err != nil {
			return err
		}
		if a.col == 0 {
			return session.ServerError("ERROR", "0A000", fmt.Sprintf("the example cannot update the key column %q", n), "")
		}
		if err := p.expect("="); err != nil {
			return err
		}
		if tk := p.peek(); tk.kind == 'i' && !valueKeyword(tk.text) {
			p.next()
			if a.base, err = t.col(tk.text); err != nil {
				return err
			}
			switch {
			case p.is("+"):
				a.add = 1
			case p.is("-"):
				a.add = -1
			default:
				return p.unexpected()
			}
		}
		a.val, err = p.value(t.cols[a.col].oid)
		sets = append(sets, a)
		return err
	})
	if err != nil {
		return server.Statement{}, err
	}
	w, err := p.where(t)
	if err != nil {
		return server.Statement{}, err
	}
	return writing(t, func(q *server.Query) error {
		n := 0
		err := t.match(q, w, func(i int) error {
			row := t.rows[i]
			old := slices.Clone(row)
			for _, a := range sets {
				v, err := eval(q, t.cols[a.col].oid, a.val)
				if err != nil {
					return err
				}
				if a.add != 0 {
					if v, err = arith(row[a.base], v, a.add); err != nil {
						return err
					}
				}
				row[a.col] = v
			}
			logUndo(q, t, func() { copy(row, old) })
			n++
			return nil
		})
		q.SetTag("UPDATE " + strconv.Itoa(n))
		return err
	}), nil
}

// writing is a statement that changes t, run under its lock.
func writing(t *table, run func(q *server.Query) error) server.Statement {
	return server.Statement{Run: func(ctx context.Context, q *server.Query) error {
		t.mu.Lock()
		defer t.mu.Unlock()
		return run(q)
	}}
}

// arith is a + sign*b for the integer and float types.
func arith(a, b any, sign int) (any, error) {
	switch a := a.(type) {
	case int32:
		if b, ok := b.(int32); ok {
			return a + int32(sign)*b, nil
		}
	case int64:
		if b, ok := b.(int64); ok {
			return a + int64(sign)*b, nil
		}
	case float64:
		if b, ok := b.(float64); ok {
			return a + float64(sign)*b, nil
		}
	case nil:
		return nil, nil
	}
	return nil, session.ServerError("ERROR", "42883", fmt.Sprintf("operator does not exist: %T + %T", a, b), "")
}

func (p *planner) delete() (server.Statement, error) {
	if err := p.expect("from"); err != nil {
		return server.Statement{}, err
	}
	t, err := p.table()
	if err != nil {
		return server.Statement{}, err
	}
	w, err := p.where(t)
	if err != nil {
		return server.Statement{}, err
	}
	return writing(t, func(q *server.Query) error {
		var gone [][]any
		if err := t.match(q, w, func(i int) error { gone = append(gone, t.rows[i]); return nil }); err != nil {
			return err
		}
		for _, r := range gone {
			t.remove(r[0])
			logUndo(q, t, func() {
				t.key[r[0]] = len(t.rows)
				t.rows = append(t.rows, r)
			})
		}
		q.SetTag("DELETE " + strconv.Itoa(len(gone)))
		return nil
	}), nil
}
