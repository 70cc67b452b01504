package server

import (
	"encoding/json"
	"testing"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// sign returns the auth field the development app's backend would give c
// for channel.
func sign(c *testutil.Client, channel, channelData string) string {
	return c.ChannelAuth("app-key", "app-secret", channel, channelData)
}

// subscribePresence joins channel as user, with the user's name as info.
func subscribePresence(t *testing.T, c *testutil.Client, channel, user string) testutil.Frame {
	t.Helper()
	data := `{"user_id":"` + user + `","user_info":{"name":"` + user + `"}}`
	return c.SubscribeWith(channel, sign(c, channel, data), data)
}

func TestPrivateChannelAuth(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		c := s.connect(t)
		c.Send(`{"event":"pusher:subscribe","data":{"channel":"private-a","auth":"app-key:00"}}`)
		ev := c.Expect("pusher:subscription_error")
		if !contains(string(ev.Data), `"status":401`) || contains(string(ev.Data), sign(c, "private-a", "")) {
			t.Fatalf("subscription_error data %s", ev.Data)
		}
		c.SubscribeWith("private-a", sign(c, "private-a", ""), "")
	})
}

func TestPresenceTabsAreOneMember(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		watcher, tab1, tab2 := s.connect(t), s.connect(t), s.connect(t)
		subscribePresence(t, watcher, "presence-room", "w")
		subscribePresence(t, tab1, "presence-room", "u")
		ev := watcher.Expect("pusher_internal:member_added")
		ok := subscribePresence(t, tab2, "presence-room", "u")
		var p struct {
			Presence struct {
				Count int
				IDs   []string
			}
		}
		tab2.DecodeData(ok, &p)
		if p.Presence.Count != 2 {
			t.Fatalf("presence data %s, want 2 members", ok.Data)
		}
		tab1.Conn.Close()
		testutil.Eventually(t, waitLimit, "tab1 gone", func() bool { return channelOf(s, "presence-room").SubscriptionCount == 2 })
		tab2.Conn.Close()
		ev = watcher.Expect("pusher_internal:member_removed") // no second member_added came before it
		if !contains(string(ev.Data), `\"user_id\":\"u\"`) {
			t.Fatalf("member_removed %s", ev.Data)
		}
	})
}

func TestClientEventsAndRateLimit(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		a, b := s.connect(t), s.connect(t)
		for _, c := range []*testutil.Client{a, b} {
			c.SubscribeWith("private-chat", sign(c, "private-chat", ""), "")
		}
		for i := 0; i < 11; i++ {
			a.Send(`{"event":"client-typing","channel":"private-chat","data":{"n":%d}}`, i)
		}
		a.Expect("pusher:error") // the 11th in one second; nothing is echoed to the sender before it
		for i := 0; i < 10; i++ {
			b.Expect("client-typing")
		}
		a.Ping()
	})
}

func TestCacheChannel(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		a := s.connect(t)
		a.Subscribe("cache-x")
		a.Expect("pusher:cache_miss")
		s.Hub().Publish("app-id", hub.Publication{Channels: []string{"cache-x"}, Event: "e", Data: "v1"})
		a.Expect("e")
		b := s.connect(t)
		b.Subscribe("cache-x")
		if ev := b.Expect("e"); string(ev.Data) != `"v1"` {
			t.Fatalf("cached event data %s", ev.Data)
		}
	})
}

func TestSigninWatchlistAndSendToUser(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) {})
		signin := func(c *testutil.Client, user string, watch ...string) {
			ud, _ := json.Marshal(map[string]any{"id": user, "watchlist": watch})
			sig := "app-key:" + auth.Sign("app-secret", auth.UserMessage(c.SocketID, string(ud)))
			c.Send(`{"event":"pusher:signin","data":{"auth":%q,"user_data":%q}}`, sig, ud)
			c.Expect("pusher:signin_success")
		}
		a, b1, b2 := s.connect(t), s.connect(t), s.connect(t)
		signin(a, "a", "b")
		if ev := a.Expect("pusher_internal:watchlist_events"); contains(string(ev.Data), "online") {
			t.Fatalf("b reported online before signing in: %s", ev.Data)
		}
		signin(b1, "b")
		if ev := a.Expect("pusher_internal:watchlist_events"); !contains(string(ev.Data), "online") {
			t.Fatalf("watchlist event %s", ev.Data)
		}
		signin(b2, "b") // a second tab: no new event for a
		s.Hub().Publish("app-id", hub.Publication{Channels: []string{hub.ServerToUserPrefix + "b"}, Event: "hello", Data: "{}"})
		b1.Expect("hello")
		b2.Expect("hello")
		s.Hub().TerminateUser("app-id", "b")
		b1.CloseCode()
		b2.CloseCode()
		if ev := a.Expect("pusher_internal:watchlist_events"); !contains(string(ev.Data), "offline") {
			t.Fatalf("watchlist event %s", ev.Data)
		}
	})
}
