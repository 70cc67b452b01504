package server

import (
	"context"

	"github.com/roostproject/roost/internal/cluster/natsstore"
	"github.com/roostproject/roost/internal/cluster/redisstore"
	"github.com/roostproject/roost/internal/config"
)

// Backend is what a cluster's backend keeps under the cluster's prefix
// (its Redis keys or NATS buckets), for a tool that started the cluster
// and removes what it left once its nodes are gone (roost bench cluster).
type Backend struct {
	redis bool
	url   string
	pre   string
}

// ClusterBackend returns the backend that cfg's nodes share; nil for a
// single node.
func ClusterBackend(cfg config.Config) *Backend {
	switch {
	case cfg.Redis.URL != "":
		return &Backend{redis: true, url: cfg.Redis.URL, pre: cfg.Redis.Prefix}
	case cfg.NATS.URL != "":
		return &Backend{url: cfg.NATS.URL, pre: cfg.NATS.Prefix}
	}
	return nil
}

// Kept lists the keys or buckets under the cluster's prefix.
func (b *Backend) Kept(ctx context.Context) ([]string, error) {
	if b.redis {
		return redisstore.Kept(ctx, b.url, b.pre)
	}
	return natsstore.Kept(ctx, b.url, b.pre)
}

// Purge deletes them. Only call it when no node of the cluster runs.
func (b *Backend) Purge(ctx context.Context) error {
	if b.redis {
		return redisstore.Purge(ctx, b.url, b.pre)
	}
	return natsstore.Purge(ctx, b.url, b.pre)
}
