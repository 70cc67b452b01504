package chaos

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/roostproject/roost/internal/testutil"
)

// sent is one event published, by the HTTP API or by a client.
type sent struct {
	id      string // the event's data, unique in the run
	n       int    // its place in run.sent
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
	s := &sent{id: fmt.Sprintf("e%d", len(r.sent)), n: len(r.sent), channel: ch, event: event, from: from, seq: r.seqs[from],
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
	var what []string
	for _, s := range evs {
		what = append(what, s.id+" on "+s.channel)
	}
	r.step("publish %d event(s) through node %d: %d (%s)", n, node, status, strings.Join(what, ", "))
	if err != nil || status != http.StatusOK {
		r.refused(evs, fmt.Sprintf("%s on node %d: %d %s %v", path, node, status, out, err))
		return
	}
	r.cached(evs, node)
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
//
// An event published under a fault may be answered 200 before it is
// stored (docs/cluster.md, "What a 200 means"): each node writes what it
// queued, in order, when the store answers again, and the nodes do so
// each at its own time. So after such events the last one stored is the
// last one published through one of the nodes, not necessarily the last
// one answered: pending holds, per channel, each node's last event
// published under a fault since the last one published with none.
type cache struct {
	last      map[string]string
	pending   map[string]map[int]string
	uncertain map[string]bool
}

// cached notes the events published through node on cache channels.
func (r *run) cached(evs []*sent, node int) {
	c := r.cache()
	for _, s := range evs {
		switch {
		case !strings.HasPrefix(s.channel, "cache-"):
		case s.clean:
			c.last[s.channel] = s.id
			delete(c.pending, s.channel)
			delete(c.uncertain, s.channel)
		default:
			if c.pending[s.channel] == nil {
				c.pending[s.channel] = map[int]string{}
			}
			c.pending[s.channel][node] = s.id
		}
	}
}

func (r *run) cache() *cache {
	if r.caches == nil {
		r.caches = &cache{last: map[string]string{}, pending: map[string]map[int]string{}, uncertain: map[string]bool{}}
	}
	return r.caches
}

// forgetCache marks every cache channel's last event as possibly lost, as
// a backend restarted empty loses it, with those published under an
// earlier fault and stored since.
func (r *run) forgetCache() {
	for _, ch := range channels {
		r.cache().uncertain[ch] = true
		delete(r.cache().pending, ch)
	}
}

// lastCached returns the events a subscriber of ch may be told as its
// last one ("" for pusher:cache_miss), and whether any other may be right
// too (a store restarted empty since, with no event published on ch
// after).
func (r *run) lastCached(ch string) ([]string, bool) {
	c := r.cache()
	if p := c.pending[ch]; len(p) > 0 {
		return slices.Sorted(maps.Values(p)), false
	}
	return []string{c.last[ch]}, c.uncertain[ch]
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
	got := ""
	if ok && f.Event == publishEvent {
		got = f.Text()
	}
	want, loose := r.lastCached(ch)
	if loose || ok && slices.Contains(want, got) {
		return
	}
	r.violate("cache", "client %d on node %d subscribed to %s: got %q, want %s; the store holds %q",
		c.id, c.node, ch, got, quoted(want), r.stored(c.node, ch, map[string]string{}))
}

// quoted lists ids as "a" or "b".
func quoted(ids []string) string {
	var q []string
	for _, id := range ids {
		q = append(q, strconv.Quote(id))
	}
	return strings.Join(q, " or ")
}

// stored returns what the store holds as ch's last event ("" for none),
// read through node i's HTTP API (info=cache); a failure is a difference
// in d.
func (r *run) stored(i int, ch string, d map[string]string) string {
	var one struct {
		Cache *struct{ Data string } `json:"cache"`
	}
	r.get(i, "/channels/"+ch, url.Values{"info": {"cache"}}, &one, d)
	if one.Cache == nil {
		return ""
	}
	return one.Cache.Data
}

// diffCache compares what the store holds as each cache channel's last
// event with the model (see lastCached), so that the quiet period waits
// until the nodes have written what they queued under the fault.
func (r *run) diffCache(d map[string]string) {
	node := r.liveNodes()[0]
	for _, ch := range channels {
		if !strings.HasPrefix(ch, "cache-") {
			continue
		}
		if want, loose := r.lastCached(ch); !loose {
			if got := r.stored(node, ch, d); !slices.Contains(want, got) {
				d["cache|store "+ch] = fmt.Sprintf("the store holds %q, want %s", got, quoted(want))
			}
		}
	}
}

// sortedKeys returns a set's members in order.
func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
