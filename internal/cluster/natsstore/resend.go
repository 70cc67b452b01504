package natsstore

import (
	"sync"
	"time"
)

// A message handed to nats.go is not yet delivered: while NATS is stopped
// the bytes wait in a socket, and when the connection is given up those
// NATS reads after it runs again go to subscriptions that went with the
// other nodes' connections; what waits in nats.go's reconnect buffer is
// sent as soon as this node is back, before the others have subscribed
// again. So every message carries this node's sequence number (receivers
// deliver each number once, cluster.Seen), the node keeps what it wrote
// until NATS has confirmed it (a flush answered, confirmEvery, one period
// late so that the confirmation covers what was on its way to subscribers
// too), and after an outage (once the node has held its outbox until the
// other nodes have subscribed again) it sends again everything NATS had
// not confirmed, before anything newer.

// confirmEvery is how often a healthy node asks NATS to confirm its writes.
const confirmEvery = 500 * time.Millisecond

// unconfirmed is what this node wrote to NATS since NATS last confirmed
// its writes, in sequence order: at most max messages, the oldest dropped
// first.
type unconfirmed struct {
	mu   sync.Mutex
	msgs []written
	max  int
}

// written is one message as it went out: its number, subject and bytes.
type written struct {
	seq     uint64
	subject string
	data    []byte
}

func (u *unconfirmed) add(w written) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.msgs) >= u.max {
		u.msgs = u.msgs[1:]
	}
	u.msgs = append(u.msgs, w)
}

// confirmed forgets the messages numbered up to seq.
func (u *unconfirmed) confirmed(seq uint64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	i := 0
	for i < len(u.msgs) && u.msgs[i].seq <= seq {
		i++
	}
	n := copy(u.msgs, u.msgs[i:])
	clear(u.msgs[n:]) // let the forgotten bytes go
	u.msgs = u.msgs[:n]
}

func (u *unconfirmed) all() []written {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]written(nil), u.msgs...)
}

// confirm has NATS confirm this node's writes (every confirmEvery) and
// forgets those confirmed a period before, except while an outage waits
// for its resend.
func (n *NATS) confirm() {
	mark := n.lastSeq.Load()
	if n.resendDue.Load() || !n.link.Healthy.Load() || n.nc.FlushTimeout(n.cfg.SlowReply) != nil {
		return
	}
	if !n.resendDue.Load() {
		n.sent.confirmed(n.before)
	}
	n.before = mark
}

// resend sends again, after an outage, what NATS had not confirmed; the
// node has held its outbox until the other nodes subscribed again.
func (n *NATS) resend() {
	if !n.resendDue.Swap(false) {
		return
	}
	for _, w := range n.sent.all() {
		if n.nc.Publish(w.subject, w.data) != nil {
			n.host.Load().Lost()
		}
	}
}
