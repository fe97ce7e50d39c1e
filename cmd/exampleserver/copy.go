package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/codec/server"
	"github.com/pgspec/pgspec/codec/session"
)

// maxCopy bounds what one COPY FROM STDIN may hold in memory.
const maxCopy = 64 << 20

// copyStmt is COPY table [(cols)] FROM STDIN | TO STDOUT [[WITH] BINARY |
// (FORMAT text|binary)].
func (p *planner) copyStmt() (server.Statement, error) {
	t, idx, err := p.tableColumns()
	if err != nil {
		return server.Statement{}, err
	}
	in := p.is("from")
	if !in && !p.is("to") {
		return server.Statement{}, p.unexpected()
	}
	if !in && !p.is("stdout") || in && !p.is("stdin") {
		return server.Statement{}, session.ServerError("ERROR", "0A000", "the example copies only FROM STDIN and TO STDOUT", "")
	}
	p.is("with")
	binary := p.is("binary")
	if !binary && p.is("(") {
		if err := p.expect("format"); err != nil {
			return server.Statement{}, err
		}
		switch p.next().text {
		case "binary":
			binary = true
		case "text":
		default:
			return server.Statement{}, session.ServerError("ERROR", "0A000", "COPY format must be text or binary", "")
		}
		if err := p.expect(")"); err != nil {
			return server.Statement{}, err
		}
	}
	format := int16(0)
	if binary {
		format = 1
	}
	formats := make([]int16, len(idx))
	for i := range formats {
		formats[i] = format
	}
	if in {
		return server.Statement{Run: func(ctx context.Context, q *server.Query) error {
			if err := q.CopyIn(uint8(format), formats); err != nil {
				return err
			}
			var data []byte
			for {
				chunk, err := q.ReadCopy()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				if len(data)+len(chunk) > maxCopy {
					return session.ServerError("ERROR", "54000", fmt.Sprintf("the example copies at most %d bytes at once", maxCopy), "")
				}
				data = append(data, chunk...)
			}
			rows, err := decodeCopy(q, t, idx, data, binary)
			if err != nil {
				return err
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			for _, r := range rows {
				if err := t.insertRow(q, idx, r); err != nil {
					return err
				}
			}
			q.SetTag("COPY " + strconv.Itoa(len(rows)))
			return nil
		}}, nil
	}
	return server.Statement{Run: func(ctx context.Context, q *server.Query) error {
		if err := q.CopyOut(uint8(format), formats); err != nil {
			return err
		}
		if binary {
			return session.ServerError("ERROR", "0A000", "the example copies out in text only", "")
		}
		t.mu.RLock()
		var lines [][]byte
		for _, r := range t.rows {
			var line []byte
			for j, c := range idx {
				if j > 0 {
					line = append(line, '\t')
				}
				if r[c] == nil {
					line = append(line, `\N`...)
					continue
				}
				var err error
				if line, err = q.Conn().TypeMap().Encode(t.cols[c].oid, 0, r[c], line); err != nil {
					t.mu.RUnlock()
					return err
				}
			}
			lines = append(lines, append(line, '\n'))
		}
		t.mu.RUnlock()
		for _, l := range lines {
			if err := q.WriteCopy(l); err != nil {
				return err
			}
		}
		q.SetTag("COPY " + strconv.Itoa(len(lines)))
		return nil
	}}, nil
}

var copySignature = []byte("PGCOPY\n\377\r\n\x00")

// decodeCopy reads COPY data in text or binary format into rows of the
// columns idx.
func decodeCopy(q *server.Query, t *table, idx []int, data []byte, binary bool) ([][]any, error) {
	bad := func(format string, args ...any) error {
		return session.ServerError("ERROR", "22P04", "COPY data: "+fmt.Sprintf(format, args...), "")
	}
	m := q.Conn().TypeMap()
	var rows [][]any
	if !binary {
		for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if line == `\.` || line == "" && len(data) == 0 {
				break
			}
			fields := strings.Split(line, "\t")
			if len(fields) != len(idx) {
				return nil, bad("line %d has %d columns, want %d", n+1, len(fields), len(idx))
			}
			row := make([]any, len(idx))
			for i, f := range fields {
				if f == `\N` {
					continue
				}
				v, err := parseValue(m, t.cols[idx[i]].oid, 0, []byte(unescapeCopy(f)))
				if err != nil {
					return nil, err
				}
				row[i] = v
			}
			rows = append(rows, row)
		}
		return rows, nil
	}
	if !bytes.HasPrefix(data, copySignature) || len(data) < len(copySignature)+8 {
		return nil, bad("missing binary COPY signature")
	}
	r := data[len(copySignature)+4:]
	ext := int(binary32(r))
	if ext < 0 || 4+ext > len(r) {
		return nil, bad("bad header extension length")
	}
	r = r[4+ext:]
	// The trailer (-1) is optional: the data may end at a row, as in PostgreSQL.
	for len(r) > 0 {
		if len(r) < 2 {
			return nil, bad("truncated at byte %d", len(data)-len(r))
		}
		n := int(int16(binaryBE.Uint16(r)))
		r = r[2:]
		if n == -1 {
			break
		}
		if n != len(idx) {
			return nil, bad("a row of %d columns, want %d", n, len(idx))
		}
		row := make([]any, n)
		for i := range n {
			if len(r) < 4 {
				return nil, bad("truncated at byte %d", len(data)-len(r))
			}
			l := int(binary32(r))
			r = r[4:]
			if l == -1 {
				continue
			}
			if l < 0 || l > len(r) {
				return nil, bad("a value of %d bytes at byte %d", l, len(data)-len(r))
			}
			v, err := parseValue(m, t.cols[idx[i]].oid, 1, r[:l])
			if err != nil {
				return nil, err
			}
			row[i], r = v, r[l:]
		}
		rows = append(rows, row)
	}
	if len(r) != 0 {
		return nil, errors.New("COPY data after the trailer")
	}
	return rows, nil
}

var binaryBE = binary.BigEndian

func binary32(b []byte) int32 { return int32(binaryBE.Uint32(b)) }

// unescapeCopy undoes COPY text format's backslash escapes.
func unescapeCopy(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r").Replace(s)
}
