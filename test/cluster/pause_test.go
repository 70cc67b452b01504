package cluster

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// pauseFor is how long TestNoDuplicatesAfterPause keeps Redis stopped:
// well past the 2 s a node waits for a batch of publishes before it tries
// the batch again.
const pauseFor = 6 * time.Second

// TestNoDuplicatesAfterPause stops Redis with SIGSTOP while a canary on
// node B receives an event every 100 ms published on node A. A node that
// gives up waiting for a PUBLISH and sends it again, though the paused
// Redis had queued it, makes B deliver it twice: every event must arrive
// exactly once.
//
// Redis only: the retry it guards against is the Redis publisher's (a
// batch of PUBLISH sent again after 2 s). A NATS publish is never sent
// again, and a paused NATS is tested in process
// (internal/cluster/natsstore's TestNATSPauseDeliversAtMostOnce).
func TestNoDuplicatesAfterPause(t *testing.T) {
	t.Parallel()
	d := newDuo(t, "roost-pause")
	d.waitReady(http.StatusOK, "ready")
	canary := startCanary(t, d.b, d.a, "canary")
	testutil.Eventually(t, testutil.ReadTimeout, "the canary's baseline", func() bool { return canary.Sent() >= canaryBaseline })
	d.redis.Pause()
	d.waitReady(http.StatusServiceUnavailable, "degraded:")
	outlast(pauseFor)
	d.redis.Resume()
	d.waitReady(http.StatusOK, "ready")
	after := canary.Sent()
	testutil.Eventually(t, testutil.ReadTimeout, "canary events after the pause", func() bool { return canary.Sent() >= after+10 })
	canary.Stop(stateChange)
	report := canary.Report(time.Time{}, time.Time{})
	t.Logf("canary across the pause: %v", report)
	if report.Duplicates > 0 {
		t.Errorf("%d canary events were delivered more than once: %v", report.Duplicates, report)
	}
}

// TestPublishesThroughAPausedRedisAreStored stops Redis with SIGSTOP, which a node
// does not take for an outage until its heartbeat goes unanswered too. The
// first HTTP API publish after it waits for the store, up to the hub's
// store wait; the next ones, while Redis is still paused, answer 200
// without waiting again (docs/cluster.md, "What a 200 means"). That they
// wait no more is the hub's rule, checked without a clock by
// internal/hub's TestWaitStoredAnswersAtOnceAfterAWaitRanOut; here, over a
// real paused Redis, every publish answers 200 and their durations are
// logged, not held to a budget. Once Redis runs again, a 200 means stored
// again: node B's cache holds each value node A answered 200 to.
func TestPublishesThroughAPausedRedisAreStored(t *testing.T) {
	t.Parallel()
	d := newDuo(t, "roost-pausepub")
	d.waitReady(http.StatusOK, "ready")
	d.a.trigger("cache-paused", "e", "before")
	d.redis.Pause()
	d.a.trigger("cache-paused", "e", "held") // waits out the store wait
	for i := range 3 {
		start := time.Now()
		d.a.trigger("cache-paused", "e", "during")
		t.Logf("publish %d after the wait ran out, Redis still paused: %v (the store wait is %v)", i+1, time.Since(start), hub.DefaultStoreWait)
	}
	d.redis.Resume()
	d.waitReady(http.StatusOK, "ready")
	testutil.Eventually(t, stateChange, "node B's cache catching up after the pause", func() bool {
		return cachedData(t, d.b, "cache-paused") == "during"
	})
	// The late mark went to Redis before the backlog B has now read; one
	// more publish and read give node A time to have taken its answer.
	d.a.trigger("cache-paused", "e", "settled")
	cachedData(t, d.b, "cache-paused")
	for i := range 50 {
		want := "after-" + strconv.Itoa(i)
		d.a.trigger("cache-paused", "e", want)
		if got := cachedData(t, d.b, "cache-paused"); got != want {
			t.Fatalf("after the pause, node B's cache holds %q once node A answered 200 to %q", got, want)
		}
	}
}
