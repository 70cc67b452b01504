package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/roostproject/roost/internal/bench"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/server"
)

// backendStore reads the cluster's backend from the flags that every node
// of `roost bench cluster` gets, as `roost serve` reads them, so that the
// bench can remove what its nodes leave under the prefix. Nil means the
// flags name no shared backend.
func backendStore(backend []string) (bench.BackendStore, error) {
	fs := flag.NewFlagSet("backend", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	path := fs.String("config", "", "")
	flags := config.RegisterFlags(fs)
	if err := fs.Parse(backend); err != nil {
		return nil, fmt.Errorf("--backend: %w", err)
	}
	cfg, err := config.Load(*path, os.Environ(), flags)
	if err != nil {
		return nil, fmt.Errorf("--backend: %w", err)
	}
	if b := server.ClusterBackend(cfg); b != nil {
		return b, nil
	}
	return nil, nil
}
