package cluster

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/roostproject/roost/internal/clusterkit/clustertest"
	"github.com/roostproject/roost/internal/testutil"
)

// TestFlushBesideResyncWritesOnce runs a count flush (FlushCounts, as a
// stopping node does) beside a resync of the counts (as tickLoop does after
// an outage), each round on a channel's first subscriber: the node's share
// is written once, and channel_occupied is reported once.
func TestFlushBesideResyncWritesOnce(t *testing.T) {
	const rounds = 200
	obs := &clustertest.Occupancy{}
	rs, _ := nodesWith(t, testutil.MachineRedisURL, 1, 0, func(_ int, c *Config) { c.Observer = obs })
	r := rs[0]
	ctx := context.Background()
	for i := range rounds {
		channel := fmt.Sprint("race-", i)
		r.counts.Subscribed("app", channel, 1)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); r.FlushCounts() }()
		go func() { defer wg.Done(); r.counts.resync() }()
		wg.Wait()
		if n, err := r.counts.Count(ctx, "app", channel); err != nil || n != 1 {
			t.Fatalf("round %d: count %d (%v), want 1", i, n, err)
		}
		if o := obs.Occupied.Load(); o != int32(i+1) {
			t.Fatalf("round %d: channel_occupied reported %d times, want %d", i, o, i+1)
		}
	}
}

// TestCountBatchSentAgainIsWrittenOnce sends a count batch again under its
// id, as a node does when Redis's answer was lost (a timeout, a stalled
// Redis that runs the batch when it resumes): the change is made once and
// its channel_occupied reported once; the next batch changes the count.
func TestCountBatchSentAgainIsWrittenOnce(t *testing.T) {
	obs := &clustertest.Occupancy{}
	rs, _ := nodesWith(t, testutil.MachineRedisURL, 1, 0, func(_ int, c *Config) { c.Observer = obs })
	r := rs[0]
	c := &r.counts
	k := pair{App: "app", Name: "again"}
	id := strconv.FormatUint(c.batchID, 10)
	keys := []string{r.channelsKey(k.App), r.receiptsKey(k.App)}
	if err := addScript.Run(context.Background(), r.rdb, keys, k.Name, r.node, 1, "", 0, id).Err(); err != nil {
		t.Fatal(err) // the batch Redis carried out, its answer lost
	}
	c.batch = map[pair]int{k: 1}
	if !c.send() {
		t.Fatal("batch not written")
	}
	if n, err := c.Count(context.Background(), k.App, k.Name); err != nil || n != 1 {
		t.Fatalf("count %d (%v) after one batch sent twice, want 1", n, err)
	}
	if o := obs.Occupied.Load(); o != 1 {
		t.Fatalf("channel_occupied reported %d times, want 1", o)
	}
	c.batch, c.batchID = map[pair]int{k: 1}, c.batchID+1
	c.send()
	if n, _ := c.Count(context.Background(), k.App, k.Name); n != 2 {
		t.Fatalf("count %d after the next batch, want 2", n)
	}
}

// TestResyncSentAgainReportsOnce: a resync of the counts whose answer was
// lost (it ran when a stalled Redis resumed) is sent again under its id,
// and the channel it took from zero is reported occupied once.
func TestResyncSentAgainReportsOnce(t *testing.T) {
	obs := &clustertest.Occupancy{}
	rs, _ := nodesWith(t, testutil.MachineRedisURL, 1, 0, func(_ int, c *Config) { c.Observer = obs })
	r := rs[0]
	c := &r.counts
	c.Subscribed("app", "resynced", 1)
	c.syncing, c.batchID = c.shares(), c.batchID+1
	args := append(c.syncing["app"][:len(c.syncing["app"]):len(c.syncing["app"])], strconv.FormatUint(c.batchID, 10))
	keys := []string{r.channelsKey("app"), r.receiptsKey("app")}
	if err := syncScript.Run(context.Background(), r.rdb, keys, args...).Err(); err != nil {
		t.Fatal(err) // the resync Redis carried out, its answer lost
	}
	c.sendSync()
	if c.syncing != nil {
		t.Fatal("resync not answered")
	}
	if o := obs.Occupied.Load(); o != 1 {
		t.Fatalf("channel_occupied reported %d times, want 1", o)
	}
	if n, err := c.Count(context.Background(), "app", "resynced"); err != nil || n != 1 {
		t.Fatalf("count %d (%v), want 1", n, err)
	}
}
