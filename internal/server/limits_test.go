package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// TestSubscriptionLimit: over limits.max_subscriptions_per_connection a
// subscribe gets pusher:subscription_error LimitReached 403, on both
// transports; the connection stays and keeps its channels, and leaving one
// makes room for another.
func TestSubscriptionLimit(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.MaxSubscriptionsPerConnection = 20 })
		c := s.connect(t)
		for i := range 20 {
			c.Subscribe(fmt.Sprint("room-", i))
		}
		c.Send(`{"event":"pusher:subscribe","data":{"channel":"room-20"}}`)
		f := c.Expect("pusher:subscription_error")
		var e struct {
			Type   string
			Error  string
			Status int
		}
		c.DecodeData(f, &e)
		if f.Channel != "room-20" || e.Type != "LimitReached" || e.Status != 403 || !strings.Contains(e.Error, "at most 20 channels") {
			t.Fatalf("subscription_error %s", f)
		}
		c.Ping()
		c.Send(`{"event":"pusher:unsubscribe","data":{"channel":"room-0"}}`)
		c.Subscribe("room-20")
	})
}

// TestAppClientEventLimit: apps[].max_client_events_per_sec counts the
// client events of all the app's connections on the node. Two connections
// send ten client events together, each within its own limit; at most two
// one-second windows pass meanwhile, so at most six are relayed and the
// rest are refused with 4301.
func TestAppClientEventLimit(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Apps[0].MaxClientEventsPerSec = 3 })
		a, b, other := s.connect(t), s.connect(t), s.connect(t)
		for _, c := range []*testutil.Client{a, b, other} {
			c.SubscribeWith("private-chat", sign(c, "private-chat", ""), "")
		}
		for i := range 10 {
			sender := []*testutil.Client{a, b}[i%2]
			sender.Send(`{"event":"client-typing","channel":"private-chat","data":{"n":%d}}`, i)
		}
		refused := 0
		for _, c := range []*testutil.Client{a, b} {
			c.Send(`{"event":"pusher:ping","data":{}}`)
			c.Next(testutil.Named("pusher:pong"))
			for _, data := range c.Events("", "pusher:error") {
				if !strings.Contains(data, `"code":4301`) || !strings.Contains(data, "the app's client event rate limit") {
					t.Fatalf("pusher:error %s", data)
				}
				refused++
			}
		}
		other.Send(`{"event":"pusher:ping","data":{}}`)
		other.Next(testutil.Named("pusher:pong"))
		relayed := len(other.Events("private-chat", "client-typing"))
		if relayed+refused != 10 || relayed < 3 || relayed > 6 {
			t.Fatalf("%d client events relayed and %d refused, want 3 to 6 relayed and the rest refused", relayed, refused)
		}
	})
}
