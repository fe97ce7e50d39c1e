// Command exampleserver serves a small in-memory database over
// PostgreSQL's protocol, on package codec/server: tables shaped like
// pgbench's (pgbench_accounts, _branches, _tellers, _history) and items,
// queried with a small subset of SQL (SELECT … FROM … WHERE col = …,
// INSERT, UPDATE … SET col = col + …, DELETE, TRUNCATE, VACUUM, COPY FROM
// STDIN / TO STDOUT, BEGIN/COMMIT/ROLLBACK, SET, pg_sleep, and the catalog
// query pgbench's built-in scripts send). psql, pgbench (its built-in -S
// too) and pgx talk to it as to PostgreSQL, over TCP or TLS.
//
//	exampleserver -listen 127.0.0.1:5433 [-tls-cert cert.pem -tls-key key.pem] [-accounts 100000]
//
// Every user logs in with SCRAM-SHA-256 (SCRAM-SHA-256-PLUS over TLS) and
// the password in $EXAMPLESERVER_PASSWORD, or without one (trust) when it
// is empty.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"

	"github.com/pgspec/pgspec/codec/server"
)

// scaleAccounts is pgbench_accounts' rows at pgbench's scale 1 (one
// branch), the range its built-in scripts draw an aid from.
const scaleAccounts = 100000

func main() {
	listen := flag.String("listen", "127.0.0.1:5433", "`host:port` to listen on")
	cert := flag.String("tls-cert", "", "TLS certificate `file` (PEM); with -tls-key, SSLRequest and direct TLS are accepted")
	key := flag.String("tls-key", "", "TLS key `file` (PEM)")
	accounts := flag.Int("accounts", scaleAccounts, "rows of pgbench_accounts (pgbench -S picks an aid up to 100000 per branch)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *listen, *cert, *key, *accounts, os.Getenv("EXAMPLESERVER_PASSWORD"), func(addr net.Addr) {
		fmt.Println("listening on", addr)
	}); err != nil {
		fmt.Fprintln(os.Stderr, "exampleserver:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends, calling ready once it listens.
func run(ctx context.Context, listen, certFile, keyFile string, accounts int, password string, ready func(net.Addr)) error {
	srv := &server.Server{Handler: newDB(accounts)}
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return err
		}
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	if password != "" {
		srv.Authenticate = func(*server.Startup) (server.Credential, error) {
			return server.Credential{Method: server.SCRAM, Password: password}, nil
		}
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	ready(l.Addr())
	return srv.Serve(ctx, l)
}
