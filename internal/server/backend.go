package server

import (
	"context"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/config"
)

// Backend is what a cluster's store keeps under the cluster's prefix (its
// Redis keys or NATS buckets), for a tool that started the cluster and
// removes what it left once its nodes are gone (roost bench cluster).
type Backend struct {
	b      *cluster.Backend
	prefix string
}

// ClusterBackend returns the backend that cfg's nodes share; nil for a
// single node.
func ClusterBackend(cfg config.Config) *Backend {
	if b, prefix := clusterBackend(&cfg); b != nil {
		return &Backend{b: b, prefix: prefix}
	}
	return nil
}

// Kept lists the keys or buckets under the cluster's prefix.
func (b *Backend) Kept(ctx context.Context) ([]string, error) {
	return b.b.Kept(ctx, b.b.URL, b.prefix)
}

// Purge deletes them. Only call it when no node of the cluster runs.
func (b *Backend) Purge(ctx context.Context) error { return b.b.Purge(ctx, b.b.URL, b.prefix) }
