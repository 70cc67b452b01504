package cluster

import (
	"net/http"
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// TestFreshRedis runs two nodes on a Redis that has never seen roost (an
// empty script cache, as after any Redis restart or on a new machine): the
// subscription counts that node A writes must be visible from node B, and
// both nodes must stay ready while they write them.
//
// Redis only: the script cache (EVALSHA answered NOSCRIPT) is Redis's;
// NATS runs no scripts.
func TestFreshRedis(t *testing.T) {
	d := newDuo(t, "roost-fresh")
	d.waitReady(http.StatusOK, "ready")
	dial(t, d.a, "sA").Subscribe("news")
	var count int
	if !testutil.Poll(stateChange, func() bool { count = d.subscriptions(d.b, "news"); return count == 1 }) {
		t.Fatalf("subscription_count of news from node B = %d, want 1 (one subscriber on node A)", count)
	}
	d.waitReady(http.StatusOK, "ready")
}
