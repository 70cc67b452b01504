package fallback

import (
	"sync"
	"time"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// kind is a fallback transport.
type kind uint8

const (
	streaming kind = iota // xhr_streaming: one held response at a time
	polling               // xhr_polling: one response per poll
	numKinds
)

// Names are the transports' names, as pusher-js's enabledTransports and the
// transport label of roost's metrics spell them.
var names = [numKinds]string{"xhr_streaming", "xhr_polling"}

// item is one thing waiting for the client: a Pusher message (msg), or a
// ready line ("h", "c[...]").
type item struct {
	msg, line []byte
}

// conn is one fallback session. sess is touched only on the shard's
// goroutine (Config.Do); the rest under mu, except what is set before the
// session is in the table.
type conn struct {
	h       *Handler
	key     string // its table key
	kind    kind
	release func() // gives back the admission's place
	sess    session.Session

	mu      sync.Mutex // guards what follows
	queue   []item
	queued  int  // bytes in queue, counted in the node's budget
	closing bool // a close line is queued: nothing may follow it
	ended   bool // the session has ended (end ran or is scheduled)
	why     transport.Cause
	wake    chan struct{} // a request waiting for items; capacity 1
	stream  Stream        // the loop's socket of request gen, if a loop holds it
	gen     uint64        // the request that may take items; 0: none is held
	seen    time.Time     // the last request's arrival
	loose   time.Time     // when the last held request ended
	pinged  bool          // a server "h" went out with no request since
	echo    bool          // a streaming client's "[]" answer to our "h" is due
}

var _ session.Conn = (*conn)(nil)

// call lends the session its environment and this connection; only on the
// shard's goroutine.
func (c *conn) call() session.Call { return c.sess.On(c.h.cfg.Env, c) }

// Shard implements session.Conn.
func (c *conn) Shard() int { return c.h.cfg.Shard }

// Send implements session.Conn: the frame's text payload is queued.
func (c *conn) Send(frame []byte) {
	if p, op, ok := ws.Payload(frame); ok && op == ws.OpText {
		c.enqueue(item{msg: p}, len(frame))
	}
}

// Close implements session.Conn: the close line goes after what is queued,
// and the session ends.
func (c *conn) Close(code ws.CloseCode, reason string) {
	c.setReason(connstats.Server)
	c.closeWith(closeLine(int(code), reason))
}

// closeWith queues line as the session's last and schedules its end.
func (c *conn) closeWith(line []byte) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.pushLocked(item{line: line}, len(line))
	c.closing = true
	c.mu.Unlock()
	c.h.cfg.Do(c.end)
}

// enqueue queues it, of n bytes, for the next request; past the backlog
// cap or the node's budget the session is closed as a slow consumer (4100),
// its close line going after what is queued.
func (c *conn) enqueue(it item, n int) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	p := c.h.cfg.Policy
	if p.Overflows(c.queued, n) || p.Budget.Sheds(int64(c.queued), n, int64(c.h.Len())) {
		c.why.Set(connstats.Slow)
		c.mu.Unlock()
		c.h.cfg.Logger.Warn("slow fallback session closed", "transport", names[c.kind], "backlog", c.queued+n)
		c.closeWith(slowLine)
		return
	}
	c.pushLocked(it, n)
	c.mu.Unlock()
}

// slowLine closes a slow consumer: 4100, over capacity (transport.SlowClose).
var slowLine = closeLine(4100, "over capacity")

// pushLocked appends it and wakes a waiting request, or the loop that
// holds its socket; c.mu is held.
func (c *conn) pushLocked(it item, n int) {
	c.queue = append(c.queue, it)
	c.queued += n
	c.h.cfg.Policy.Budget.Add(n)
	if c.stream != nil {
		c.stream.Wake()
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// take removes what is queued for the request gen, encoded after room
// bytes left free at the start of out, where the caller may frame it
// without a copy; last reports that the session's close line is among it.
// mine is false when gen no longer holds the session (a newer request took
// over). Nothing queued gives an empty out.
func (c *conn) take(gen uint64, room int) (out []byte, last, mine bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false, false
	}
	if len(c.queue) > 0 {
		// Quoting grows a message a little; room for 1/8 more, and
		// append grows out when that is not enough.
		out = encode(make([]byte, room, room+c.queued+c.queued/8+16), c.queue)
	}
	last = c.closing
	c.h.cfg.Policy.Budget.Add(-c.queued)
	c.queue, c.queued = nil, 0
	return out, last, true
}

// encode appends items to out as lines, consecutive messages in one
// `a[...]`.
func encode(out []byte, items []item) []byte {
	for i := 0; i < len(items); {
		if items[i].line != nil {
			out = append(out, items[i].line...)
			i++
			continue
		}
		j := i + 1
		for j < len(items) && items[j].line == nil {
			j++
		}
		out = appendMessages(out, items[i:j])
		i = j
	}
	return out
}

// end finishes the session on the shard's goroutine: it leaves every
// channel and gives back its place. The table keeps it until its close line
// is taken or Policy.CloseTimeout passes (sweep).
func (c *conn) end() {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.closing = true
	c.loose = c.h.now()
	why := c.why.Reason()
	c.mu.Unlock()
	c.call().Closed()
	c.release()
	c.h.stats[c.kind].Ended(why)
}

// setReason records why c is ending, unless a cause is already recorded.
func (c *conn) setReason(r connstats.Reason) {
	c.mu.Lock()
	c.why.Set(r)
	c.mu.Unlock()
}

// CloseReason tells the dashboard's debug console why the session ended.
func (c *conn) CloseReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why.Reason().String()
}

// TransportName names the session's transport in the dashboard's console.
func (c *conn) TransportName() string { return names[c.kind] }

// SocketSeq implements hub.Subscriber.
func (c *conn) SocketSeq() uint64 { return c.sess.SocketSeq() }

// Deliver implements hub.Subscriber.
func (c *conn) Deliver(f *hub.Frame) { c.Send(f.For(false)) }

// Terminate implements hub.Subscriber.
func (c *conn) Terminate() { c.call().Terminate() }

// Moved implements hub.Subscriber.
func (c *conn) Moved(ch *hub.Channel, index int) { c.sess.Moved(ch, index) }

// The close of a session silent past the pong wait, as a WebSocket's.
const (
	timeoutReason     = connstats.Timeout
	pongTimeoutCode   = transport.PongTimeoutCode
	pongTimeoutReason = transport.PongTimeoutReason
)
