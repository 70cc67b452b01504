package session

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/pusher"
)

// TestSubscriptionLimit: a connection may hold
// limits.max_subscriptions_per_connection channels; one more is refused
// with subscription_error LimitReached and the connection keeps the others.
// A repeated subscribe is not a new one, leaving frees a place, and the
// channels a sign-in joins do not count.
func TestSubscriptionLimit(t *testing.T) {
	full := subscriptionError("c", "LimitReached", "a connection may subscribe to at most 2 channels; unsubscribe from one first", 403)
	f := newFixture(t, nil)
	f.env.Config.Limits.MaxSubscriptionsPerConnection = 2
	r := f.connect()
	r.send(r.signin(`{"id":"alice","watchlist":["bob","carol","dave"]}`))
	r.take()
	r.join("a", "")
	r.join("private-b", "")
	r.send(subscribe("c", "", ""))
	r.expect(full)
	r.send(subscribe("a", "", ""))
	r.expect(succeeded("a"))
	r.send(message("pusher:unsubscribe", "", map[string]string{"channel": "a"}))
	r.send(subscribe("c", "", ""))
	r.expect(succeeded("c"))
	r.send(subscribe("d", "", ""))
	r.expect(subscriptionError("d", "LimitReached", "a connection may subscribe to at most 2 channels; unsubscribe from one first", 403))
	if r.closeCode() != 0 {
		t.Fatalf("the limit closed the connection with %d", r.closeCode())
	}
	f.publish("private-b", "e", "kept")
	r.expect(event("e", "private-b", "kept"))
}

// TestAppClientEventLimit: apps[].max_client_events_per_sec counts the
// client events of all the app's connections on the node; one over it is
// dropped with 4301 even though its own connection is within its limit,
// and the next second allows the app's count again.
func TestAppClientEventLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, func(a *config.App) { a.MaxClientEventsPerSec = 3 })
		a, b, other := f.connect(), f.connect(), f.connect()
		for _, r := range []*recorder{a, b, other} {
			r.join("private-c", "")
		}
		send := func(r *recorder, n int) {
			r.send(fmt.Sprintf(`{"event":"client-x","channel":"private-c","data":{"n":%d}}`, n))
		}
		relayed := func(n int) string { return event("client-x", "private-c", fmt.Sprintf(`{"n":%d}`, n)) }
		limited := pusherError(pusher.ClientRateLimit, "the app's client event rate limit reached: event dropped")

		send(a, 1)
		send(a, 2)
		send(b, 3)
		send(b, 4)
		b.expect(relayed(1), relayed(2), limited) // a's events, then the refusal of its own second
		other.expect(relayed(1), relayed(2), relayed(3))
		a.expect(relayed(3))
		time.Sleep(time.Second)
		send(b, 5)
		b.expect()
		other.expect(relayed(5))
	})
}

// TestAppRatesAcrossGoroutines: the loops of a node count an app's client
// events together; however they interleave, one second allows exactly the
// app's limit.
func TestAppRatesAcrossGoroutines(t *testing.T) {
	var r appRates
	app := &config.App{ID: "a", MaxClientEventsPerSec: 1000}
	allowed := make(chan int)
	for range 4 {
		go func() {
			n := 0
			for range 500 {
				if r.allow(app, 7) {
					n++
				}
			}
			allowed <- n
		}()
	}
	total := 0
	for range 4 {
		total += <-allowed
	}
	if total != 1000 {
		t.Fatalf("%d of 2,000 client events allowed in one second, want the app's 1,000", total)
	}
	if !r.allow(app, 8) {
		t.Fatal("the next second refused the app's first event")
	}
}
