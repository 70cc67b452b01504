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
// connections (apps[].max_client_events_per_sec). Apps are keyed by id, so
// the count of an app that a reload (SIGHUP) or the app store's refresh
// gives a new *config.App goes on: its connections made before and after
// count together, each against the limit it connected with. An app's
// counter exists once one of its connections has sent a client event, so
// it costs an idle connection nothing, and one that has counted nothing
// for sweepAfter seconds (an app removed, or quiet) is dropped when a new
// counter is made, at most once every sweepAfter seconds: a stale window
// holds nothing the next event needs.
type appRates struct {
	m         sync.Map // app id (string) -> *atomic.Uint64 holding a window, or swept
	lastSweep atomic.Int64
}

// swept marks a counter the sweep has dropped: an event that finds it
// counts on the app's new one.
const swept = ^uint64(0)

// sweepAfter is how many seconds a counter may count nothing before it is
// dropped, and how often the sweep runs.
const sweepAfter = 10

// allow counts one client event of app at second now and reports whether
// it is within the app's limit; zero is no limit.
func (r *appRates) allow(app *config.App, now int64) bool {
	limit := app.MaxClientEventsPerSec
	if limit <= 0 {
		return true
	}
	for {
		w := r.counter(app.ID, now)
		if allowed, ok := count(w, now, limit); ok {
			return allowed
		}
		r.m.CompareAndDelete(app.ID, w) // swept: the sweep may not have deleted it yet
	}
}

// counter returns app id's counter, making one (and sweeping) if it has
// none. Looking a string up does not allocate.
func (r *appRates) counter(id string, now int64) *atomic.Uint64 {
	if v, ok := r.m.Load(id); ok {
		return v.(*atomic.Uint64)
	}
	r.sweep(now)
	v, _ := r.m.LoadOrStore(id, new(atomic.Uint64))
	return v.(*atomic.Uint64)
}

// count counts one event at second now against limit on w; ok is false if
// w was swept (nothing counted).
func count(w *atomic.Uint64, now int64, limit int) (allowed, ok bool) {
	for {
		old := w.Load()
		if old == swept {
			return false, false
		}
		next, allowed := window(old).take(now, limit)
		if !allowed {
			return false, true
		}
		if w.CompareAndSwap(old, uint64(next)) {
			return true, true
		}
	}
}

// sweep drops the counters that have counted nothing for sweepAfter
// seconds, unless it ran less than sweepAfter seconds ago.
func (r *appRates) sweep(now int64) {
	last := r.lastSweep.Load()
	if now-last < sweepAfter || !r.lastSweep.CompareAndSwap(last, now) {
		return
	}
	r.m.Range(func(id, v any) bool {
		w := v.(*atomic.Uint64)
		old := w.Load()
		if old != swept && int32(uint32(now)-uint32(old>>32)) >= sweepAfter && w.CompareAndSwap(old, swept) {
			r.m.CompareAndDelete(id, w)
		}
		return true
	})
}
