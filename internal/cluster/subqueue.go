package cluster

// This file is the unbounded FIFO of subscription changes both
// cluster backends keep between the hub and their subscribe loop: the hub
// calls Subscribe with its lock held, so it must never wait for the store.

import "sync"

// SubOp is one subscription change of a channel's topic (a Redis channel
// or a NATS subject).
type SubOp struct {
	App, Channel string
	On           bool
	Ready        func() // On: called once the subscription is active
}

// SubQueue holds the changes not applied yet. Its zero value is not ready:
// use NewSubQueue.
type SubQueue struct {
	mu   sync.Mutex
	ops  []SubOp
	wake chan struct{}
}

// NewSubQueue returns an empty queue.
func NewSubQueue() SubQueue { return SubQueue{wake: make(chan struct{}, 1)} }

// Push queues op and wakes the loop that applies the changes.
func (q *SubQueue) Push(op SubOp) {
	q.mu.Lock()
	q.ops = append(q.ops, op)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Wake delivers a value when changes may be waiting.
func (q *SubQueue) Wake() <-chan struct{} { return q.wake }

// Take returns the changes queued since the last Take, in order.
func (q *SubQueue) Take() []SubOp {
	q.mu.Lock()
	defer q.mu.Unlock()
	ops := q.ops
	q.ops = nil
	return ops
}
