package netpoll

// One loop serves many connections, so a connection that sends a burst of
// messages must not hold it: in one turn of the loop each connection may
// spend at most turnBudget, each message costing its payload plus
// messageCost. The rest of what was read waits in the connection's pending
// input (the same buffer an incomplete frame uses) for the next turn; until
// it is used up the socket is not read again, so a flooding client's
// backlog is the kernel's socket buffer and one read, and TCP slows it
// down. The others on the loop are served between its turns.
const (
	// turnBudget bounds one connection's messages in one turn: 64 small
	// ones, or one read's worth of payload.
	turnBudget = readBufferSize
	// messageCost is what a message costs on top of its payload, so that
	// tiny messages are bounded too; the work of a Pusher message (parse,
	// signature, hub) is worth about a kilobyte of payload.
	messageCost = 1 << 10
)

// more spends one message of size bytes from the connection's budget and
// reports whether any is left for the next.
func (c *conn) more(size int) bool {
	c.l.budget -= messageCost + size
	return c.l.budget > 0
}

// deferRest puts the connection on the next turn's list when its budget ran
// out with input left over.
func (c *conn) deferRest(left bool) {
	if left && c.l.budget <= 0 && c.flags&(fDead|fDeferred) == 0 {
		c.flags |= fDeferred
		c.l.deferred = append(c.l.deferred, c)
	}
}

// takeDeferred returns the connections deferred in the previous turn; those
// deferred again in this turn go on a fresh list, so each is resumed once
// per turn.
func (l *loop) takeDeferred() []*conn {
	waiting := l.deferred
	l.deferred, l.resuming = l.resuming[:0], nil
	return waiting
}

// resume decodes more of each waiting connection's input.
func (l *loop) resume(waiting []*conn) {
	for i, c := range waiting {
		waiting[i] = nil
		if c.flags&fDeferred == 0 {
			continue
		}
		c.flags &^= fDeferred
		if c.flags&fDead == 0 {
			c.decode(nil)
		}
		if c.flags&(fDead|fDeferred|fMore) == fMore {
			c.flags &^= fMore
			c.read() // the TLS layer may hold more input (tls_linux.go)
		}
	}
	l.resuming = waiting[:0]
}
