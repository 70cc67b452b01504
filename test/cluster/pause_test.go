package cluster

import (
	"net/http"
	"testing"
	"time"

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
// (internal/natscluster's TestNATSPauseDeliversAtMostOnce).
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
