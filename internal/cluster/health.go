package cluster

import (
	"context"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// ProbeEvery is how often a degraded node tries the store again, so that
// it is ready again soon after the store is.
const ProbeEvery = 200 * time.Millisecond

// reapLockTTL is how long a reaper's lock holds off the others; a reaper
// that dies leaves the lock to lapse.
const reapLockTTL = time.Minute

// The node's link to the store follows the rules of link.go. The store
// counts as unreachable when a call finds it gone, or when it leaves the
// heartbeat unanswered for SlowReply; one slow reply to another call only
// has the heartbeat run at once. While unreachable the node beats every
// ProbeEvery.

// healthLoop beats every heartbeat period while the store answers, at once
// when a call went unanswered, and every ProbeEvery while it does not.
func (n *Node) healthLoop() {
	beat := time.NewTicker(n.Period())
	defer beat.Stop()
	probe := time.NewTicker(ProbeEvery)
	defer probe.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-beat.C:
		case <-n.link.Suspects():
		case <-probe.C:
			if n.link.Healthy.Load() {
				continue
			}
		}
		n.heartbeat()
	}
}

// heartbeat refreshes this node's heartbeat, whose value is the node's
// epoch. When it was missing (the store lost it, or the node was taken for
// dead) or the store may lack some of the node's changes, the node writes
// its shares again and takes a new epoch, which tells the others to check
// what their clients were told. Then it looks at the other nodes.
func (n *Node) heartbeat() {
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.SlowReply)
	defer cancel()
	missing, err := n.beat(ctx)
	if err != nil {
		n.Down(err)
		return
	}
	n.up()
	if missing || n.link.Dirty.Load() {
		if err := n.resync(); err != nil {
			n.log.Warn("cluster state not written again", "err", err)
			return
		}
		if _, err := n.beat(ctx); err != nil {
			n.Down(err)
			return
		}
		n.stale.Store(true) // the keys written again may have no expiry
	}
	n.refreshSoon()
	n.lookAround(ctx)
}

func (n *Node) beat(ctx context.Context) (missing bool, err error) {
	return n.store.Beat(ctx, strconv.FormatUint(n.epoch.Load(), 10))
}

// lookAround reaps the nodes whose heartbeat has lapsed, once this node
// has been connected long enough to tell, and has the node's clients
// checked when another node has written its shares again or was reaped.
func (n *Node) lookAround(ctx context.Context) {
	alive, listed, err := n.store.Nodes(ctx)
	if err != nil {
		n.link.Suspect()
		return
	}
	n.tally.setPeers(alive)
	for _, id := range listed {
		if _, ok := alive[id]; !ok && id != n.id && n.settled(n.cfg.NodeTTL) {
			n.reapIfDead(id)
		}
	}
	if n.link.Epochs(alive, listed, n.id) {
		n.reconcileSoon()
	}
}

// reapIfDead removes a dead node's shares, if this node is the first to
// take the reaping lock, announcing the members and users that vanish
// with it.
func (n *Node) reapIfDead(id string) {
	ctx, cancel := context.WithTimeout(n.ctx, n.Period())
	defer cancel()
	if !n.store.Lock(ctx, id, reapLockTTL) {
		return
	}
	if alive, err := n.store.Alive(ctx, id); err != nil || alive {
		n.store.Forget(ctx, id, false)
		return
	}
	departed, err := n.takeOutbox(ctx, id)
	if err != nil {
		n.log.Warn("dead node's webhook outbox not taken over; the lock lapses and a node tries again", "node", id, "err", err)
		return
	}
	n.log.Warn("node stopped heartbeating; removing its members", "node", id)
	gone, err := n.store.Reap(ctx, id)
	gone.Removed = append(departed, gone.Removed...) // they left before the node died
	n.announceReaped(gone)
	n.reconcileSoon() // counts left above zero changed too
	if err != nil {
		n.log.Warn("dead node not fully removed; the lock lapses and a node tries again", "node", id, "err", err)
		return
	}
	n.store.Forget(ctx, id, true)
}

// announceReaped reports what vanished with a dead node, in the order the
// store removed it: counts, members, users.
func (n *Node) announceReaped(gone Reaped) {
	for _, k := range gone.Vacated {
		n.cfg.Observer.ChannelVacated(k.App, k.Name)
	}
	for _, d := range gone.Removed {
		n.Publish(hub.MemberRemoved(d.App, d.Channel, d.User))
		n.cfg.Observer.MemberRemoved(d.App, d.Channel, d.User)
	}
	for _, u := range gone.Offline {
		n.Publish(hub.Watchlist(u.App, u.Name, false))
	}
}

// RecordTTL is how long the records a store keeps of the nodes (the node
// list, each node's index of its shares) outlive the last heartbeat that
// refreshes them: a cluster restarted within it reaps its former nodes, and
// one stopped for good leaves no record behind for longer.
const RecordTTL = 24 * time.Hour
