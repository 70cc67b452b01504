package cluster

import (
	"context"
	"time"

	"github.com/roostproject/roost/internal/webhook"
)

// Webhook events are reported once per cluster: a channel's 0 -> 1 and
// 1 -> 0 come from the store's write that changes its cluster-wide count
// (counts.flush, or counts.resync when the node writes all its counts
// again), a member's from the presence change (through the hub), and the
// members and channels of a dead node from the survivor that reaps it.
// Delayed events (channel_vacated, member_removed) are held in the store,
// so that a comeback on any node cancels them.

// WebhookPending returns the cluster's record of delayed webhook events (a
// webhook.Pending): one key per event, so that whichever node sees the
// comeback cancels it.
func (n *Node) WebhookPending() *Pending { return &Pending{n} }

// Pending keeps delayed webhook events in the store. While the store is
// unreachable it errs towards sending: nothing is cancelled and every held
// event is due (the ops are marked Unanswered).
type Pending struct{ n *Node }

var _ webhook.Pending = (*Pending)(nil)

// Apply implements webhook.Pending.
func (p *Pending) Apply(ops []webhook.Op) {
	if !p.n.link.Healthy.Load() {
		TowardsSending(ops)
		return
	}
	ctx, cancel := context.WithTimeout(p.n.ctx, p.n.cfg.SlowReply)
	defer cancel()
	p.n.store.Hold(ctx, ops)
}

// TowardsSending answers ops as a store that cannot be asked does: no
// event was cancelled, and every held one is due; each is marked
// Unanswered.
func TowardsSending(ops []webhook.Op) {
	for i := range ops {
		ops[i].Found, ops[i].Unanswered = ops[i].Kind == webhook.OpTake, true
	}
}

// holdDeparture writes (webhook.OpHold) or removes (webhook.OpCancel) the
// hold in the store of a member's departure the node defers (see
// Departures.Hold). The hold has no timer behind it: it only has the
// member's comeback on any node cancel its member_added, until the node
// announces the departure (and holds its member_removed as its own) or
// finds the member back and removes it; it lapses on its own after
// departureHoldTTL. The departure is recorded in the node's outbox while
// held, for the node's reaper (see takeDepartures).
func (n *Node) holdDeparture(ctx context.Context, kind webhook.OpKind, app, channel, user string) {
	op := webhook.Op{Kind: kind, Key: webhook.RemovedKey(app, channel, user), Token: deferredToken(n.id), TTL: n.departureHoldTTL()}
	n.store.Hold(ctx, []webhook.Op{op})
	n.recordDeparture(ctx, Departure{app, channel, user}, kind == webhook.OpHold)
}

// departureHoldTTL outlasts the time a node defers a departure for: an
// outage's end and the heartbeat period after it.
func (n *Node) departureHoldTTL() time.Duration { return 2*n.cfg.NodeTTL + time.Minute }
