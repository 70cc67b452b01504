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
	h.observe(ch, m, frame)
	except := h.localSeq(m.Except)
	h.post(ch, Delivery{Channel: ch, Frame: frame, Except: except})
}

func (h *Hub) post(ch *Channel, d Delivery) {
	for i := range ch.shards {
		if ch.shards[i].Load() == nil {
			continue
		}
		d.Shard = i
		h.shards[i].Post(d)
	}
}

// Flush writes d to its shard's subscribers. The shard calls it from the
// goroutine that owns its connections.
func (h *Hub) Flush(d Delivery) {
	h.locks[d.Shard].Lock()
	defer h.locks[d.Shard].Unlock()
	l := d.Channel.shards[d.Shard].Load()
	if l == nil {
		return
	}
	for _, s := range l.subs {
		switch {
		case d.terminate:
			s.Terminate()
		case d.Except == 0 || s.SocketSeq() != d.Except:
			s.Deliver(d.Frame)
		}
	}
}

func (h *Hub) lookup(app, name string) *Channel {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.apps[app][name]
}
