// Package subqueue is the unbounded FIFO of subscription changes both
// cluster backends keep between the hub and their subscribe loop: the hub
// calls Subscribe with its lock held, so it must never wait for the store.
package subqueue

import "sync"

// Op is one subscription change of a topic (a Redis channel or a NATS
// subject).
type Op struct {
	Topic string
	On    bool
	Ready func() // On: called once the subscription is active
}

// Queue holds the changes not applied yet. Its zero value is not ready:
// use New.
type Queue struct {
	mu   sync.Mutex
	ops  []Op
	wake chan struct{}
}

// New returns an empty queue.
func New() Queue { return Queue{wake: make(chan struct{}, 1)} }

// Push queues op and wakes the loop that applies the changes.
func (q *Queue) Push(op Op) {
	q.mu.Lock()
	q.ops = append(q.ops, op)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Wake delivers a value when changes may be waiting.
func (q *Queue) Wake() <-chan struct{} { return q.wake }

// Take returns the changes queued since the last Take, in order.
func (q *Queue) Take() []Op {
	q.mu.Lock()
	defer q.mu.Unlock()
	ops := q.ops
	q.ops = nil
	return ops
}
