package cluster

import (
	"context"
	"time"
)

// Routes are a store's records of which node holds each HTTP fallback
// session (package fallback): pusher-js sends a session's requests to any
// node behind a load balancer without sticky sessions, and the node that
// gets one it does not hold asks here where to forward it. A record is
// the node's own words, opaque to the store (its id and reachable
// address), and lapses RouteTTL after its last Claim, so that a node that
// died leaves none behind for long.
type Routes interface {
	// Claim records owner as the holder of each of sessions, or renews
	// the records.
	Claim(ctx context.Context, owner string, sessions []string) error
	// Owner returns the record of session; "" when there is none.
	Owner(ctx context.Context, session string) (string, error)
	// Unclaim removes the records of sessions that ended.
	Unclaim(ctx context.Context, sessions ...string)
}

// RouteTTL is how long a session's record lives after its last Claim: a
// node renews its records every RouteTTL/3.
const RouteTTL = time.Minute

// Claim implements Routes, through the node's store.
func (n *Node) Claim(ctx context.Context, owner string, sessions []string) error {
	if !n.link.Healthy.Load() {
		return ErrDown
	}
	return n.store.Claim(ctx, owner, sessions)
}

// Owner implements Routes, through the node's store.
func (n *Node) Owner(ctx context.Context, session string) (string, error) {
	if !n.link.Healthy.Load() {
		return "", ErrDown
	}
	return n.store.Owner(ctx, session)
}

// Unclaim implements Routes, through the node's store.
func (n *Node) Unclaim(ctx context.Context, sessions ...string) {
	if n.link.Healthy.Load() {
		n.store.Unclaim(ctx, sessions...)
	}
}
