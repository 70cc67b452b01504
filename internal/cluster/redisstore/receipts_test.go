package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/testutil"
)

// TestCountBatchAnsweredLateReportedOnce: a count batch that a stopped
// Redis (SIGSTOP) runs only when it resumes, its answer lost to the node's
// timeout, is sent again under its id and its transitions reported once.
func TestCountBatchAnsweredLateReportedOnce(t *testing.T) {
	onFaultBackends(t, func(t *testing.T, redis testutil.RedisServer) {
		start := func(set func(int, *cluster.Settings)) *node {
			rs, _ := nodesWith(t, redis.URL(), 1, 0, set)
			return rs[0]
		}
		clustertest.CountBatchAnsweredLate(t, start, redis.Pause, redis.Resume, redisWait)
	})
}

// TestCountBatchOlderIgnored: a count batch older than the node's last
// one (a copy of a first try that Redis reads only after the batch was
// sent again, answered, and followed by the next) changes nothing.
func TestCountBatchOlderIgnored(t *testing.T) {
	rs, _ := nodes(t, testutil.MachineRedisURL, 1, 0)
	r := rs[0]
	r.Counts.Resync()
	ctx := context.Background()
	k := cluster.Key{App: "app", Name: "late"}
	id := uint64(time.Now().UnixNano())
	for _, b := range []cluster.Batch{{ID: id + 1, Counts: map[cluster.Key]int{k: 1}}, {ID: id, Counts: map[cluster.Key]int{k: 1}}} {
		if _, err := r.Store.AddCounts(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := r.Store.Count(ctx, k.App, k.Name); err != nil || n != 1 {
		t.Fatalf("count %d (%v) after a late older batch, want 1", n, err)
	}
}
