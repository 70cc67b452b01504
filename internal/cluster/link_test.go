package cluster

import (
	"context"
	"testing"
	"time"
)

func TestUpAfterDownSettlesLater(t *testing.T) {
	s := NewLink()
	if !s.Up() || s.Recovered.Load() != 0 || !s.Settled(time.Hour) {
		t.Fatal("the first answer is no recovery: a node that saw no outage is settled")
	}
	if s.Ready("redis") != nil {
		t.Fatal("not ready while the store answers")
	}
	if !s.Down() || s.Healthy.Load() || !s.Dirty.Load() || s.Ready("redis") == nil {
		t.Fatal("down: want the link unhealthy, dirty and not ready, reported as a change")
	}
	if s.Down() {
		t.Fatal("a second down reported a change")
	}
	if !s.Up() || s.Recovered.Load() == 0 {
		t.Fatal("up after an outage: want the recovery time noted")
	}
	if s.Settled(time.Hour) || !s.Settled(0) {
		t.Fatal("settled: want false for an hour after the outage, true for no time")
	}
}

func TestSuspectKeepsOneRequest(t *testing.T) {
	s := NewLink()
	s.Suspect()
	s.Suspect()
	<-s.Suspects()
	select {
	case <-s.Suspects():
		t.Fatal("two requests waiting, want one")
	default:
	}
}

func TestEpochsReportsAnotherNodesNewEpoch(t *testing.T) {
	s := NewLink()
	all := []string{"1", "2", "3"}
	if s.Epochs(map[string]string{"1": "0", "2": "0"}, all, "1") {
		t.Fatal("first look reported a change")
	}
	if s.Epochs(map[string]string{"1": "5", "2": "0"}, all, "1") {
		t.Fatal("this node's own new epoch reported as a change")
	}
	if !s.Epochs(map[string]string{"2": "1", "3": "0"}, all, "1") {
		t.Fatal("node 2's new epoch not reported")
	}
	if s.Epochs(map[string]string{"2": "1", "3": "0"}, all, "1") {
		t.Fatal("no change reported as one")
	}
}

// TestEpochsReportsAReapedNode: a node no longer listed (reaped, its counts
// gone) is a change; one whose heartbeat only lapsed is not yet.
func TestEpochsReportsAReapedNode(t *testing.T) {
	s := NewLink()
	s.Epochs(map[string]string{"1": "0", "2": "0"}, []string{"1", "2"}, "1")
	if s.Epochs(map[string]string{"1": "0"}, []string{"1", "2"}, "1") {
		t.Fatal("a lapsed heartbeat reported as a change")
	}
	if !s.Epochs(map[string]string{"1": "0"}, []string{"1"}, "1") {
		t.Fatal("a node unlisted (reaped) not reported")
	}
	if s.Epochs(map[string]string{"1": "0"}, []string{"1"}, "1") {
		t.Fatal("no change reported as one")
	}
}

// TestDrainWaitsForPendingWhileHealthy: Drain waits while messages wait
// and the store answers, and no longer than ctx or the link allows.
func TestDrainWaitsForPendingWhileHealthy(t *testing.T) {
	s := NewLink()
	s.Up()
	left := 3
	s.Drain(context.Background(), func() int { left--; return left })
	if left != 0 {
		t.Fatalf("drain returned with %d pending", left)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Drain(ctx, func() int { return 1 }) // returns: ctx is over
	s.Down()
	calls := 0
	s.Drain(context.Background(), func() int { calls++; return 1 })
	if calls != 1 {
		t.Fatalf("drain asked %d times with the store unreachable, want once", calls)
	}
}

func TestMarkAnswersAtOnceOnlyWhenItCannotWait(t *testing.T) {
	s := NewLink()
	outbox := make(chan int, 1)
	answered := 0
	done := func() { answered++ }
	Mark(&s, outbox, 1, done)
	if answered != 1 || len(outbox) != 0 {
		t.Fatalf("before the store answered: %d answers, %d queued; want answered at once, nothing queued", answered, len(outbox))
	}
	s.Up()
	Mark(&s, outbox, 2, done)
	if answered != 1 || len(outbox) != 1 {
		t.Fatalf("healthy: %d answers, %d queued; want the mark queued, unanswered", answered, len(outbox))
	}
	Mark(&s, outbox, 3, done)
	if answered != 2 || <-outbox != 2 {
		t.Fatal("outbox full: want the mark answered at once, the queue as it was")
	}
}
