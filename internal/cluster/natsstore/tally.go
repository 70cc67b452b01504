package natsstore

import "context"

// Each node's record of its connections per app is its key in the conns
// bucket, whose entries lapse ConnsTTL after their last write. They are
// read with one Get each, not by watching the bucket: a watcher costs a
// consumer, and the reads come every 100 ms.

// PostTally implements cluster.Tallies.
func (n *NATS) PostTally(ctx context.Context, record []byte) error {
	return n.do(func(b *buckets) error {
		_, err := b.conns.Put(ctx, n.node, record)
		return err
	})
}

// Tallies implements cluster.Tallies.
func (n *NATS) Tallies(ctx context.Context, nodes []string) (map[string][]byte, error) {
	return with(n, func(b *buckets) (map[string][]byte, error) {
		out := make(map[string][]byte, len(nodes))
		for _, id := range nodes {
			e, err := lookup(ctx, b.conns, id)
			if err != nil {
				return nil, err
			}
			if e != nil {
				out[id] = e.Value()
			}
		}
		return out, nil
	})
}
