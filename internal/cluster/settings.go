package cluster

// This file holds the settings a cluster node takes whichever store
// links it to the others (Redis or NATS), and their defaults.

import (
	"context"
	"log/slog"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/webhook"
)

// Settings are a cluster node's settings beside the store's URL.
type Settings struct {
	// Prefix starts every key, topic, subject and bucket name, so clusters
	// can share one store (on NATS: letters, digits, '_' and '-'). It is
	// required: its default is the configuration's (redis.prefix,
	// nats.prefix).
	Prefix string
	// Node is this node's id: the first part of its socket_ids.
	Node uint64
	// Apps are the ids of every app (to clean up after a dead node).
	Apps []string
	// Deliver hands a message to this node's subscribers (hub.Deliver).
	Deliver func(*hub.Message)
	// Reconcile corrects what this node's presence subscribers have been
	// told against the store (hub.Reconcile); the node calls it after an
	// outage. Nil means never.
	Reconcile func(ctx context.Context, removals bool)
	// NodeTTL is how long a node's heartbeat lives: a node silent this long
	// is taken for dead. It is refreshed every NodeTTL/3, the heartbeat
	// period. Zero value means 15s.
	NodeTTL time.Duration
	// SlowReply is how long the store may take to answer one call; on
	// Redis, a node whose heartbeat or probe waits longer counts Redis
	// unreachable, and a slower reply to another call only fails it. Zero
	// value means 3s.
	SlowReply time.Duration
	// Outbox is how many outbound messages may wait while the store is
	// slow or away; more are dropped and counted. Zero value means 65536.
	Outbox int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Observer is told of the cluster-wide transitions only the cluster
	// sees: channels occupied and vacated, and the members of a dead node
	// removed. Zero value (nil) means nobody.
	Observer hub.Observer
	// Adopt takes over a dead node's undelivered webhook events (its
	// outbox entries, in order) and returns once they are in this node's
	// outbox (webhook.Webhooks.Adopt). Zero value (nil) means no node
	// keeps an outbox.
	Adopt func(ctx context.Context, entries []webhook.Entry) error
}

// ApplyDefaults fills in the zero values that stand for a default.
func (s *Settings) ApplyDefaults() {
	if s.NodeTTL <= 0 {
		s.NodeTTL = 15 * time.Second
	}
	if s.SlowReply <= 0 {
		s.SlowReply = 3 * time.Second
	}
	if s.Outbox <= 0 {
		s.Outbox = 65536
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	if s.Observer == nil {
		s.Observer = hub.NopObserver{}
	}
}
