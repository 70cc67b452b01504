package transport

import "sync/atomic"

// Budget bounds the outbound bytes queued for slow clients over every
// connection of the node, both transports together. A transport adds what
// it queues and subtracts what it writes or drops, and sheds the largest
// backlogs it owns, with SlowClose, when Fits says no. Only connections
// with a backlog touch it, so it costs an idle connection and a delivery
// the socket takes at once nothing.
type Budget struct {
	limit  int64
	queued atomic.Int64
}

// NewBudget returns a budget of limit bytes; limit <= 0 means unbounded.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Add counts n more queued bytes (negative: fewer).
func (b *Budget) Add(n int) {
	if b != nil && n != 0 {
		b.queued.Add(int64(n))
	}
}

// Queued returns the bytes queued now over all connections.
func (b *Budget) Queued() int64 {
	if b == nil {
		return 0
	}
	return b.queued.Load()
}

// Fits reports whether n more bytes stay within the budget. A nil or
// unbounded budget always fits.
func (b *Budget) Fits(n int) bool {
	return b == nil || b.limit <= 0 || b.queued.Load()+int64(n) <= b.limit
}

// Limit returns the budget in bytes; 0 means unbounded.
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return max(b.limit, 0)
}

// Sheds reports whether a connection that holds held bytes and queues n
// more must be closed for the budget: the budget is passed and the
// connection holds more than its even share of it among conns. A transport
// with no loop that sees all its connections (portable, the HTTP fallbacks)
// sheds the one that is queuing this way, never one that holds less than
// the others' share.
func (b *Budget) Sheds(held int64, n int, conns int64) bool {
	return !b.Fits(n) && (held+int64(n))*max(conns, 1) > b.Limit()
}
