package server

import (
	"encoding/json"
	"testing"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
)

// sign returns the auth field a backend would give c for channel.
func (c *client) sign(channel, channelData string) string {
	return "app-key:" + auth.Sign("app-secret", auth.ChannelMessage(c.socketID, channel, channelData))
}

func (c *client) subscribePresence(channel, user string) event {
	c.t.Helper()
	data := `{"user_id":"` + user + `","user_info":{"name":"` + user + `"}}`
	c.send(`{"event":"pusher:subscribe","data":{"channel":%q,"auth":%q,"channel_data":%q}}`, channel, c.sign(channel, data), data)
	return c.expect("pusher_internal:subscription_succeeded")
}

func TestPrivateChannelAuth(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		c := s.connect(t)
		c.send(`{"event":"pusher:subscribe","data":{"channel":"private-a","auth":"app-key:00"}}`)
		ev := c.expect("pusher:subscription_error")
		if !contains(string(ev.Data), `"status":401`) || contains(string(ev.Data), c.sign("private-a", "")) {
			t.Fatalf("subscription_error data %s", ev.Data)
		}
		c.send(`{"event":"pusher:subscribe","data":{"channel":"private-a","auth":%q}}`, c.sign("private-a", ""))
		c.expect("pusher_internal:subscription_succeeded")
	})
}

func TestPresenceTabsAreOneMember(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		watcher, tab1, tab2 := s.connect(t), s.connect(t), s.connect(t)
		watcher.subscribePresence("presence-room", "w")
		tab1.subscribePresence("presence-room", "u")
		ev := watcher.expect("pusher_internal:member_added")
		ok := tab2.subscribePresence("presence-room", "u")
		var p struct {
			Presence struct {
				Count int
				IDs   []string
			}
		}
		tab2.decodeData(ok, &p)
		if p.Presence.Count != 2 {
			t.Fatalf("presence data %s, want 2 members", ok.Data)
		}
		tab1.c.Close()
		waitFor(t, "tab1 gone", func() bool { return s.Hub().Channel("app-id", "presence-room").SubscriptionCount == 2 })
		tab2.c.Close()
		ev = watcher.expect("pusher_internal:member_removed") // no second member_added came before it
		if !contains(string(ev.Data), `\"user_id\":\"u\"`) {
			t.Fatalf("member_removed %s", ev.Data)
		}
	})
}

func TestClientEventsAndRateLimit(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		a, b := s.connect(t), s.connect(t)
		for _, c := range []*client{a, b} {
			c.send(`{"event":"pusher:subscribe","data":{"channel":"private-chat","auth":%q}}`, c.sign("private-chat", ""))
			c.expect("pusher_internal:subscription_succeeded")
		}
		for i := 0; i < 11; i++ {
			a.send(`{"event":"client-typing","channel":"private-chat","data":{"n":%d}}`, i)
		}
		a.expect("pusher:error") // the 11th in one second; nothing is echoed to the sender before it
		for i := 0; i < 10; i++ {
			b.expect("client-typing")
		}
		a.send(`{"event":"pusher:ping","data":{}}`)
		a.expect("pusher:pong")
	})
}

func TestCacheChannel(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		a := s.connect(t)
		a.subscribe("cache-x")
		a.expect("pusher:cache_miss")
		s.Hub().Publish("app-id", hub.Publication{Channels: []string{"cache-x"}, Event: "e", Data: "v1"})
		a.expect("e")
		b := s.connect(t)
		b.subscribe("cache-x")
		if ev := b.expect("e"); string(ev.Data) != `"v1"` {
			t.Fatalf("cached event data %s", ev.Data)
		}
	})
}

func TestSigninWatchlistAndSendToUser(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) {})
		signin := func(c *client, user string, watch ...string) {
			ud, _ := json.Marshal(map[string]any{"id": user, "watchlist": watch})
			sig := "app-key:" + auth.Sign("app-secret", auth.UserMessage(c.socketID, string(ud)))
			c.send(`{"event":"pusher:signin","data":{"auth":%q,"user_data":%q}}`, sig, ud)
			c.expect("pusher:signin_success")
		}
		a, b1, b2 := s.connect(t), s.connect(t), s.connect(t)
		signin(a, "a", "b")
		if ev := a.expect("pusher_internal:watchlist_events"); contains(string(ev.Data), "online") {
			t.Fatalf("b reported online before signing in: %s", ev.Data)
		}
		signin(b1, "b")
		if ev := a.expect("pusher_internal:watchlist_events"); !contains(string(ev.Data), "online") {
			t.Fatalf("watchlist event %s", ev.Data)
		}
		signin(b2, "b") // a second tab: no new event for a
		s.Hub().Publish("app-id", hub.Publication{Channels: []string{hub.ServerToUserPrefix + "b"}, Event: "hello", Data: "{}"})
		b1.expect("hello")
		b2.expect("hello")
		s.Hub().TerminateUser("app-id", "b")
		b1.closeCode()
		b2.closeCode()
		if ev := a.expect("pusher_internal:watchlist_events"); !contains(string(ev.Data), "offline") {
			t.Fatalf("watchlist event %s", ev.Data)
		}
	})
}
