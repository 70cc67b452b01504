package natsstore

import (
	"slices"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
)

// acks follows JetStream's acks of the cache entries this node writes, for
// Stored. Each entry is published with a reply subject of its own, numbered
// in order; the entries go to one stream over one connection, so the ack
// of entry k means every entry up to k is stored. A mark waiting on an ack
// that never comes (an entry lost in an outage) is answered by the next
// entry's ack; the HTTP API stops waiting long before.
type acks struct {
	inbox string // the reply subjects are inbox.<number>
	sent  uint64 // entries numbered so far; publishLoop owns it

	mu      sync.Mutex
	acked   uint64 // the highest number acked
	waiting []mark // in order of upto
}

// mark is a Stored call waiting for entry upto's ack.
type mark struct {
	upto uint64
	done func()
}

// listen subscribes to the reply subjects of the entries.
func (a *acks) listen(nc *nats.Conn) error {
	a.inbox = nats.NewInbox()
	_, err := nc.Subscribe(a.inbox+".*", a.ack)
	return err
}

// reply numbers the next entry and returns its reply subject.
func (a *acks) reply() string {
	a.sent++
	return a.inbox + "." + strconv.FormatUint(a.sent, 10)
}

// wait calls done once every entry numbered so far is acked.
func (a *acks) wait(done func()) {
	a.mu.Lock()
	if a.acked >= a.sent {
		a.mu.Unlock()
		done()
		return
	}
	a.waiting = append(a.waiting, mark{upto: a.sent, done: done})
	a.mu.Unlock()
}

// ack takes one of JetStream's answers (an error is an answer too: waiting
// longer would not store the entry) and answers the marks it covers.
func (a *acks) ack(msg *nats.Msg) {
	k, err := strconv.ParseUint(msg.Subject[len(a.inbox)+1:], 10, 64)
	if err != nil {
		return
	}
	a.mu.Lock()
	a.acked = max(a.acked, k)
	i := 0
	for i < len(a.waiting) && a.waiting[i].upto <= a.acked {
		i++
	}
	ready := slices.Clone(a.waiting[:i])
	a.waiting = a.waiting[i:]
	a.mu.Unlock()
	for _, m := range ready {
		m.done()
	}
}
