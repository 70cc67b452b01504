package cluster

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// subscribeRounds is how many fresh channels TestSubscribeThenPublish tries.
// The race it looks for lost about one event in 300 when it was found.
const subscribeRounds = 300

// TestSubscribeThenPublish checks what a single node guarantees, across two:
// once a client has subscription_succeeded, an event published afterwards
// reaches it, even when it is published on another node at once. A node that
// answers before its Redis subscription to the channel is active loses such
// events (docs/design.md, "A subscription is answered only when its channel
// is ready"). It runs on every row of testutil.Backends.
func TestSubscribeThenPublish(t *testing.T) {
	onBackends(t, subscribeThenPublish)
}

func subscribeThenPublish(t *testing.T, b testutil.Backend) {
	d := newDuoOn(t, "roost-subscribe", b)
	d.waitReady(http.StatusOK, "ready")
	sub := dial(t, d.b, "subscriber on B")
	for i := range subscribeRounds {
		channel := "fresh-" + strconv.Itoa(i)
		sub.Subscribe(channel)
		d.a.trigger(channel, "first", "published on A right after subscription_succeeded on B")
		d.a.trigger(channel, "second", "published on A after the first")
		if _, ok := sub.Await(testutil.ReadTimeout, inChannel(channel, "second")); !ok {
			t.Fatalf("round %d: both events published on A after subscription_succeeded on B were lost; %s",
				i, sub.Describe())
		}
		if len(sub.Events(channel, "first")) != 1 {
			t.Fatalf("round %d: the event published on A right after subscription_succeeded on B was lost "+
				"(the later one arrived); %s", i, sub.Describe())
		}
		// Leave the channel, so a connection's subscription cap never
		// limits how many rounds run.
		sub.Send(`{"event":"pusher:unsubscribe","data":{"channel":%q}}`, channel)
	}
}
