package session

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/pusher"
)

// TestClientEvents checks who may send a client event and who receives it
// (Pusher docs, "Client events": only client- events, on private and
// presence channels the sender has joined, when the app allows them, never
// echoed to the sender, with user_id on presence channels).
func TestClientEvents(t *testing.T) {
	const onlyPrivate = "client events are only allowed on private and presence channels that are not encrypted"
	off := func(a *config.App) { a.ClientEvents = false }
	cases := []struct {
		name    string
		app     func(*config.App)
		channel string // both connections join it, unless empty
		send    string
		sender  []string // what the sender receives
		other   []string // what the other subscriber receives
	}{
		{name: "private", channel: "private-c", send: `{"event":"client-x","channel":"private-c","data":{"n":1}}`,
			other: []string{event("client-x", "private-c", `{"n":1}`)}},
		{name: "string data stays a string", channel: "private-c", send: `{"event":"client-x","channel":"private-c","data":"hi"}`,
			other: []string{event("client-x", "private-c", "hi")}},
		{name: "presence adds user_id", channel: "presence-c", send: `{"event":"client-x","channel":"presence-c","data":{}}`,
			other: []string{`{"event":"client-x","channel":"presence-c","data":"{}","user_id":"sender"}`}},
		{name: "app does not allow them", app: off, channel: "private-c", send: `{"event":"client-x","channel":"private-c","data":{}}`,
			sender: []string{pusherError(0, "client events are not enabled for this app")}},
		{name: "public channel", channel: "news", send: `{"event":"client-x","channel":"news","data":{}}`,
			sender: []string{pusherError(0, onlyPrivate)}},
		{name: "encrypted channel", channel: "private-encrypted-c", send: `{"event":"client-x","channel":"private-encrypted-c","data":{}}`,
			sender: []string{pusherError(0, onlyPrivate)}},
		{name: "channel not joined", send: `{"event":"client-x","channel":"private-c","data":{}}`,
			sender: []string{pusherError(0, `not subscribed to channel "private-c"`)}},
		{name: "not a client- event", channel: "private-c", send: `{"event":"x","channel":"private-c","data":{}}`,
			sender: []string{pusherError(0, `unsupported event "x"`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.app)
			sender, other := f.connect(), f.connect()
			if tc.channel != "" {
				sender.join(tc.channel, member(tc.channel, "sender"))
				other.join(tc.channel, member(tc.channel, "other"))
				sender.take()
			}
			sender.send(tc.send)
			sender.expect(tc.sender...)
			other.expect(tc.other...)
		})
	}
}

// member is the channel_data of user on a presence channel, else "".
func member(channel, user string) string {
	if !pusher.KindOf(channel).IsPresence() {
		return ""
	}
	return `{"user_id":"` + user + `"}`
}

// TestClientEventRateLimit: ten client events per second per connection;
// the eleventh in the same second is dropped with a 4301 pusher:error and
// the connection stays up. The next second allows ten again.
func TestClientEventRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		sender, other := f.connect(), f.connect()
		sender.join("private-c", "")
		other.join("private-c", "")
		burst := func(n int) {
			for i := range n {
				sender.send(fmt.Sprintf(`{"event":"client-x","channel":"private-c","data":{"n":%d}}`, i))
			}
		}
		limited := pusherError(pusher.ClientRateLimit, "client event rate limit reached: event dropped")

		burst(11)
		sender.expect(limited)
		if got := len(other.take()); got != 10 {
			t.Fatalf("%d events delivered in the first second, want 10", got)
		}
		time.Sleep(999 * time.Millisecond)
		burst(1)
		sender.expect(limited) // still the same second
		time.Sleep(time.Millisecond)
		burst(10)
		sender.expect()
		if got := len(other.take()); got != 10 {
			t.Fatalf("%d events delivered in the next second, want 10", got)
		}
		if sender.closeCode() != 0 {
			t.Fatalf("the rate limit closed the connection with %d", sender.closeCode())
		}
	})
}
