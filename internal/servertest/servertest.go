// Package servertest runs a roost server inside a test's process, for the
// tests of the packages above internal/server (the command, the deployment
// files) that need a whole node without building a binary.
package servertest

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/server"
)

// Start serves cfg (its Addr as given: 127.0.0.1:0 for a free port) until
// the test ends, and returns the server and the address it listens on. A
// failed shutdown fails the test.
func Start(t testing.TB, cfg config.Config) (*server.Server, string) {
	t.Helper()
	srv, err := server.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return srv, ln.Addr().String()
}
