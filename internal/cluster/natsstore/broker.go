package natsstore

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// envelope is what travels on a subject: the message and the node it came
// from. NATS delivers each publish at most once and the node never sends
// one again, so no sequence number is needed (docs/cluster.md, "NATS").
type envelope struct {
	Node string       `json:"n"`
	Msg  *hub.Message `json:"m"`
}

// token turns a name into one subject token and key token: channel names
// may hold '.', which separates tokens, and user ids anything at all.
func token(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// untoken reverses token.
func untoken(t string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(t)
	return string(b), err == nil
}

// subject is the NATS subject of one roost channel.
func (n *Node) subject(app, channel string) string {
	return n.cfg.Prefix + ".m." + token(app) + "." + token(channel)
}

// Publish delivers m to this node's subscribers at once and queues it for
// the other nodes. It never blocks: with the outbox full, m is dropped for
// the cluster (and counted) but still delivered here.
func (n *Node) Publish(m *hub.Message) error {
	n.cfg.Deliver(m)
	n.enqueue(m)
	return nil
}

// outbound is a queued write: a message for the other nodes, or a raw
// publish (a cache entry on its bucket's subject, stored when acked); or,
// with neither, a mark whose done is called once the cache entries queued
// before it are stored (see Stored).
type outbound struct {
	msg     *hub.Message
	subject string
	data    []byte
	acked   bool
	done    func()
}

func (n *Node) enqueue(m *hub.Message) { n.push(outbound{msg: m}) }

func (n *Node) enqueueAcked(subject string, data []byte) {
	n.push(outbound{subject: subject, data: data, acked: true})
}

// Stored implements hub.Storer: a mark in the outbox, answered when
// JetStream has acked the last cache entry queued before it (what the
// other nodes read; their messages were handed to NATS before it), at
// once while NATS is away or the outbox full.
func (n *Node) Stored(done func()) {
	cluster.Mark(&n.link, n.outbox, outbound{done: done}, done)
}

func (n *Node) push(o outbound) {
	select {
	case n.outbox <- o:
	default:
		n.dropped.Add(1)
	}
}

// publishLoop hands the outbox to NATS in order. While NATS is away nats.go
// keeps the messages in its reconnect buffer and sends them on reconnecting;
// beyond that buffer they are dropped and counted.
func (n *Node) publishLoop() {
	for {
		select {
		case <-n.ctx.Done():
			return
		case o := <-n.outbox:
			n.write(o)
		}
	}
}

// write hands one outbound to NATS; publishLoop owns acks.sent.
func (n *Node) write(o outbound) {
	if o.done != nil {
		n.acks.wait(o.done)
		return
	}
	if m := o.msg; m != nil {
		o.subject = n.subject(m.App, m.Channel)
		o.data, _ = json.Marshal(envelope{Node: n.node, Msg: m})
	}
	var err error
	if o.acked {
		err = n.nc.PublishRequest(o.subject, n.acks.reply(), o.data)
	} else {
		err = n.nc.Publish(o.subject, o.data)
	}
	if err != nil {
		n.dropped.Add(1)
	}
}

// Subscribe starts receiving a channel's messages from other nodes and
// calls ready once NATS has confirmed the subscription (at once while NATS
// is unreachable: nats.go subscribes again when it reconnects).
func (n *Node) Subscribe(app, channel string, ready func()) {
	n.subs.Push(cluster.SubOp{Topic: n.subject(app, channel), On: true, Ready: ready})
}

// Unsubscribe stops receiving a channel's messages.
func (n *Node) Unsubscribe(app, channel string) {
	n.subs.Push(cluster.SubOp{Topic: n.subject(app, channel)})
}

// subscribeWait bounds how long a join waits for NATS to confirm a
// subscription before it is answered anyway.
const subscribeWait = 2 * time.Second

// subscribeLoop applies subscription changes in order, a batch at a time:
// one round trip (a flush, which NATS answers after it has registered every
// subscription before it) confirms the whole batch.
func (n *Node) subscribeLoop() {
	subs := make(map[string]*nats.Subscription)
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.subs.Wake():
		}
		var ready []func()
		for _, op := range n.subs.Take() {
			if f := n.applySub(subs, op); f != nil {
				ready = append(ready, f)
			}
		}
		if len(ready) > 0 && n.nc.IsConnected() {
			n.nc.FlushTimeout(subscribeWait)
		}
		for _, f := range ready {
			f()
		}
	}
}

// applySub makes one subscription change and returns the ready call to make
// once NATS has it.
func (n *Node) applySub(subs map[string]*nats.Subscription, op cluster.SubOp) func() {
	if !op.On {
		if s := subs[op.Topic]; s != nil {
			s.Unsubscribe()
			delete(subs, op.Topic)
		}
		return nil
	}
	if subs[op.Topic] == nil {
		s, err := n.nc.ChanSubscribe(op.Topic, n.in)
		if err != nil {
			n.log.Error("nats refused a subscription", "err", err)
		} else {
			subs[op.Topic] = s
		}
	}
	return op.Ready
}

// receiveLoop delivers the messages other nodes publish.
func (n *Node) receiveLoop() {
	for {
		select {
		case <-n.ctx.Done():
			return
		case msg := <-n.in:
			n.receive(msg.Data)
		}
	}
}

// receive delivers one message from another node; its own echo, and what
// no node could have sent, are dropped.
func (n *Node) receive(data []byte) {
	var e envelope
	if json.Unmarshal(data, &e) != nil || e.Msg == nil || e.Node == n.node {
		return
	}
	n.cfg.Deliver(e.Msg)
}
