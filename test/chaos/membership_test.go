package chaos

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
)

// membership runs n random steps that change who is connected, subscribed
// or signed in, each awaited, so that the model's order is the real one.
func (r *run) membership(n int) {
	for range n {
		r.sweep()
		switch k := r.rng.IntN(10); {
		case k < 2 || len(r.live) < 3:
			r.connect()
		case k < 5:
			r.subscribeSome()
		case k < 6:
			r.unsubscribeSome()
		case k < 7:
			r.signInSome()
		case k < 8:
			r.disconnectSome()
		case k < 9:
			r.reconnectSome()
		default:
			r.terminateSome()
		}
	}
}

// connect opens a new client on a random live node.
func (r *run) connect() *client {
	if len(r.live) >= maxClients {
		return nil
	}
	node := pick(r, r.liveNodes())
	r.next++
	c, err := dialClient(r.next, node, r.rig.wsURL(node), pick(r, users))
	if err != nil {
		r.violate("connect", "client %d on node %d: %v", r.next, node, err)
		return nil
	}
	r.live[c.id] = c
	r.step("client %d (%s) connects to node %d", c.id, c.user, node)
	return c
}

// anyClient returns a random live client, or nil.
func (r *run) anyClient() *client {
	cs := r.clientsOn("")
	if len(cs) == 0 {
		return nil
	}
	return pick(r, cs)
}

func (r *run) subscribeSome() {
	if c := r.anyClient(); c != nil {
		r.subscribe(c, pick(r, channels))
	}
}

// subscribe sends pusher:subscribe, signed for private and presence
// channels, and awaits its answer. A subscription the node refuses (as
// it may while its backend is away) stays out of the model.
func (r *run) subscribe(c *client, ch string) {
	if c.subs[ch] {
		return
	}
	from := c.count()
	data := map[string]string{"channel": ch, "auth": ""}
	if strings.HasPrefix(ch, "presence-") {
		data["channel_data"] = `{"user_id":"` + c.user + `","user_info":{}}`
	}
	if strings.HasPrefix(ch, "private-") || strings.HasPrefix(ch, "presence-") {
		data["auth"] = appKey + ":" + auth.Sign(appSecret, auth.ChannelMessage(c.socket, ch, data["channel_data"]))
	}
	c.send("pusher:subscribe", data, "")
	f, ok := c.await(from, func(f testutil.Frame) bool {
		return f.Channel == ch && (f.Event == "pusher_internal:subscription_succeeded" || f.Event == "pusher:subscription_error")
	})
	switch {
	case !ok:
		r.violate("subscribe", "client %d on node %d: no answer to subscribing to %s", c.id, c.node, ch)
	case f.Event == "pusher:subscription_error" && r.fault == nil:
		r.violate("subscribe", "client %d on node %d: %s refused with no fault: %s", c.id, c.node, ch, f.Data)
	case f.Event == "pusher:subscription_error":
		r.step("client %d: %s refused under %s", c.id, ch, r.fault.kind)
	default:
		c.subs[ch], c.since[ch] = true, len(r.sent)
		r.step("client %d subscribes to %s", c.id, ch)
		r.checkCache(c, ch, from)
	}
}

func (r *run) unsubscribeSome() {
	c := r.anyClient()
	if c == nil || len(c.subs) == 0 {
		return
	}
	ch := pick(r, sortedKeys(c.subs))
	c.send("pusher:unsubscribe", map[string]string{"channel": ch}, "")
	delete(c.subs, ch)
	r.step("client %d unsubscribes from %s", c.id, ch)
}

// signInSome signs a client in (Pusher docs, "User authentication") with
// a watchlist of two other users. Not under a fault: a sign-in the
// backend does not answer closes the connection, which the model does not
// predict.
func (r *run) signInSome() {
	c := r.anyClient()
	if c == nil || c.signed || r.fault != nil {
		return
	}
	r.signIn(c)
}

