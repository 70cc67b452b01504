package session

import (
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
)

// subscribe handles pusher:subscribe (Pusher "Channels protocol",
// "Authorizing users", "Presence channels").
func (s Call) subscribe(msg pusher.Message) {
	req, err := pusher.ParseSubscribe(msg.Data)
	if err != nil {
		s.sendError(0, err.Error())
		return
	}
	name := req.Channel
	if i := s.find(name); i >= 0 {
		if sub := s.subs()[i]; sub.index != pending {
			var self *hub.Member
			if id := s.memberIn(sub.ch); id != "" {
				self = &hub.Member{ID: id}
			}
			s.succeeded(sub.ch, s.env.Hub.Snapshot(sub.ch, self).Members)
		}
		return
	}
	if max := s.env.limits().MaxSubscriptionsPerConnection; int(s.nclient) >= max {
		s.subscriptionError(name, "LimitReached", fmt.Sprintf("a connection may subscribe to at most %d channels; unsubscribe from one first", max), 403)
		return
	}
	kind := pusher.KindOf(name)
	if err := s.checkChannel(name, kind); err != nil {
		s.subscriptionError(name, "InvalidChannel", err.Error(), 400)
		return
	}
	if kind.RequiresAuth() && !auth.CheckChannel(s.app.Key, s.app.Secret, s.SocketID(), name, req.ChannelData, req.Auth) {
		s.subscriptionError(name, "AuthError", "invalid signature for channel "+quote(name), 401)
		return
	}
	if kind.IsPresence() {
		s.joinPresence(name, req.ChannelData)
		return
	}
	s.join(name)
}

// checkChannel validates a channel name; a server-to-user channel is only
// for the connection signed in as that user.
func (s Call) checkChannel(name string, kind pusher.Kind) error {
	if kind.IsServerToUser() {
		return errNotThisUser
	}
	return pusher.ValidateChannel(name)
}

// join subscribes the connection to a channel it has been allowed on,
// answering once the channel receives other nodes' events too and the node
// knows what a new subscriber is told (a cache channel's last event).
func (s Call) join(name string) {
	h, shard := s.env.Hub, s.conn.Shard()
	ch := h.Acquire(s.app.ID, name)
	s.whenReady(ch, func(w uint16) {
		h.Prepare(ch, shard, func() {
			if s.dropPending(ch, w) {
				s.joined(ch, nil)
			}
		})
	})
}

// pending is the index of a subscription whose channel is not ready yet:
// it is in the set (so a repeated subscribe, an unsubscribe or the close
// find it) but not in the hub's lists.
const pending = -1

// whenReady records a pending subscription to ch and runs f on the
// connection's goroutine once ch is ready, unless the subscription was
// cancelled meanwhile (unsubscribe or close, which release the channel
// themselves). f gets the wait's number, and ends the pending subscription
// with dropPending: an answer to a wait cancelled and begun again must not
// be taken for the answer to the new one.
func (s Call) whenReady(ch *hub.Channel, f func(wait uint16)) {
	s.waits++
	w := s.waits
	s.add(subscription{ch: ch, index: pending, wait: w})
	s.ext().pending++
	s.env.Hub.WhenReady(ch, s.conn.Shard(), func() {
		if s.isPending(ch, w) {
			f(w)
		}
	})
}

// pendingIndex returns the index of the pending subscription to channel,
// or -1.
func (s Call) pendingIndex(channel string) int {
	if i := s.find(channel); i >= 0 && s.subs()[i].index == pending {
		return i
	}
	return -1
}

// isPending reports whether wait w for ch is still under way.
func (s Call) isPending(ch *hub.Channel, w uint16) bool {
	i := s.find(ch.Name())
	return i >= 0 && s.subs()[i].ch == ch && s.subs()[i].index == pending && s.subs()[i].wait == w
}

// dropPending ends wait w for ch and reports whether it was under way;
// false means it was cancelled.
func (s Call) dropPending(ch *hub.Channel, w uint16) bool {
	if !s.isPending(ch, w) {
		return false
	}
	s.forget(s.find(ch.Name()))
	return true
}

