package main

import (
	"context"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
)

// pgbench's built-in scripts (-b tpcb-like, -S, -N) read the catalog
// before they run: the scale from `select count(*) from pgbench_branches`,
// then whether pgbench_accounts is partitioned, with the query below
// (pgbench.c's GetTableInfo, PostgreSQL 13 and later), then, without -n,
// VACUUM pgbench_branches and pgbench_tellers and TRUNCATE pgbench_history.
// The example has no catalog tables and no general SQL: it knows this one
// query, token for token, with the relname literal free.
const partitionQuery = `select o.n, p.partstrat, pg_catalog.count(i.inhparent) ` +
	`from pg_catalog.pg_class as c ` +
	`join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) ` +
	`cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) ` +
	`left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) ` +
	`left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) ` +
	`where c.relname = 'pgbench_accounts' and o.n is not null group by 1, 2 order by 1 asc limit 1`

var partitionToks, _ = lex(partitionQuery)

// publicPosition is public's place in current_schemas(true): PostgreSQL
// puts pg_catalog first, and the example has no other schema.
const publicPosition = 2

// partitionInfo matches the statement (from its first token) against
// partitionQuery; its answer is PostgreSQL's for an unpartitioned table in
// public: one row (the schema's position, no strategy, 0 partitions), or no
// row when the table does not exist.
func (p *planner) partitionInfo() (server.Statement, bool) {
	if len(p.toks) != len(partitionToks) {
		return server.Statement{}, false
	}
	var relname string
	for i, t := range partitionToks {
		switch got := p.toks[i]; {
		case t.kind == 's' && got.kind == 's':
			relname = got.text
		case got != t:
			return server.Statement{}, false
		}
	}
	p.pos = len(p.toks)
	_, exists := p.db.tables[relname]
	cols := []server.Column{{Name: "n", OID: pgtype.Int4OID}, {Name: "partstrat", OID: pgtype.QCharOID}, {Name: "count", OID: pgtype.Int8OID}}
	return server.Statement{Columns: cols, Run: func(ctx context.Context, q *server.Query) error {
		if !exists {
			return nil
		}
		return q.Row(int32(publicPosition), nil, int64(0))
	}}, true
}

// vacuum is VACUUM table: nothing to reclaim in memory, but PostgreSQL's
// refusal inside a transaction block.
func (p *planner) vacuum() (server.Statement, error) {
	if _, err := p.table(); err != nil {
		return server.Statement{}, err
	}
	return server.Statement{Run: func(ctx context.Context, q *server.Query) error {
		if q.Conn().TxStatus != 'I' {
			return session.ServerError("ERROR", "25001", "VACUUM cannot run inside a transaction block", "")
		}
		q.SetTag("VACUUM")
		return nil
	}}, nil
}

// truncate is TRUNCATE [TABLE] table, undone by ROLLBACK as in PostgreSQL.
func (p *planner) truncate() (server.Statement, error) {
	p.is("table")
	t, err := p.table()
	if err != nil {
		return server.Statement{}, err
	}
	return writing(t, func(q *server.Query) error {
		rows := t.rows
		t.rows = nil
		t.reindex()
		logUndo(q, t, func() {
			t.rows = rows
			t.reindex()
		})
		q.SetTag("TRUNCATE TABLE")
		return nil
	}), nil
}
