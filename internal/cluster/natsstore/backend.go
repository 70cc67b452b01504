package natsstore

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// Backend is the NATS that url names: "nats://[user:password@]host:port",
// several comma-separated for a NATS cluster, or "tls://..." (TLS), with
// JetStream enabled.
func Backend(url string) cluster.Backend {
	return cluster.StoreBackend(url, open, Kept, Purge)
}

// Post implements cluster.Board: one key per node in the dashboard bucket.
func (n *NATS) Post(ctx context.Context, node string, v []byte) error {
	return n.do(func(b *buckets) error {
		_, err := b.dashboard.Put(ctx, token(node), v)
		return err
	})
}

// Entries implements cluster.Board.
func (n *NATS) Entries(ctx context.Context) (map[string][]byte, error) {
	return with(n, func(b *buckets) (map[string][]byte, error) {
		out := make(map[string][]byte)
		err := scanRaw(ctx, b.dashboard, ">", func(k string, v []byte) {
			if node, ok := untoken(k); ok {
				out[node] = v
			}
		})
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			err = nil
		}
		return out, err
	})
}

// Unpost implements cluster.Board.
func (n *NATS) Unpost(ctx context.Context, nodes ...string) {
	if b, err := n.open(); err == nil {
		for _, node := range nodes {
			b.dashboard.Delete(ctx, token(node))
		}
	}
}
