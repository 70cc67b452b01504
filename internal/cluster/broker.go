package cluster

import (
	"encoding/json"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// Envelope is what travels between nodes: the message, the node it came
// from and, from a store that numbers them, its number there (0: none).
type Envelope struct {
	Node string       `json:"n"`
	Seq  uint64       `json:"s,omitempty"`
	Msg  *hub.Message `json:"m"`
}

// Seal is the wire form of o, a message of this node's.
func (n *Node) Seal(o Outbound) []byte {
	b, _ := json.Marshal(Envelope{Node: n.id, Seq: o.Seq, Msg: o.Msg})
	return b
}

// Unseal reads a message that came from the store: nil for this node's own
// echo, and for what no node could have sent.
func (n *Node) Unseal(data []byte) *Envelope {
	var e Envelope
	if json.Unmarshal(data, &e) != nil || e.Msg == nil || e.Node == n.id {
		return nil
	}
	return &e
}

// Deliver hands a message from another node to this node's subscribers.
func (n *Node) Deliver(m *hub.Message) { n.cfg.Deliver(m) }

// Publish delivers m to this node's subscribers at once and queues it for
// the other nodes. It never blocks: with the outbox full, m is dropped for
// the cluster (and counted) but still delivered here.
func (n *Node) Publish(m *hub.Message) error {
	n.cfg.Deliver(m)
	n.enqueue(Outbound{Msg: m})
	return nil
}

func (n *Node) enqueue(o Outbound) {
	select {
	case n.outbox <- o:
	default:
		n.dropped.Add(1)
	}
}

// Stored implements hub.Storer: a mark in the outbox, answered when the
// writes queued before it are stored, at once while the store is away or
// the outbox full.
func (n *Node) Stored(done func()) {
	Mark(&n.link, n.outbox, Outbound{Done: done}, done)
}

// Subscribe starts receiving a channel's messages from other nodes and
// calls ready when the store confirms the subscription (at once while the
// store is unreachable, and after SubscribeWait at the latest).
func (n *Node) Subscribe(app, channel string, ready func()) {
	n.subs.Push(SubOp{App: app, Channel: channel, On: true, Ready: ready})
}

// Unsubscribe stops receiving a channel's messages.
func (n *Node) Unsubscribe(app, channel string) {
	n.subs.Push(SubOp{App: app, Channel: channel})
}

// SubscribeWait bounds how long a join waits for the store to confirm a
// subscription before it is answered anyway.
const SubscribeWait = 2 * time.Second

// subscribeLoop applies subscription changes in order, a batch at a time.
func (n *Node) subscribeLoop() {
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.subs.Wake():
		}
		if ops := n.subs.Take(); len(ops) > 0 {
			n.store.Subscribe(ops)
		}
	}
}

// maxWrite is how many outbox entries go to the store in one batch.
const maxWrite = 256

// publishLoop writes the outbox to the store in order, in batches,
// retrying a batch the store did not take until it does.
func (n *Node) publishLoop() {
	batch := make([]Outbound, 0, maxWrite)
	for {
		select {
		case <-n.ctx.Done():
			return
		case o := <-n.outbox:
			batch = append(batch[:0], o)
		}
		for len(batch) < cap(batch) && len(n.outbox) > 0 {
			batch = append(batch, <-n.outbox)
		}
		if !n.awaitSubscribers() {
			return
		}
		for !n.store.Write(batch) {
			if !Sleep(n.ctx, 250*time.Millisecond) || !n.awaitSubscribers() {
				return
			}
		}
	}
}

// resubscribeTime is how long a node that saw the store go away waits,
// once it answers again, before it publishes what it buffered: the other
// nodes saw the same outage, and each subscribes again within a probe or
// two (ProbeEvery) of the store answering; a message published before
// that is lost for them.
const resubscribeTime = 3 * ProbeEvery

// awaitSubscribers waits while the store is unreachable, and then until
// the node has been reachable again for resubscribeTime; it reports
// whether the node is still running.
func (n *Node) awaitSubscribers() bool {
	for !n.settled(resubscribeTime) {
		if !Sleep(n.ctx, ProbeEvery/4) {
			return false
		}
	}
	return n.ctx.Err() == nil
}