func (r *run) signIn(c *client) {
	watch := []string{pick(r, users), pick(r, users)}
	ud, _ := json.Marshal(map[string]any{"id": c.user, "watchlist": watch})
	from := c.count()
	c.send("pusher:signin", map[string]string{"auth": appKey + ":" + auth.Sign(appSecret, auth.UserMessage(c.socket, string(ud))),
		"user_data": string(ud)}, "")
	if _, ok := c.await(from, named("pusher:signin_success")); !ok {
		r.violate("signin", "client %d on node %d: no signin_success; %v", c.id, c.node, c.snapshot()[from:])
		return
	}
	c.signed, c.signIn, c.watch = true, r.round, watch
	r.step("client %d signs in as %s watching %v", c.id, c.user, watch)
}

func (r *run) disconnectSome() {
	if c := r.anyClient(); c != nil {
		r.drop(c)
		r.step("client %d disconnects", c.id)
	}
}

// drop closes a client and forgets it: from now on the model has it gone.
func (r *run) drop(c *client) {
	c.close()
	delete(r.live, c.id)
}

// reconnectSome closes a client and opens another as the same user on a
// random node, subscribed to the same channels, as pusher-js does after a
// dropped connection.
func (r *run) reconnectSome() {
	old := r.anyClient()
	if old == nil {
		return
	}
	r.drop(old)
	c := r.connect()
	if c == nil {
		return
	}
	c.user = old.user
	r.step("client %d reconnects as client %d (%s)", old.id, c.id, c.user)
	for _, ch := range sortedKeys(old.subs) {
		r.subscribe(c, ch)
	}
	if old.signed && r.fault == nil {
		r.signIn(c)
	}
}

// terminateSome asks the HTTP API to close a signed-in user's connections
// and awaits their end. Not under a fault, whose effect on a cross-node
// request the model does not predict.
func (r *run) terminateSome() {
	if r.fault != nil {
		return
	}
	var signed []*client
	for _, c := range r.clientsOn("") {
		if c.signed {
			signed = append(signed, c)
		}
	}
	if len(signed) == 0 {
		return
	}
	user := pick(r, signed).user
	node := pick(r, r.liveNodes())
	status, body, err := r.rig.api.Do(r.rig.nodes[node].URL, http.MethodPost, "/users/"+user+"/terminate_connections", nil, nil)
	if err != nil || status != http.StatusOK {
		r.violate("terminate", "terminate %s on node %d: %d %s %v", user, node, status, body, err)
		return
	}
	r.step("terminate %s through node %d", user, node)
	r.terminated[user] = r.round
	for _, c := range r.clientsOn("") {
		if c.signed && c.user == user {
			if !testutil.Poll(awaitWait, c.ended) {
				r.violate("terminate", "client %d (%s) on node %d still open after terminate_connections", c.id, user, c.node)
			}
			r.drop(c)
		}
	}
}

// sweep forgets every client whose connection the server ended while the
// model held it open, and reports each: a close no client asked for is a
// violation, but for one that signed in as a user after that user's
// terminate_connections was answered, in the round of the terminate or
// the next, and was told it was terminated (see the "late terminate"
// exception).
func (r *run) sweep() {
	for _, c := range r.clientsOn("") {
		if !c.ended() {
			continue
		}
		r.drop(c)
		last := c.snapshot()
		last = last[max(0, len(last)-2):]
		if t, ok := r.terminated[c.user]; ok && c.signed && c.signIn >= t && r.round-t <= 1 && terminatedFrame(last) {
			r.violate("late terminate", "client %d (%s) on node %d, signed in after terminate_connections of its user, was closed: %v",
				c.id, c.user, c.node, last)
			continue
		}
		r.violate("closed", "client %d (%s) on node %d was closed by the server; its last frames %v", c.id, c.user, c.node, last)
	}
}

// terminatedFrame reports whether frames hold the pusher:error 4009 that
// terminate_connections sends before it closes a connection.
func terminatedFrame(frames []testutil.Frame) bool {
	return slices.ContainsFunc(frames, func(f testutil.Frame) bool {
		var d struct{ Code pusher.Code }
		return f.Event == "pusher:error" && json.Unmarshal([]byte(f.Text()), &d) == nil && d.Code == pusher.Unauthorized
	})
}
