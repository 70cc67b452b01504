package portable

import "github.com/roostproject/roost/internal/connstats"

// Stats returns the transport's counters.
func (t *Transport) Stats() *connstats.Stats { return &t.stats }

// setReason records why c is ending, unless a cause is already recorded.
func (c *conn) setReason(r connstats.Reason) {
	c.mu.Lock()
	c.why.Set(r)
	c.mu.Unlock()
}

// reason returns the recorded cause (see transport.Cause).
func (c *conn) reason() connstats.Reason {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why.Reason()
}
