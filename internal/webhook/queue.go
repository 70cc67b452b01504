package webhook

import (
	"sync"
	"sync/atomic"
)

// budget is the bytes one app's events may take in its queues, shared by
// the queues of its URLs.
type budget struct {
	used atomic.Int64
	max  int64
}

// queue is one URL's events, in order, encoded. push comes from the intake
// goroutine and take from the URL's sender; both hold mu only for a slice
// operation.
type queue struct {
	mu     sync.Mutex
	items  [][]byte
	wake   chan struct{} // a push signals the sender
	budget *budget
	stats  *counters
}

func newQueue(b *budget, c *counters) *queue {
	return &queue{wake: make(chan struct{}, 1), budget: b, stats: c}
}

// push appends ev; while the app is over its budget, the oldest events of
// this queue are dropped and counted (ev itself, if it is the only one).
func (q *queue) push(ev []byte) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.budget.used.Add(int64(len(ev)))
	q.stats.queued.Add(1)
	for len(q.items) > 0 && q.budget.used.Load() > q.budget.max {
		q.drop(1, DropQueueFull)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// drop removes the n oldest events, counting them under reason; q.mu is
// held.
func (q *queue) drop(n int, reason int) {
	q.forget(q.items[:n])
	q.stats.dropped[reason].Add(int64(n))
	clear(q.items[:n])
	q.items = q.items[n:]
}

// forget gives the bytes and queue places of events back.
func (q *queue) forget(events [][]byte) {
	for _, e := range events {
		q.budget.used.Add(-int64(len(e)))
	}
	q.stats.queued.Add(-int64(len(events)))
}

// len returns the number of queued events.
func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// take removes and returns up to max of the oldest events. They stay in the
// app's budget until done is called with them.
func (q *queue) take(max int) [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(max, len(q.items))
	batch := append([][]byte(nil), q.items[:n]...)
	clear(q.items[:n])
	q.items = q.items[n:]
	q.stats.queued.Add(-int64(n))
	return batch
}

// done releases the bytes of a batch that was delivered or dropped.
func (q *queue) done(batch [][]byte) {
	for _, e := range batch {
		q.budget.used.Add(-int64(len(e)))
	}
}

// dropAll drops every queued event, counting them under reason.
func (q *queue) dropAll(reason int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.drop(len(q.items), reason)
}
