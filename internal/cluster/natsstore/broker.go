package natsstore

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/roostproject/roost/internal/cluster"
)

// Messages travel on core NATS, one subject per channel, each numbered
// among this node's messages so that a receiver drops the copy a resend
// after an outage may bring (resend.go).

// token turns a name into one subject token and key token: channel names
// may hold '.', which separates tokens, and user ids anything at all.
func token(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// untoken reverses token.
func untoken(t string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(t)
	return string(b), err == nil
}

// subject is the NATS subject of one roost channel.
func (n *NATS) subject(app, channel string) string {
	return n.cfg.Prefix + ".m." + token(app) + "." + token(channel)
}

// Write implements cluster.Store: it hands each entry to NATS in order.
// While NATS is away nats.go keeps the messages in its reconnect buffer and
// sends them on reconnecting; beyond that buffer they are dropped and
// counted. A cache entry is published on its bucket's subject, before the
// event itself, and a mark is answered once JetStream has acked the last
// cache entry before it (what the other nodes read; their messages were
// handed to NATS before it).
func (n *NATS) Write(batch []cluster.Outbound) bool {
	n.resend()
	for _, o := range batch {
		n.write(o)
	}
	return true
}

// write hands one outbound to NATS; the publish loop owns acks.sent.
func (n *NATS) write(o cluster.Outbound) {
	var err error
	switch m := o.Msg; {
	case m == nil:
		n.acks.wait(o.Done)
		return
	case o.Cache:
		b, _ := json.Marshal(m)
		subject := "$KV." + n.cfg.Prefix + "_cache." + key(m.App, m.Channel)
		err = n.nc.PublishRequest(subject, n.acks.reply(), b)
	default:
		err = n.writeMessage(o)
	}
	if err != nil {
		n.host.Load().Lost()
	}
}

// writeMessage numbers o's message, hands it to NATS and keeps it until
// NATS has confirmed it (see resend.go).
func (n *NATS) writeMessage(o cluster.Outbound) error {
	o.Seq = n.lastSeq.Load() + 1
	w := written{seq: o.Seq, subject: n.subject(o.Msg.App, o.Msg.Channel), data: n.host.Load().Seal(o)}
	n.sent.add(w)
	err := n.nc.Publish(w.subject, w.data)
	n.lastSeq.Store(w.seq)
	return err
}

// Subscribe implements cluster.Store, a batch at a time: one round trip (a
// flush, which NATS answers after it has registered every subscription
// before it) confirms the whole batch. While NATS is unreachable the
// batch is answered at once: nats.go subscribes again when it reconnects.
func (n *NATS) Subscribe(ops []cluster.SubOp) {
	var ready []func()
	for _, op := range ops {
		if f := n.applySub(op); f != nil {
			ready = append(ready, f)
		}
	}
	if len(ready) > 0 && n.nc.IsConnected() {
		n.nc.FlushTimeout(cluster.SubscribeWait)
	}
	for _, f := range ready {
		f()
	}
}

// applySub makes one subscription change and returns the ready call to make
// once NATS has it.
func (n *NATS) applySub(op cluster.SubOp) func() {
	subject := n.subject(op.App, op.Channel)
	if !op.On {
		if s := n.subs[subject]; s != nil {
			s.Unsubscribe()
			delete(n.subs, subject)
		}
		return nil
	}
	if n.subs[subject] == nil {
		s, err := n.nc.ChanSubscribe(subject, n.in)
		if err != nil {
			n.log.Error("nats refused a subscription", "err", err)
		} else {
			n.subs[subject] = s
		}
	}
	return op.Ready
}

// receiveLoop delivers the messages other nodes publish.
func (n *NATS) receiveLoop() {
	for {
		select {
		case <-n.ctx.Done():
			return
		case msg := <-n.in:
			n.receive(msg.Data)
		}
	}
}

// receive delivers one message from another node; its own echo, a second
// copy and what no node could have sent are dropped.
func (n *NATS) receive(data []byte) {
	h := n.host.Load()
	switch e := h.Unseal(data); {
	case e == nil:
	case e.Seq > 0 && !n.seen.First(e.Node, e.Seq, time.Now()):
		h.Repeated()
	default:
		h.Deliver(e.Msg)
	}
}
