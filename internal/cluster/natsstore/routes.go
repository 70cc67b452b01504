package natsstore

import (
	"context"
)

// Claim implements cluster.Routes: one key per session in the routes
// bucket, whose entries expire cluster.RouteTTL after their last write.
func (n *NATS) Claim(ctx context.Context, owner string, sessions []string) error {
	return n.do(func(b *buckets) (err error) {
		for i := 0; err == nil && i < len(sessions); i++ {
			_, err = b.routes.PutString(ctx, token(sessions[i]), owner)
		}
		return err
	})
}

// Owner implements cluster.Routes.
func (n *NATS) Owner(ctx context.Context, session string) (string, error) {
	return with(n, func(b *buckets) (string, error) {
		e, err := lookup(ctx, b.routes, token(session))
		if e == nil {
			return "", err
		}
		return string(e.Value()), nil
	})
}

// Unclaim implements cluster.Routes.
func (n *NATS) Unclaim(ctx context.Context, sessions ...string) {
	if b, err := n.open(); err == nil {
		for _, s := range sessions {
			b.routes.Purge(ctx, token(s))
		}
	}
}
