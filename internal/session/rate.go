package session

import (
	"sync"
	"sync/atomic"

	"github.com/roostproject/roost/internal/config"
)

// window counts events in the current second, packed in eight bytes with no
// pointer so that it costs an idle connection nothing to scan: the low 32
// bits of the Unix second in the high half, the count in the low half.
type window uint64

// take counts one event at second now against limit and returns the window
// after it; an event over the limit is refused and not counted.
func (w window) take(now int64, limit int) (window, bool) {
	sec := uint64(uint32(now))
	switch {
	case uint64(w)>>32 != sec:
		return window(sec<<32 | 1), limit > 0
	case uint64(uint32(w)) >= uint64(limit):
		return w, false
	}
	return w + 1, true
}

// appRates counts each app's client events on this node, across all its
// connections (apps[].max_client_events_per_sec). An app's counter exists
// once one of its connections has sent a client event, so it costs an idle
// connection nothing. Apps are keyed by their *config.App; a pointer key
// does not allocate. A reload (SIGHUP) gives every configured app, and the
// app store's refresh every row it reads again, a new *config.App, whose
// count starts afresh for the connections made after it (those made
// before count on the old one); the old entry stays, a few bytes each.
type appRates struct {
	m sync.Map // *config.App -> *atomic.Uint64 holding a window
}

// allow counts one client event of app at second now and reports whether
// it is within the app's limit; zero is no limit.
func (r *appRates) allow(app *config.App, now int64) bool {
	limit := app.MaxClientEventsPerSec
	if limit <= 0 {
		return true
	}
	v, ok := r.m.Load(app)
	if !ok {
		v, _ = r.m.LoadOrStore(app, new(atomic.Uint64))
	}
	w := v.(*atomic.Uint64)
	for {
		old := w.Load()
		next, ok := window(old).take(now, limit)
		if !ok {
			return false
		}
		if w.CompareAndSwap(old, uint64(next)) {
			return true
		}
	}
}
