package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/pgspec/pgspec/internal/site"
)

func init() {
	commands["serve"] = command{summary: "serve the matrix and a page per message and major over HTTP", run: runServe,
		more: "GET / (/zh/) is the matrix, /protocol/SLUG/?v=N[&against=M] (/zh/protocol/…) a message at major N compared with M, " +
			"/matrix.html the committed page, /matrix.json[?lang=zh] the matrix as data, /records/ the slugs and " +
			"/records/SLUG.json[?lang=zh][&major=N][&against=M] a record."}
}

func runServe(args []string, stdout, stderr io.Writer) int {
	c := newCLI("serve", stdout, stderr)
	dir := c.specFlag()
	addr := c.String("addr", "127.0.0.1:8080", "`address` to listen on (port 0 picks a free one)")
	lang := c.langFlag("`language` /matrix.html opens in: en or zh")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	h, err := readHistory(*dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	handler, err := site.New(h, *lang)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "serving http://%s/ (Ctrl-C or SIGTERM stops)\n", ln.Addr())
	if err := serve(ctx, ln, handler); err != nil {
		return c.fail(1, "%v", err)
	}
	return 0
}

// serve answers on ln until ctx ends, then lets requests in flight finish.
func serve(ctx context.Context, ln net.Listener, handler http.Handler) error {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
