package apps

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// refreshBatch is how many ids one refresh query asks for.
const refreshBatch = 500

// refreshLoop reads every cached app again each cfg.Refresh until Close.
// It starts with a ping, so /ready tells at once whether the database is
// there.
func (s *DB) refreshLoop() {
	defer s.wg.Done()
	s.refresh()
	t := time.NewTicker(s.cfg.Refresh)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.refresh()
			s.refreshes.Add(1)
		}
	}
}

// refresh reads the cached apps again: changed rows replace their apps,
// deleted rows drop theirs, and an app switched off has its connections
// closed. With nothing cached it pings, so /ready still tells whether the
// database is there. If the database is down the cache is kept as it is.
func (s *DB) refresh() {
	s.forgetUnknown(false)
	ids := s.cachedIDs()
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Refresh)
	defer cancel()
	if len(ids) == 0 {
		s.ping(ctx)
		return
	}
	for len(ids) > 0 {
		n := min(len(ids), refreshBatch)
		if s.reload(ctx, ids[:n]) != nil {
			return
		}
		ids = ids[n:]
	}
}

// reload reads the apps with the given ids again and drops those whose row
// is gone.
func (s *DB) reload(ctx context.Context, ids []string) error {
	q := fmt.Sprintf("SELECT * FROM %s WHERE %s IN (%s)", s.table, s.d.ident(colID), s.d.params(1, len(ids)))
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	seen := make(map[string]bool, len(ids))
	err := s.query(ctx, q, args, func(a config.App, err error) {
		seen[a.ID] = true
		s.put(a, err)
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !seen[id] {
			s.remove(id)
		}
	}
	return nil
}

// ping checks the database answers.
func (s *DB) ping(ctx context.Context) {
	if err := s.db.PingContext(ctx); err != nil {
		s.health.fail(err)
		return
	}
	s.health.ok()
}

// health is whether the database answered its last query, with the
// outage's log lines rate-limited to one per logEvery.
type health struct {
	log        *slog.Logger
	mu         sync.Mutex
	err        error
	lastLog    time.Time
	suppressed int
}

// logEvery spaces the log lines of an outage.
const logEvery = 10 * time.Second

// fail records a failed query.
func (h *health) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.err = err
	if now := time.Now(); now.Sub(h.lastLog) >= logEvery {
		h.log.Warn("app store unreachable: cached apps are served, apps not cached cannot be looked up until it is back",
			"err", err, "failures_since_last_line", h.suppressed)
		h.lastLog, h.suppressed = now, 0
		return
	}
	h.suppressed++
}

// ok records a query that succeeded, logging the end of an outage.
func (h *health) ok() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		h.log.Info("app store reachable again")
		h.err, h.lastLog, h.suppressed = nil, time.Time{}, 0
	}
}

// get returns the outage's error, or nil.
func (h *health) get() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return errors.New("app store unreachable")
	}
	return nil
}
