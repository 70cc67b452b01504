package session

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// TestCachedEventExpires: a cache channel replays its last event for 30
// minutes after it was published, then answers cache_miss (Pusher docs,
// "Cache channels").
func TestCachedEventExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.publish("cache-x", "e", "v1")
		time.Sleep(30*time.Minute - time.Second)
		early := f.connect()
		early.send(subscribe("cache-x", "", ""))
		early.expect(succeeded("cache-x"), event("e", "cache-x", "v1"))
		time.Sleep(2 * time.Second)
		late := f.connect()
		late.send(subscribe("cache-x", "", ""))
		late.expect(succeeded("cache-x"), `{"event":"pusher:cache_miss","channel":"cache-x"}`)
	})
}

// TestSubscriptionCountThrottle: above 100 subscribers a channel's
// subscription_count goes out at most every 5 seconds, carrying the count
// at that time (Pusher docs, "Subscription counting").
func TestSubscriptionCountThrottle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, func(a *config.App) { a.SubscriptionCount = true })
		count := func(n string) string {
			return event("pusher_internal:subscription_count", "busy", `{"subscription_count":`+n+`}`)
		}
		subs := make([]*recorder, 99)
		for i := range subs {
			subs[i] = f.connect()
			subs[i].join("busy", "")
		}
		subs[0].take()
		last := f.connect()
		last.send(subscribe("busy", "", ""))
		last.expect(succeeded("busy"), count("100")) // up to 100, every change goes out at once
		subs[0].expect(count("100"))
		subs = append(subs, last)
		for _, s := range subs {
			s.take()
		}

		late := []*recorder{f.connect(), f.connect()}
		for _, s := range late {
			s.send(subscribe("busy", "", ""))
			s.expect(succeeded("busy"))
		}
		time.Sleep(5*time.Second - time.Nanosecond)
		synctest.Wait()
		subs[0].expect() // 101 and 102 came too soon after 100

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		for _, s := range append(subs, late...) {
			s.expect(count("102"))
		}
	})
}
