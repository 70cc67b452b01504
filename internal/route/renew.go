package route

import (
	"context"
	"time"

	"github.com/roostproject/roost/internal/cluster"
)

// tick is how often ended sessions' records are removed; every
// cluster.RouteTTL/3 the records of the sessions held are renewed too.
const tick = 5 * time.Second

// renew runs until Close, removing ended sessions' records and renewing
// the others'.
func (r *Router) renew() {
	defer close(r.done)
	t := time.NewTicker(tick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-r.stop:
			r.flush(false)
			return
		case now := <-t.C:
			due := now.Sub(last) >= cluster.RouteTTL/3
			if due {
				last = now
			}
			r.flush(due)
		}
	}
}

// flush removes the records of the sessions that ended and, if renew, makes
// those of the sessions held live cluster.RouteTTL again.
func (r *Router) flush(renew bool) {
	r.mu.Lock()
	gone := r.gone
	r.gone = nil
	var held []string
	if renew {
		held = make([]string, 0, len(r.held))
		for k := range r.held {
			held = append(held, k)
		}
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), tick)
	defer cancel()
	if len(gone) > 0 {
		r.cfg.Routes.Unclaim(ctx, gone...)
	}
	if self := r.self.Load(); len(held) > 0 && self != nil {
		if err := r.cfg.Routes.Claim(ctx, *self, held); err != nil && !cluster.Unreachable(err) {
			r.cfg.Logger.Warn("renewing fallback sessions' records in the cluster's store", "err", err, "sessions", len(held))
		}
	}
}
