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
	"time"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/internal/site"
	"github.com/pgspec/pgspec/spec"
)

func init() {
	commands["serve"] = command{"serve the matrix page, its JSON and the export records over HTTP", runServe}
}

func runServe(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("serve", stderr)
	dir := specDirFlag(fl)
	addr := fl.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	langFlag := fl.String("lang", "en", "language the page opens in: en or zh")
	if err := parseFlags(fl, args, 0); err != nil {
		return 2
	}
	lang, err := matrix.ParseLang(*langFlag)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec serve: %v\n", err)
		return 2
	}
	specs, err := spec.LoadAll(os.DirFS(*dir))
	if err != nil {
		fmt.Fprintf(stderr, "pgspec serve: %s: %v\n", *dir, err)
		return 1
	}
	layout, err := modelLayout(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec serve: %v\n", err)
		return 1
	}
	handler, err := site.New(specs, layout, lang)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec serve: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "pgspec serve: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(stdout, "serving http://%s/ (Ctrl-C stops)\n", ln.Addr())
	if err := serve(ctx, ln, handler); err != nil {
		fmt.Fprintf(stderr, "pgspec serve: %v\n", err)
		return 1
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