// forget removes pending subscription i.
func (s Call) forget(i int) {
	s.remove(i)
	if s.x.pending--; s.x.pending == 0 {
		s.tidy()
	}
}

// joined adds the connection to ch's subscribers (ch was acquired for it;
// self is its presence member, or nil) and tells the client: succeeded,
// then a cache channel's last event or a cache miss, then the new count
// where the app wants counts. Then the messages that waited are handled.
func (s Call) joined(ch *hub.Channel, self *hub.Member) {
	j := s.env.Hub.AttachNew(ch, s.conn.Shard(), s.conn, self)
	if self != nil {
		s.joinedAs(ch, self.ID)
	}
	s.add(subscription{ch: ch, index: int32(j.Index)})
	s.tellSubscribed(ch.Name())
	s.succeeded(ch, j.Members)
	if name := ch.Name(); pusher.KindOf(name).IsCache() {
		if j.Cached != nil {
			s.conn.Send(j.Cached)
		} else {
			s.send(pusher.AppendCacheMiss(newMessage(), name))
			s.env.CacheMiss(s.app.ID, name)
		}
	}
	s.countChanged(ch)
	s.resume()
}

// attach adds the connection to ch's subscribers; ch was acquired for it.
func (s Call) attach(ch *hub.Channel) {
	index := s.env.Hub.Attach(ch, s.conn.Shard(), s.conn)
	s.add(subscription{ch: ch, index: int32(index)})
	s.tellSubscribed(ch.Name())
}

// succeeded sends pusher_internal:subscription_succeeded for ch, with the
// members of a presence channel.
func (s Call) succeeded(ch *hub.Channel, members []hub.Member) {
	if pusher.KindOf(ch.Name()).IsPresence() {
		s.send(pusher.AppendPresenceSucceeded(newMessage(), ch.Name(), memberInfos(members)))
		return
	}
	s.send(pusher.AppendSubscriptionSucceeded(newMessage(), ch.Name()))
}

// memberInfos yields members as user id and user_info pairs (nil info for
// a member that gave none).
func memberInfos(members []hub.Member) iter.Seq2[string, json.RawMessage] {
	return func(yield func(string, json.RawMessage) bool) {
		for _, m := range members {
			var info json.RawMessage
			if m.Info != "" {
				info = json.RawMessage(m.Info)
			}
			if !yield(m.ID, info) {
				return
			}
		}
	}
}

// countChanged sends pusher_internal:subscription_count when the app wants
// it; never on presence channels, which have member events instead.
func (s Call) countChanged(ch *hub.Channel) {
	if s.app.SubscriptionCount && !pusher.KindOf(ch.Name()).IsPresence() && !strings.HasPrefix(ch.Name(), "#") {
		s.env.Hub.CountChanged(ch)
	}
}

// unsubscribe handles pusher:unsubscribe; Pusher sends no reply.
func (s Call) unsubscribe(msg pusher.Message) {
	name, err := pusher.ParseUnsubscribe(msg.Data)
	if err != nil {
		s.sendError(0, err.Error())
		return
	}
	if i := s.find(name); i >= 0 && !strings.HasPrefix(name, "#") {
		s.leave(i)
		s.resume()
	}
}

// leave drops subscription i, announcing a presence member's departure when
// this was the user's last connection in the channel.
func (s Call) leave(i int) {
	sub := s.subs()[i]
	h := s.env.Hub
	if sub.index == pending {
		s.forget(i)
		h.Release(sub.ch)
		return
	}
	s.remove(i)
	s.tellUnsubscribed(sub.ch.Name())
	h.Detach(sub.ch, s.conn.Shard(), int(sub.index))
	if id := s.leftAs(sub.ch); id != "" {
		h.Leave(sub.ch, id)
	}
	h.Release(sub.ch)
	s.countChanged(sub.ch)
}

func (s Call) subscriptionError(channel, typ, message string, status int) {
	data, _ := json.Marshal(struct {
		Type   string `json:"type"`
		Error  string `json:"error"`
		Status int    `json:"status"`
	}{typ, message, status})
	s.send(pusher.AppendRawEvent(newMessage(), "pusher:subscription_error", channel, data))
}
