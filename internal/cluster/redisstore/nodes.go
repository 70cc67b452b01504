package redisstore

import (
	"context"
	"strings"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// flushEvery is how often subscription-count changes are written to Redis.
const flushEvery = 100 * time.Millisecond

// reconcileEvery is how often, after an outage, the node checks what its
// presence subscribers have been told against the store.
const reconcileEvery = time.Second

// tickLoop flushes counts, and after an outage writes the counts again and
// runs the reconciliation rounds and the departures it deferred.
func (r *Redis) tickLoop() {
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	var lastRound time.Time
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-flush.C:
		}
		if r.counts.Dirty.Load() && r.link.Healthy.Load() {
			r.counts.resync()
		}
		r.counts.flush()
		if now := time.Now(); now.UnixNano() < r.until.Load() && now.Sub(lastRound) >= reconcileEvery {
			lastRound = now
			r.reconcileRound()
		}
		if r.settled(r.period()) {
			r.announceDepartures()
		}
	}
}

// reconcileSoon has the node check what its presence subscribers were told
// for the next rounds, and on until it may announce departures.
func (r *Redis) reconcileSoon() {
	until := time.Now().Add(2 * reconcileEvery).UnixNano()
	if rec := r.link.Recovered.Load(); rec > 0 {
		until = max(until, time.Unix(0, rec).Add(r.period()+2*reconcileEvery).UnixNano())
	}
	for {
		old := r.until.Load()
		if old >= until || r.until.CompareAndSwap(old, until) {
			return
		}
	}
}

// reconcileRound checks once; departures only once settled (see package linkstate).
func (r *Redis) reconcileRound() {
	if r.cfg.Reconcile == nil || !r.link.Healthy.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.period())
	defer cancel()
	r.cfg.Reconcile(ctx, r.settled(r.period()))
}

func (r *Redis) reapIfDead(node string) {
	ctx, cancel := context.WithTimeout(r.ctx, r.period())
	defer cancel()
	r.call(ctx, func(ctx context.Context) error {
		alive, err := r.rdb.Exists(ctx, r.nodeKey("node", node)).Result()
		if err != nil || alive > 0 {
			return err
		}
		got, err := r.rdb.SetNX(ctx, r.nodeKey("reap", node), r.node, time.Minute).Result()
		if err != nil || !got {
			return err
		}
		r.log.Warn("node stopped heartbeating; removing its members", "node", node)
		if err := r.reap(ctx, node); err != nil {
			return err
		}
		return r.rdb.SRem(ctx, r.nodeKey("nodes"), node).Err()
	})
}

// reap removes a dead node's shares, announcing members and users that
// vanish with it. Counts go first: a client told member_removed then finds
// the counts without the dead node's subscriptions.
func (r *Redis) reap(ctx context.Context, node string) error {
	for _, app := range r.cfg.Apps {
		vacated, err := reapScript.Run(ctx, r.rdb, []string{r.channelsKey(app)}, node).StringSlice()
		if err != nil {
			return err
		}
		for _, channel := range vacated {
			r.cfg.Observer.ChannelVacated(app, channel)
		}
	}
	chans, err := r.rdb.SMembers(ctx, r.nodeKey("node-presence", node)).Result()
	if err != nil {
		return err
	}
	for _, ac := range chans {
		app, channel, _ := strings.Cut(ac, ":")
		gone, err := reapScript.Run(ctx, r.rdb, []string{r.presenceKey(app, channel)}, node).StringSlice()
		if err != nil {
			return err
		}
		for _, u := range gone {
			r.Publish(hub.MemberRemoved(app, channel, u))
			r.cfg.Observer.MemberRemoved(app, channel, u)
		}
	}
	for _, app := range r.cfg.Apps {
		gone, err := reapScript.Run(ctx, r.rdb, []string{r.usersKey(app)}, node).StringSlice()
		for _, u := range gone {
			r.Publish(hub.Watchlist(app, u, false))
		}
		if err != nil {
			return err
		}
	}
	return r.rdb.Del(ctx, r.nodeKey("node-presence", node)).Err()
}
