package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
)

func TestServeUsage(t *testing.T) {
	wantFailures(t, 2, []usageCase{
		{[]string{"serve", "--lang", "fr"}, `pgspec serve: invalid value "fr" for flag -lang: unknown language "fr"`},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
	})
	wantFailures(t, 1, []usageCase{
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, "pgspec serve: listen tcp: address 99999: invalid port"},
		{[]string{"serve", "--spec", "/nonexistent"}, "--spec /nonexistent"},
	})
}

// serve answers until its context ends, then returns without error.
func TestServeStopsCleanly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	}()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Errorf("body %q", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v after its context ended", err)
	}
}
