package chaos

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/roostproject/roost/internal/testutil"
)

// sent is one event published, by the HTTP API or by a client.
type sent struct {
	id      string // the event's data, unique in the run
	channel string
	event   string
	from    string // the publisher: a node's API or a client
	seq     int    // its place in the publisher's order
	clean   bool   // published with every node ready and no fault
	want    map[int]bool
	client  bool // a client event, which also makes a client_event webhook
}

// publishEvent is the name of the events the HTTP API publishes.
const publishEvent = "chaos"

// traffic runs n random publishes: single events and batches through a
// random node's HTTP API (sometimes excluding one subscriber by its
// socket_id), and client events.
func (r *run) traffic(n int) {
	for range n {
		switch k := r.rng.IntN(10); {
		case k < 5:
			r.publish(1)
		case k < 7:
			r.publish(2 + r.rng.IntN(3))
		default:
			r.clientEvent()
		}
	}
}

// record notes an event about to be published on ch by from, expected by
// every subscriber of ch but except.
func (r *run) record(ch, event, from string, except *client) *sent {
	r.seqs[from]++
	s := &sent{id: fmt.Sprintf("e%d", len(r.sent)), channel: ch, event: event, from: from, seq: r.seqs[from],
		clean: r.fault == nil, want: map[int]bool{}}
	for _, c := range r.clientsOn(ch) {
		if c != except {
			s.want[c.id] = true
		}
	}
	r.sent = append(r.sent, s)
	return s
}

// publish sends n events in one request: POST /events for one, POST
// /batch_events for more.
func (r *run) publish(n int) {
	node := pick(r, r.liveNodes())
	from := fmt.Sprintf("api@%d", node)
	var batch []map[string]string
	var evs []*sent
	for range n {
		ch := pick(r, channels)
		item := map[string]string{"name": publishEvent, "channel": ch}
		var except *client
		if subs := r.clientsOn(ch); len(subs) > 0 && r.rng.IntN(4) == 0 {
			except = pick(r, subs)
			item["socket_id"] = except.socket
		}
		s := r.record(ch, publishEvent, from, except)
		item["data"] = s.id
		batch, evs = append(batch, item), append(evs, s)
	}
	path, body := "/events", any(batch[0])
	if n > 1 {
		path, body = "/batch_events", map[string]any{"batch": batch}
	}
	b, _ := json.Marshal(body)
	status, out, err := r.rig.api.Do(r.rig.nodes[node].URL, http.MethodPost, path, nil, b)
	r.step("publish %d event(s) through node %d: %d", n, node, status)
	if err != nil || status != http.StatusOK {
		r.refused(evs, fmt.Sprintf("%s on node %d: %d %s %v", path, node, status, out, err))
		return
	}
	r.cached(evs)
}

// refused handles a publish the node did not answer 200: nothing is owed
// to anyone, and with no fault in force it is a violation.
func (r *run) refused(evs []*sent, why string) {
	for _, s := range evs {
		s.want, s.clean = map[int]bool{}, false
		s.id = "refused-" + s.id
	}
	if r.fault == nil {
		r.violate("publish", "refused with no fault: %s", why)
	}
}

// clientEvent has a random subscriber of a private or presence channel
// send a client event (Pusher docs, "Client events"): every other
// subscriber gets it, the sender never.
func (r *run) clientEvent() {
	ch := pick(r, []string{"private-a", "presence-a", "presence-b"})
	subs := r.clientsOn(ch)
	if len(subs) == 0 {
		return
	}
	c := pick(r, subs)
	s := r.record(ch, "client-chaos", fmt.Sprintf("client %d", c.id), c)
	s.client = true
	if err := c.send("client-chaos", s.id, ch); err != nil {
		r.violate("client event", "client %d: %v", c.id, err)
	}
	r.step("client %d sends a client event on %s", c.id, ch)
}

// cache is the last event published on each cache channel, as the model
// of one node keeps it ("" for none), and whether a backend fault since
// may have lost it.
type cache struct {
	last      map[string]string
	uncertain map[string]bool
}

// cached notes the events published on cache channels.
func (r *run) cached(evs []*sent) {
	for _, s := range evs {
		if strings.HasPrefix(s.channel, "cache-") {
			r.cache().last[s.channel] = s.id
			delete(r.cache().uncertain, s.channel)
		}
	}
}

func (r *run) cache() *cache {
	if r.caches == nil {
		r.caches = &cache{last: map[string]string{}, uncertain: map[string]bool{}}
	}
	return r.caches
}

// forgetCache marks every cache channel's last event as possibly lost, as
// a backend restarted empty loses it.
func (r *run) forgetCache() {
	for _, ch := range channels {
		r.cache().uncertain[ch] = true
	}
}

// checkCache checks what followed a cache channel's subscription_succeeded
// (Pusher docs, "Cache channels"): the last event published, or
// pusher:cache_miss when there was none.
func (r *run) checkCache(c *client, ch string, from int) {
	if !strings.HasPrefix(ch, "cache-") || r.fault != nil {
		return
	}
	f, ok := c.await(from, func(f testutil.Frame) bool {
		return f.Channel == ch && (f.Event == publishEvent || f.Event == "pusher:cache_miss")
	})
	want, got := r.cache().last[ch], ""
	if ok && f.Event == publishEvent {
		got = f.Text()
	}
	if r.cache().uncertain[ch] || got == want && ok {
		return
	}
	r.violate("cache", "client %d on node %d subscribed to %s: got %q, the last event published was %q", c.id, c.node, ch, got, want)
}

// sortedKeys returns a set's members in order.
func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
