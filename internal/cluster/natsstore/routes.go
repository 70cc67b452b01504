package natsstore

import (
	"context"
)

// Claim implements cluster.Routes: one key per session in the routes
// bucket, whose entries expire cluster.RouteTTL after their last write.
func (n *NATS) Claim(ctx context.Context, owner string, sessions []string) error {
	b, err := n.open()
	for _, s := range sessions {
		if err != nil {
			break
		}
		_, err = b.routes.PutString(ctx, token(s), owner)
	}
	return err
}

// Owner implements cluster.Routes.
func (n *NATS) Owner(ctx context.Context, session string) (string, error) {
	b, err := n.open()
	if err != nil {
		return "", err
	}
	e, err := lookup(ctx, b.routes, token(session))
	if e == nil {
		return "", err
	}
	return string(e.Value()), nil
}

// Unclaim implements cluster.Routes.
func (n *NATS) Unclaim(ctx context.Context, sessions ...string) {
	if b, err := n.open(); err == nil {
		for _, s := range sessions {
			b.routes.Purge(ctx, token(s))
		}
	}
}
