package cluster

// This file holds the store's part of the durable webhook outbox
// (docs/webhooks.md, "Durable on a cluster"): each node keeps the webhook
// events it has not delivered yet in the store, under its own id, and the
// node that reaps a dead node takes over what that node left there before
// it removes the node's shares, so that the dead node's events go out
// before the ones its death causes. The outbox also holds the node's
// departures held in the store (deferred.go).

import (
	"context"
	"fmt"

	"github.com/roostproject/roost/internal/webhook"
)

// Outbox is a store's record of each node's undelivered webhook events.
// The entries are opaque to the store; their keys are unique in a node's
// outbox, and order it: entries are returned sorted by key.
type Outbox interface {
	// OutboxWrite stores puts and then removes dels (keys) in node's
	// outbox, in that order; removing a key that is not there is no error.
	OutboxWrite(ctx context.Context, node string, puts []webhook.Entry, dels []string) error
	// OutboxRead returns node's entries, sorted by key.
	OutboxRead(ctx context.Context, node string) ([]webhook.Entry, error)
	// OutboxClear removes node's outbox.
	OutboxClear(ctx context.Context, node string) error
}

// WebhookOutbox returns this node's outbox in the store, for the webhooks
// (webhook.Outbox). While the store counts as unreachable it writes
// nothing and says so, and the webhooks keep the writes until it is back.
func (n *Node) WebhookOutbox() webhook.Outbox { return outbox{n} }

type outbox struct{ n *Node }

var _ webhook.Outbox = outbox{}

// Write implements webhook.Outbox.
func (o outbox) Write(ctx context.Context, puts []webhook.Entry, dels []string) error {
	if !o.n.link.Healthy.Load() {
		return ErrDown
	}
	return o.n.store.OutboxWrite(ctx, o.n.id, puts, dels)
}

// takeOutbox hands a dead node's undelivered webhook events to this
// node's webhooks (Settings.Adopt), which write them into this node's
// outbox, and then removes the dead node's; it returns the dead node's
// held departures to announce (see takeDepartures). An error leaves the
// dead node's outbox where it is, for the next reaper.
func (n *Node) takeOutbox(ctx context.Context, dead string) ([]Departure, error) {
	entries, err := n.store.OutboxRead(ctx, dead)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	events, keys, held := splitDepartures(entries)
	gone, err := n.takeDepartures(ctx, dead, held)
	if err != nil {
		return nil, fmt.Errorf("taking the %d deferred departures: %w", len(held), err)
	}
	if n.cfg.Adopt == nil && len(events) > 0 {
		return gone, n.dropDepartures(ctx, dead, keys)
	}
	if err := n.adopt(ctx, dead, events); err != nil {
		return nil, err
	}
	return gone, n.store.OutboxClear(ctx, dead)
}

// dropDepartures removes the dead node's departure records alone: its
// webhook events stay, as this node takes none over.
func (n *Node) dropDepartures(ctx context.Context, dead string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	return n.store.OutboxWrite(ctx, dead, nil, keys)
}

// adopt hands a dead node's webhook events to Settings.Adopt.
func (n *Node) adopt(ctx context.Context, dead string, events []webhook.Entry) error {
	if len(events) == 0 {
		return nil
	}
	if err := n.cfg.Adopt(ctx, events); err != nil {
		return fmt.Errorf("writing the %d webhook events taken over: %w", len(events), err)
	}
	n.log.Warn("took over a dead node's undelivered webhook events", "node", dead, "events", len(events))
	return nil
}
