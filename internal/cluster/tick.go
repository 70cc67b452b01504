package cluster

import (
	"context"
	"time"

	"github.com/roostproject/roost/internal/webhook"
)

// flushEvery is how often subscription-count changes are written.
const flushEvery = 100 * time.Millisecond

// reconcileEvery is how often, after an outage, the node checks what its
// presence subscribers have been told against the store.
const reconcileEvery = time.Second

// tickLoop flushes counts, and after an outage writes the counts again and
// runs the reconciliation rounds and the departures it deferred.
func (n *Node) tickLoop() {
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	var lastRound time.Time
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-flush.C:
		}
		if n.counts.Dirty.Load() && n.link.Healthy.Load() {
			n.counts.resync()
		}
		n.counts.flush()
		if now := time.Now(); now.UnixNano() < n.until.Load() && now.Sub(lastRound) >= reconcileEvery {
			lastRound = now
			n.reconcileRound()
		}
		if n.settled(n.Period()) {
			n.announceDepartures()
		}
	}
}

// reconcileSoon has the node check what its presence subscribers were told
// for the next rounds, and on until it may announce departures.
func (n *Node) reconcileSoon() {
	until := time.Now().Add(2 * reconcileEvery).UnixNano()
	if rec := n.link.Recovered.Load(); rec > 0 {
		until = max(until, time.Unix(0, rec).Add(n.Period()+2*reconcileEvery).UnixNano())
	}
	for {
		old := n.until.Load()
		if old >= until || n.until.CompareAndSwap(old, until) {
			return
		}
	}
}

// reconcileRound checks once; departures only once settled (see link.go).
func (n *Node) reconcileRound() {
	if n.cfg.Reconcile == nil || !n.link.Healthy.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, n.Period())
	defer cancel()
	n.cfg.Reconcile(ctx, n.settled(n.Period()))
}

// announceDepartures announces the departures the node deferred (see
// departures.go) that the store confirms.
func (n *Node) announceDepartures() {
	n.deferred.Announce(n.ctx, n.Period(), Announcer{
		Member: func(ctx context.Context, g Departure) (bool, error) {
			switch {
			case !n.link.Healthy.Load():
				return false, ErrDown
			case g.Channel == "":
				on, err := n.store.Online(ctx, g.App, []string{g.User})
				return len(on) > 0, err
			}
			return n.store.IsMember(ctx, g.App, g.Channel, g.User)
		},
		Publish:  n.Publish,
		Observer: n.cfg.Observer,
		Unhold: func(ctx context.Context, d Departure) {
			n.holdDeparture(ctx, webhook.OpCancel, d.App, d.Channel, d.User)
		},
		Announced: func(ctx context.Context, d Departure) { n.recordDeparture(ctx, d, false) },
	})
}
