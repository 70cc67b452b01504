package webhook

import (
	"sync"
	"sync/atomic"
	"time"
)

// budget is the bytes one app's events may take in its queues, shared by
// the queues of its URLs.
type budget struct {
	used atomic.Int64
	max  int64
}

// item is one queued event: its JSON, the channel that orders it, and when
// it was queued (Unix nanoseconds, 8 bytes where a time.Time takes 24).
// Every Pusher webhook event names a channel (a member's, its presence
// channel); an event without one would be ordered with the others without
// one, under the empty name.
type item struct {
	ev  []byte
	ch  string
	at  int64
	seq uint64 // the event's number on this node: its id and outbox key
	id  string // its id, when it came with one (taken over from a dead node)
}

// queue is one URL's events not yet in a request, in order, encoded. push
// comes from the intake goroutine, take and the rest from the URL's
// sender; each holds mu only for slice and map operations.
//
// Events of a channel that is busy (in a request, or waiting to retry one)
// cannot be sent until that request is done, so take moves them aside into
// held, by channel, in order; the rest go on. When the request is done, the
// channel's held events go first (see free), then its later ones.
type queue struct {
	mu    sync.Mutex
	items []item             // events not looked at yet, in order
	held  map[string][]item  // events moved aside behind their busy channel, in order
	order []string           // channels in the order they got held events; may name stale ones
	ready []string           // channels freed with held events, to be taken first
	wake  chan struct{}      // a push signals the sender
	units map[*unit]struct{} // the requests of this URL not yet done (for oldest)

	budget  *budget
	stats   *counters
	journal **journal // the Webhooks' outbox journal, set by Start; nil inside on a single node
}

func newQueue(b *budget, c *counters, j **journal) *queue {
	return &queue{wake: make(chan struct{}, 1), held: make(map[string][]item), units: make(map[*unit]struct{}),
		budget: b, stats: c, journal: j}
}

