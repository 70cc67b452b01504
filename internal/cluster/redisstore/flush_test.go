package redisstore

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/testutil"
)

// TestFlushBesideResyncWritesOnce runs a count flush (FlushCounts, as a
// stopping node does) beside a resync of the counts (as tickLoop does after
// an outage), each round on a channel's first subscriber: the node's share
// is written once, and channel_occupied is reported once.
func TestFlushBesideResyncWritesOnce(t *testing.T) {
	const rounds = 200
	obs := &clustertest.Occupancy{}
	rs, _ := nodesWith(t, testutil.MachineRedisURL, 1, 0, func(_ int, c *cluster.Settings) { c.Observer = obs })
	r := rs[0]
	ctx := context.Background()
	for i := range rounds {
		channel := fmt.Sprint("race-", i)
		r.Counts.Subscribed("app", channel, 1)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); r.FlushCounts() }()
		go func() { defer wg.Done(); r.Counts.Resync() }()
		wg.Wait()
		if n, err := r.Counts.Count(ctx, "app", channel); err != nil || n != 1 {
			t.Fatalf("round %d: count %d (%v), want 1", i, n, err)
		}
		if o := obs.Occupied.Load(); o != int32(i+1) {
			t.Fatalf("round %d: channel_occupied reported %d times, want %d", i, o, i+1)
		}
	}
}

// BenchmarkCountsFlush: a flush of 100 changed channels on the machine's
// Redis, their first subscriber and then their last (one pipeline each).
func BenchmarkCountsFlush(b *testing.B) {
	rs, _ := nodesWith(b, testutil.MachineRedisURL, 1, 0, clustertest.Quiet)
	clustertest.CountsFlush(b, rs[0])
}
