package fallback

import "time"

// sweep checks every session's deadlines once a second until Close. One
// goroutine for all sessions: a session owns no timer.
func (h *Handler) sweep() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			now := h.now()
			for _, c := range h.each() {
				c.check(now)
			}
		}
	}
}

// check acts on c's deadlines at now: a stream a loop holds whose client
// takes nothing for the write timeout ends as a slow consumer (stuck); a
// session that ended leaves the table once its close had time to be taken;
// one with no request held for
// Detach ends as its client's close; a streaming one silent past
// Policy.Silence gets "h" (the client answers it); one silent past the pong
// wait after that ends with 4201.
func (c *conn) check(now time.Time) {
	if c.stuck(now) {
		return
	}
	p := &c.h.cfg.Policy
	c.mu.Lock()
	silent := now.Sub(c.seen)
	switch {
	case c.ended:
		if now.Sub(c.loose) > p.CloseTimeout {
			c.mu.Unlock()
			c.h.remove(c)
			return
		}
	case c.closing:
	case c.gen == 0 && now.Sub(c.loose) > c.h.cfg.Detach:
		c.closing = true // nothing more is queued: nobody would take it
		c.h.cfg.Do(func() { c.end(); c.h.remove(c) })
	case silent > p.Silence(false)+p.PongWait:
		c.why.Set(timeoutReason)
		c.mu.Unlock()
		c.closeWith(closeLine(int(pongTimeoutCode), pongTimeoutReason))
		return
	case c.kind == streaming && !c.pinged && silent > p.Silence(false):
		c.pinged, c.echo = true, true
		c.pushLocked(item{line: heartbeatLine}, len(heartbeatLine))
	}
	c.mu.Unlock()
}