// pushItem appends e; while the app is over its budget, the
// oldest events of this queue are dropped and counted (ev itself, if it is
// the only one): those held behind a busy channel first, since they are
// older than any not looked at.
func (q *queue) pushItem(e item) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.budget.used.Add(int64(len(e.ev)))
	q.stats.queued.Add(1)
	for q.budget.used.Load() > q.budget.max && q.dropOldest(DropQueueFull) {
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// dropOldest drops one event, the front of the channel held longest or
// else the oldest not looked at; false means there was none. q.mu is held.
func (q *queue) dropOldest(reason int) bool {
	for len(q.order) > 0 {
		ch := q.order[0]
		if h := q.held[ch]; len(h) > 0 {
			q.forget(h[:1], reason)
			q.setHeld(ch, h[1:])
			return true
		}
		q.order = q.order[1:]
	}
	if len(q.items) == 0 {
		return false
	}
	q.forget(q.items[:1], reason)
	q.items = q.items[1:]
	return true
}

// forget gives the bytes and queue places of events back, counting them as
// dropped for reason. q.mu is held. Their outbox records go too, but for a
// shutdown's: the node that reaps this one sends those.
func (q *queue) forget(events []item, reason int) {
	for _, e := range events {
		q.budget.used.Add(-int64(len(e.ev)))
	}
	if reason != DropShutdown {
		q.unjournal(events)
	}
	q.stats.queued.Add(-int64(len(events)))
	q.stats.dropped[reason].Add(int64(len(events)))
	clear(events)
}

// setHeld stores ch's held events, deleting the entry when there are none,
// so that a channel costs nothing once its backlog is gone. q.mu is held.
func (q *queue) setHeld(ch string, h []item) {
	if len(h) == 0 {
		delete(q.held, ch)
		return
	}
	q.held[ch] = h
}

// hold moves e aside behind its busy channel. q.mu is held.
func (q *queue) hold(e item) {
	h, ok := q.held[e.ch]
	if !ok {
		q.order = append(q.order, e.ch)
		if len(q.order) > 2*len(q.held)+16 {
			q.compactOrder()
		}
	}
	q.held[e.ch] = append(h, e)
}

// compactOrder removes from order the channels with nothing held, and
// repeats. q.mu is held.
func (q *queue) compactOrder() {
	seen := make(map[string]bool, len(q.held))
	kept := q.order[:0]
	for _, ch := range q.order {
		if _, ok := q.held[ch]; ok && !seen[ch] {
			seen[ch] = true
			kept = append(kept, ch)
		}
	}
	clear(q.order[len(kept):])
	q.order = kept
}

// waiting returns how many events there are to take, held ones of freed
// channels included, counting no further than max, and when the oldest of
// them was queued (Unix nanoseconds).
func (q *queue) waiting(max int) (n int, since int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n = len(q.items); n > 0 {
		since = q.items[0].at
	}
	for _, ch := range q.ready {
		if n >= max {
			break
		}
		if h := q.held[ch]; len(h) > 0 {
			n += len(h)
			since = min(since, h[0].at)
			if since == 0 {
				since = h[0].at
			}
		}
	}
	return n, since
}

// take removes and returns up to max events whose channels are not busy,
// oldest first: first the held events of freed channels, then the events
// not looked at. An event of a busy channel, or of one whose held events
// are not all taken, is moved aside (hold). The events stay in the app's
// budget until done is called with them.
func (q *queue) take(max int, busy map[string]*unit) []item {
	q.mu.Lock()
	defer q.mu.Unlock()
	var batch []item
	batch = q.takeReady(batch, max, busy)
	n := 0
	for ; n < len(q.items) && len(batch) < max; n++ {
		e := q.items[n]
		if _, held := q.held[e.ch]; held || busy[e.ch] != nil {
			q.hold(e)
			continue
		}
		batch = append(batch, e)
	}
	clear(q.items[:n])
	q.items = q.items[n:]
	q.stats.queued.Add(-int64(len(batch)))
	return batch
}

// takeReady appends to batch the held events of freed channels, up to max
// in all. q.mu is held.
func (q *queue) takeReady(batch []item, max int, busy map[string]*unit) []item {
	for len(q.ready) > 0 && len(batch) < max {
		ch := q.ready[0]
		h := q.held[ch]
		if busy[ch] != nil || len(h) == 0 { // busy again: free names it once more
			q.ready = q.ready[1:]
			continue
		}
		k := min(len(h), max-len(batch))
		batch = append(batch, h[:k]...)
		clear(h[:k])
		q.setHeld(ch, h[k:])
		if k < len(h) {
			break // the batch is full; ch stays ready, first next time
		}
		q.ready = q.ready[1:]
	}
	return batch
}

// free makes the held events of channels whose request is done the first
// to be taken.
func (q *queue) free(chans []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, ch := range chans {
		if _, ok := q.held[ch]; ok {
			q.ready = append(q.ready, ch)
		}
	}
}

// unjournal removes the outbox records of events delivered or given up on.
func (q *queue) unjournal(events []item) { (*q.journal).forget(events, q.stats) }

// done releases the bytes of events that were delivered or dropped.
func (q *queue) done(events []item) {
	for _, e := range events {
		q.budget.used.Add(-int64(len(e.ev)))
	}
}

// track records u as a request of this URL not yet done, or forgets it.
func (q *queue) track(u *unit, live bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if live {
		q.units[u] = struct{}{}
	} else {
		delete(q.units, u)
	}
}

// oldest returns when the oldest event of this URL still to be delivered
// was queued; zero if there is none.
func (q *queue) oldest() time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	var t int64
	older := func(at int64) {
		if t == 0 || at < t {
			t = at
		}
	}
	if len(q.items) > 0 {
		older(q.items[0].at)
	}
	for _, h := range q.held {
		older(h[0].at)
	}
	for u := range q.units {
		older(u.events[0].at)
	}
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(0, t)
}

// dropAll drops every queued event, counting them under reason.
func (q *queue) dropAll(reason int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.dropOldest(reason) {
	}
	q.ready = nil
}
