package portable

import "github.com/roostproject/roost/internal/connstats"

// reasonUnset marks a connection whose end has no recorded cause yet.
const reasonUnset = connstats.NumReasons

// Stats returns the transport's counters.
func (t *Transport) Stats() *connstats.Stats { return &t.stats }

// setReason records why c is ending, unless a cause is already known.
// c.mu must be held.
func (c *conn) setReasonLocked(r connstats.Reason) {
	if c.why == reasonUnset {
		c.why = r
	}
}

// setReason is setReasonLocked for callers that do not hold c.mu.
func (c *conn) setReason(r connstats.Reason) {
	c.mu.Lock()
	c.setReasonLocked(r)
	c.mu.Unlock()
}

// reason returns the recorded cause; a connection that ended without one
// was closed by its client (EOF or reset).
func (c *conn) reason() connstats.Reason {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.why == reasonUnset {
		return connstats.Client
	}
	return c.why
}
