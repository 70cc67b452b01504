package chaos

import (
	"fmt"
	"strings"

	"github.com/roostproject/roost/internal/testutil"
)

// received returns, for one client, how often each event id arrived and
// the ids in arrival order, leaving out a cache channel's replay of its
// last event after each subscription_succeeded (checked by checkCache).
func received(frames []testutil.Frame) (map[string]int, []string) {
	counts, order := map[string]int{}, []string(nil)
	replay := map[string]bool{}
	for _, f := range frames {
		switch {
		case f.Event == "pusher_internal:subscription_succeeded" && strings.HasPrefix(f.Channel, "cache-"):
			replay[f.Channel] = true
		case f.Event == "pusher:cache_miss":
			replay[f.Channel] = false
		case f.Event == publishEvent && replay[f.Channel]:
			replay[f.Channel] = false
		case f.Event == publishEvent || f.Event == "client-chaos":
			counts[f.Text()]++
			order = append(order, f.Text())
		}
	}
	return counts, order
}

// diffDeliveries notes every clean event not yet at each live subscriber
// it was owed to: the quiet period waits until none is left.
func (r *run) diffDeliveries(d map[string]string) {
	for _, c := range r.clientsOn("") {
		counts, _ := received(c.snapshot())
		for _, s := range r.sent {
			if s.clean && s.want[c.id] && counts[s.id] == 0 {
				d[fmt.Sprintf("lost|%s to client %d", s.id, c.id)] = fmt.Sprintf("%s on %s from %s never arrived at client %d on node %d",
					s.event, s.channel, s.from, c.id, c.node)
			}
		}
	}
}

// checkDeliveries reports, once the cluster is quiet, every event a live
// client got more than once or was not owed (say, with its own socket_id
// excluded, or published before it subscribed), and every pair of events
// of one publisher that arrived out of publish order. Events published
// under a fault are owed to nobody, but may still arrive only once and in
// order.
func (r *run) checkDeliveries() {
	byID := map[string]*sent{}
	for _, s := range r.sent {
		byID[s.id] = s
	}
	for _, c := range r.clientsOn("") {
		counts, order := received(c.snapshot())
		for id, n := range counts {
			s := byID[id]
			switch {
			case s == nil:
				r.violate("unexpected", "client %d got unknown event %q", c.id, id)
			case n > 1:
				r.violate("duplicate", "client %d on node %d got %s (%s on %s from %s) %d times", c.id, c.node, id, s.event, s.channel, s.from, n)
			case s.clean && c.early(s):
				r.violate("before subscribing", "client %d on node %d got %s (%s on %s from %s), published before it subscribed",
					c.id, c.node, id, s.event, s.channel, s.from)
			case !s.want[c.id] && s.clean:
				r.violate("unexpected", "client %d on node %d got %s (%s on %s from %s), not owed to it", c.id, c.node, id, s.event, s.channel, s.from)
			}
		}
		r.checkOrder(c, order, byID)
	}
}

// checkOrder checks that a client got each publisher's events on each
// channel in the order they were published. Across channels no order is
// kept: on a Redis Cluster two channels are two shards.
func (r *run) checkOrder(c *client, order []string, byID map[string]*sent) {
	last := map[string]*sent{}
	for _, id := range order {
		s := byID[id]
		if s == nil || c.early(s) { // reported by checkDeliveries
			continue
		}
		key := s.from + " " + s.channel
		if p := last[key]; p != nil && p.seq > s.seq {
			r.violate("order", "client %d on node %d got %s (#%d of %s on %s) after %s (#%d)", c.id, c.node, s.id, s.seq, s.from, s.channel, p.id, p.seq)
		}
		last[key] = s
	}
}

// early reports whether s, not owed to c, was published on a channel c is
// subscribed to before c subscribed.
func (c *client) early(s *sent) bool {
	return !s.want[c.id] && c.subs[s.channel] && s.n < c.since[s.channel]
}
