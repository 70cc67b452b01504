package session

import (
	"encoding/json"
	"fmt"
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
		if s.subs[i].index != pending {
			s.succeeded(s.subs[i].ch)
		}
		return
	}
	if max := s.env.Config.Limits.MaxSubscriptionsPerConnection; int(s.nclient) >= max {
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
	s.join(name, "")
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
// answering once the channel receives other nodes' events too.
func (s Call) join(name, member string) {
	ch := s.env.Hub.Acquire(s.app.ID, name)
	s.whenReady(ch, func() {
		s.attach(ch, member)
		s.succeeded(ch)
		s.afterJoin(ch)
	})
}

// pending is the index of a subscription whose channel is not ready yet:
// it is in s.subs (so a repeated subscribe, an unsubscribe or the close
// find it) but not in the hub's lists.
const pending = -1

// whenReady runs f on the connection's goroutine once ch is ready, unless
// the subscription was cancelled meanwhile (unsubscribe or close, which
// release the channel themselves).
func (s Call) whenReady(ch *hub.Channel, f func()) {
	s.add(subscription{ch: ch, index: pending})
	s.env.Hub.WhenReady(ch, s.conn.Shard(), func() {
		if s.dropPending(ch) {
			f()
		}
	})
}

// dropPending removes ch's pending subscription and reports whether there
// was one.
func (s Call) dropPending(ch *hub.Channel) bool {
	i := s.find(ch.Name())
	if i < 0 || s.subs[i].ch != ch || s.subs[i].index != pending {
		return false
	}
	s.remove(i)
	return true
}

// attach adds the connection to ch's subscribers; ch was acquired for it.
func (s Call) attach(ch *hub.Channel, member string) {
	index := s.env.Hub.Attach(ch, s.conn.Shard(), s.conn)
	s.add(subscription{ch: ch, index: int32(index), member: member})
}

// succeeded sends pusher_internal:subscription_succeeded for ch.
func (s Call) succeeded(ch *hub.Channel) {
	if pusher.KindOf(ch.Name()).IsPresence() {
		s.send(pusher.AppendPresenceSucceeded(nil, ch.Name(), s.env.Hub.MemberInfos(ch)))
		return
	}
	s.send(pusher.AppendSubscriptionSucceeded(nil, ch.Name()))
}

// afterJoin replays a cache channel's last event (or says it has none) and
// announces the new subscription count where the app asks for counts.
func (s Call) afterJoin(ch *hub.Channel) {
	name := ch.Name()
	if pusher.KindOf(name).IsCache() {
		if frame, ok := s.env.Hub.CachedFrame(s.app.ID, name); ok {
			s.conn.Send(frame)
		} else {
			s.send(pusher.AppendCacheMiss(nil, name))
			s.env.CacheMiss(s.app.ID, name)
		}
	}
	s.countChanged(ch)
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
	}
}

// leave drops subscription i, announcing a presence member's departure when
// this was the user's last connection in the channel.
func (s Call) leave(i int) {
	sub := s.subs[i]
	s.remove(i)
	h := s.env.Hub
	if sub.index == pending {
		h.Release(sub.ch)
		return
	}
	h.Detach(sub.ch, s.conn.Shard(), int(sub.index))
	if sub.member != "" && h.Leave(sub.ch, sub.member) {
		s.memberEvent(sub.ch, "pusher_internal:member_removed", memberJSON(sub.member, ""), "")
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
	s.send(pusher.AppendRawEvent(nil, "pusher:subscription_error", channel, data))
}
