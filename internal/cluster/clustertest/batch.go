package clustertest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/testutil"
)

// CountBatchMadeOnce checks that a store makes a count batch once
// (cluster.Batch): a batch sent again, as a node does when the answer to
// the first try was lost, gets the first try's transitions back and
// changes nothing. It writes through n's store directly, with ids above
// any n has used.
func CountBatchMadeOnce[S cluster.Store](t *testing.T, n *Node[S]) {
	t.Helper()
	n.Counts.Resync() // the node's first resync is behind us: no batch of its own runs alongside
	ctx := context.Background()
	k := cluster.Key{App: "app", Name: "once"}
	id := uint64(time.Now().UnixNano())
	steps := []struct {
		name     string
		id       uint64
		outright bool
		delta    int
		want     []cluster.Transition
		count    int
	}{
		{"a subscription", id, false, 1, []cluster.Transition{{Key: k, Before: 0, After: 1}}, 1},
		{"the same batch again", id, false, 1, []cluster.Transition{{Key: k, Before: 0, After: 1}}, 1},
		{"an unsubscription", id + 1, false, -1, []cluster.Transition{{Key: k, Before: 1, After: 0}}, 0},
		{"the same batch again", id + 1, false, -1, []cluster.Transition{{Key: k, Before: 1, After: 0}}, 0},
		{"a resync", id + 2, true, 1, []cluster.Transition{{Key: k, Before: 0, After: 1}}, 1},
		{"the same resync again", id + 2, true, 1, []cluster.Transition{{Key: k, Before: 0, After: 1}}, 1},
	}
	for _, s := range steps {
		write := n.Store.AddCounts
		if s.outright {
			write = n.Store.SetCounts
		}
		got, err := write(ctx, cluster.Batch{ID: s.id, Counts: map[cluster.Key]int{k: s.delta}})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got = slices.DeleteFunc(got, func(tr cluster.Transition) bool { return tr.Before > 0 == (tr.After > 0) })
		if !slices.Equal(got, s.want) {
			t.Fatalf("%s: transitions %+v, want %+v", s.name, got, s.want)
		}
		if c, err := n.Store.Count(ctx, k.App, k.Name); err != nil || c != s.count {
			t.Fatalf("%s: count %d (%v), want %d", s.name, c, err, s.count)
		}
	}
}

// lateReply is the SlowReply of CountBatchAnsweredLate's node: short, so
// that a paused store's answer is lost to it.
const lateReply = 300 * time.Millisecond

// CountBatchAnsweredLate checks that a count batch a stopped store makes
// only when it resumes, its answer lost to the node's timeout, is sent
// again under its id: the channel it vacated and the one it occupied are
// each reported once, and a resync after it reports nothing more. start
// opens one node on the store that pause stops and resume resumes, its
// settings changed by set (a short SlowReply, an observer of its own).
func CountBatchAnsweredLate[S cluster.Store](t *testing.T, start func(set func(i int, c *cluster.Settings)) *Node[S], pause, resume func(), wait time.Duration) {
	t.Helper()
	obs := &Occupancy{}
	n := start(func(_ int, c *cluster.Settings) { c.Observer, c.SlowReply = obs, lateReply })
	testutil.Eventually(t, wait, "node ready", func() bool { return n.Ready() == nil })
	n.Counts.Subscribed("app", "leaving", 1)
	n.FlushCounts()
	testutil.Eventually(t, wait, "channel_occupied", func() bool { return obs.Occupied.Load() == 1 })
	pause()
	n.Counts.Subscribed("app", "leaving", -1)
	n.Counts.Subscribed("app", "coming", 1)
	n.FlushCounts() // times out; the store makes it when it resumes
	resume()
	testutil.Eventually(t, wait, "the batch's transitions reported", func() bool {
		return n.Ready() == nil && obs.Occupied.Load() == 2 && obs.Vacated.Load() == 1
	})
	n.Counts.Resync()
	ctx := context.Background()
	for channel, want := range map[string]int{"leaving": 0, "coming": 1} {
		if c, err := n.Counts.Count(ctx, "app", channel); err != nil || c != want {
			t.Fatalf("%s: count %d (%v), want %d", channel, c, err, want)
		}
	}
	if o, v := obs.Occupied.Load(), obs.Vacated.Load(); o != 2 || v != 1 {
		t.Fatalf("channel_occupied %d, channel_vacated %d; want 2 and 1", o, v)
	}
}
