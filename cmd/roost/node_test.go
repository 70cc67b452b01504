package main

import (
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/server"
	"github.com/roostproject/roost/internal/servertest"
)

// serveInProcess starts a node with cfg until the test ends.
func serveInProcess(t *testing.T, cfg config.Config) (*server.Server, string) {
	t.Helper()
	return servertest.Start(t, cfg)
}
