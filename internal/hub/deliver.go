package hub

import (
	"strings"

	"github.com/roostproject/roost/internal/pusher"
)

// Publish sends p to every subscriber of its channels, across the cluster.
// It returns the first broker error; channels before it were published.
func (h *Hub) Publish(app string, p Publication) error {
	if c := h.Console(); c != nil {
		c.Published(app, p)
	}
	for _, name := range p.Channels {
		m := &Message{App: app, Channel: name, Event: p.Event, Data: p.Data, UserID: p.UserID, Except: p.SocketID}
		if strings.HasPrefix(p.Event, pusher.ClientEventPrefix) {
			h.observer.ClientEvent(app, name, p.Event, p.Data, p.SocketID, p.UserID)
		}
		h.cachePut(m)
		if err := h.broker.Publish(m); err != nil {
			return err
		}
	}
	return nil
}

// Deliver fans m out to this node's subscribers: it encodes m once and posts
// one Delivery to each shard that has subscribers. Brokers call it for every
// message meant for this node.
func (h *Hub) Deliver(m *Message) {
	ch := h.lookup(m.App, m.Channel)
	if ch == nil {
		return
	}
	if m.Terminate {
		h.post(ch, Delivery{Channel: ch, terminate: true})
		return
	}
	frame := h.encode(m)
	if !h.observe(ch, m, frame) {
		return
	}
	except := h.localSeq(m.Except)
	h.post(ch, Delivery{Channel: ch, Frame: NewFrame(frame, h.compress), Except: except})
}

// post hands d to every shard with subscribers of ch: the solo
// subscriber's and those with a list. A solo subscriber moves into a list
// of the same shard before the solo bits are cleared, so reading the bits
// first and skipping their shard when it has a list posts it once.
func (h *Hub) post(ch *Channel, d Delivery) {
	solo := ch.solo()
	if lists := ch.lists(); lists != nil {
		for i := range *lists {
			if (*lists)[i].Load() == nil {
				continue
			}
			if i == solo {
				solo = -1
			}
			d.Shard = i
			h.shards[i].Post(d)
		}
	}
	if solo >= 0 {
		d.Shard = solo
		h.shards[solo].Post(d)
	}
}

// Flush writes d to its shard's subscribers. The shard calls it from the
// goroutine that owns its connections. Under the shard's mutex a channel
// is in one form or the other: a solo subscriber here, or lists.
func (h *Hub) Flush(d Delivery) {
	h.locks[d.Shard].Lock()
	defer h.locks[d.Shard].Unlock()
	ch := d.Channel
	if ch.solo() == d.Shard {
		d.send(ch.one)
		return
	}
	if lists := ch.lists(); lists != nil {
		if l := (*lists)[d.Shard].Load(); l != nil {
			d.sendAll(l.subs)
		}
	}
}

// send gives d to one subscriber; the shard's mutex is held.
func (d *Delivery) send(s Subscriber) {
	switch {
	case d.terminate:
		s.Terminate()
	case d.Except == 0 || s.SocketSeq() != d.Except:
		s.Deliver(d.Frame)
	}
}

// sendAll gives d to each of subs; the shard's mutex is held.
func (d *Delivery) sendAll(subs []Subscriber) {
	if d.terminate {
		for _, s := range subs {
			s.Terminate()
		}
		return
	}
	frame, except := d.Frame, d.Except
	for _, s := range subs {
		if except == 0 || s.SocketSeq() != except {
			s.Deliver(frame)
		}
	}
}

func (h *Hub) lookup(app, name string) *Channel {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if a := h.apps[app]; a != nil {
		return a.table.get(name)
	}
	return nil
}
