// Command exampleclient is the client that issue 14 measured, written on
// package codec and codec/session only: it logs in (SCRAM-SHA-256 when the
// server asks for it), reads 100,000 rows, runs an extended query with
// parameters and follows a pgoutput stream (protocol version 2, streaming
// on) of rows it inserts itself — a small transaction and one large enough
// to be streamed — replying to keepalives. Its pgconn + pglogrepl
// counterpart takes 148 lines; a test keeps this file's code shorter.
//
//	PGPASSWORD=… exampleclient -addr 127.0.0.1:5432 -user repl_user -db app
//
// The user needs the REPLICATION attribute and CREATE in the database. The
// password comes from $PGPASSWORD only: a command line is visible to every
// user of the machine.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5432", "server `host:port`")
	var cfg session.Config
	flag.StringVar(&cfg.User, "user", os.Getenv("USER"), "user `name`")
	flag.StringVar(&cfg.Database, "db", "postgres", "`database`")
	flag.Parse()
	cfg.Password = os.Getenv("PGPASSWORD")
	if err := run(*addr, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "exampleclient:", err)
		os.Exit(1)
	}
}

// dial opens a session; the caller closes the connection.
func dial(addr string, cfg session.Config) (*session.Conn, net.Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	c := session.NewConn(nc)
	if err := c.Startup(cfg); err != nil {
		nc.Close()
		return nil, nil, err
	}
	return c, nc, nil
}

func run(addr string, cfg session.Config, out io.Writer) error {
	c, nc, err := dial(addr, cfg)
	if err != nil {
		return err
	}
	defer nc.Close()
	fmt.Fprintf(out, "PostgreSQL %d, %s, protocol %s\n", c.P.Major, c.AuthMethod, c.Protocol)

	rows, sum := 0, 0
	err = c.Exec("select g from generate_series(1, 100000) g", func(m codec.Message) error {
		row, ok := m.(*codec.DataRow)
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(string(row.Values[0]))
		rows, sum = rows+1, sum+n
		return err
	})
	fmt.Fprintf(out, "%d rows, sum %d, %v\n", rows, sum, err)

	err = c.Send(&codec.Parse{Query: "select $1::int * $2::int"},
		&codec.Bind{Parameters: [][]byte{[]byte("6"), []byte("7")}}, &codec.Execute{}, &codec.Sync{})
	if err == nil {
		_, err = c.ReadUntilReady(func(m codec.Message) error {
			if row, ok := m.(*codec.DataRow); ok {
				fmt.Fprintf(out, "6 * 7 = %s\n", row.Values[0])
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	return follow(addr, cfg, c, out)
}

// follow inserts three rows into a table of its own, then 5,000 in a
// transaction that outgrows logical_decoding_work_mem, and reads them back
// from a temporary logical replication slot: the large one arrives
// streamed, between Stream Start and Stream Stop, each change with its xid.
func follow(addr string, cfg session.Config, c *session.Conn, out io.Writer) error {
	name := "exampleclient_" + strconv.Itoa(os.Getpid())
	if err := c.Exec("create table "+name+" (id int primary key, note text); create publication "+name+" for table "+name, nil); err != nil {
		return err
	}
	defer c.Exec("drop publication "+name+"; drop table "+name, nil)
	cfg.Params = map[string]string{"replication": "database", "options": "-c logical_decoding_work_mem=64kB"}
	repl, nc, err := dial(addr, cfg)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := repl.Exec("CREATE_REPLICATION_SLOT "+name+" TEMPORARY LOGICAL pgoutput", nil); err != nil {
		return err
	}
	for _, rows := range []string{"1, 3", "4, 5003"} {
		if err := c.Exec("insert into "+name+" select g, 'row ' || g from generate_series("+rows+") g", nil); err != nil {
			return err
		}
	}
	if err := repl.StartReplication("START_REPLICATION SLOT " + name + " LOGICAL 0/0 (proto_version '2', publication_names '" + name + "', streaming 'on')"); err != nil {
		return err
	}
	relations := map[uint32]*codec.LogicalRelation{}
	var flushed session.LSN // the end of the last transaction received
	streamed := 0           // inserts decoded with their xid
	for commits := 0; commits < 2; {
		s, err := repl.ReceiveStep() // the CopyData's XLogData and the pgoutput message inside
		if err != nil {
			return err
		}
		if s.Sub == nil {
			return fmt.Errorf("replication stream: %s", s.Msg.Slug())
		}
		if k, ok := s.Sub.(*codec.PrimaryKeepalive); ok && k.ReplyRequested == 1 {
			err = repl.SendCopyData(session.StandbyStatus(flushed, flushed, flushed, time.Now(), false))
		}
		switch lm := s.Logical.(type) {
		case *codec.LogicalRelation:
			relations[lm.RelationOID] = lm.Clone() // kept beyond the next Decode
		case *codec.LogicalInsert:
			rel, cols := relations[lm.RelationOID], lm.New.Columns
			if lm.Xid != 0 {
				streamed++
				break
			}
			fmt.Fprintf(out, "insert into %s: %s=%s %s=%s\n", rel.RelationName, rel.Columns[0].Name, cols[0].Data, rel.Columns[1].Name, cols[1].Data)
		case *codec.LogicalCommit:
			commits, flushed = commits+1, session.LSN(lm.TransactionEndLSN)
		case *codec.LogicalStreamCommit:
			commits, flushed = commits+1, session.LSN(lm.TransactionEndLSN)
			fmt.Fprintf(out, "streamed transaction: %d inserts\n", streamed)
		}
		if err != nil {
			return err
		}
	}
	return errors.Join(repl.SendCopyData(session.StandbyStatus(flushed, flushed, flushed, time.Now(), false)), repl.Terminate())
}
