package rate

import (
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestBucketSpendsBurstThenRefills: a full bucket allows its burst, refuses
// the next token, and allows again as time adds tokens at the rate.
func TestBucketSpendsBurstThenRefills(t *testing.T) {
	b := NewBucket(10, 10)
	for i := range 10 {
		if !b.Allow(t0, 1) {
			t.Fatalf("token %d of a burst of 10 refused", i+1)
		}
	}
	if b.Allow(t0, 1) {
		t.Fatal("the 11th token in the same instant was allowed")
	}
	if b.Allow(t0.Add(50*time.Millisecond), 1) {
		t.Fatal("allowed after 50 ms at 10/s (half a token)")
	}
	if !b.Allow(t0.Add(100*time.Millisecond), 1) {
		t.Fatal("refused after 100 ms at 10/s (one token)")
	}
	if !b.Allow(t0.Add(time.Hour), 10) || b.Allow(t0.Add(time.Hour), 1) {
		t.Fatal("a long pause must refill to the burst and no further")
	}
}

// TestBucketTakesAllOrNothing: a request for more tokens than are left
// takes none, and one larger than the burst never passes.
func TestBucketTakesAllOrNothing(t *testing.T) {
	b := NewBucket(5, 5)
	if !b.Allow(t0, 3) {
		t.Fatal("3 of 5 refused")
	}
	if b.Allow(t0, 3) {
		t.Fatal("3 allowed with 2 left")
	}
	if !b.Allow(t0, 2) {
		t.Fatal("the refused request took tokens")
	}
	if b.Allow(t0.Add(time.Hour), 6) {
		t.Fatal("a request over the burst was allowed")
	}
}

// TestBucketClockBackwards: a time before the last one adds nothing.
func TestBucketClockBackwards(t *testing.T) {
	b := NewBucket(1, 1)
	if !b.Allow(t0, 1) {
		t.Fatal("first token refused")
	}
	if b.Allow(t0.Add(-time.Hour), 1) {
		t.Fatal("going back in time added a token")
	}
	if !b.Allow(t0.Add(time.Second), 1) {
		t.Fatal("one second at 1/s added no token")
	}
}

// TestBucketConcurrent: concurrent callers never get more than the burst
// at one instant (run with -race).
func TestBucketConcurrent(t *testing.T) {
	b := NewBucket(1, 100)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if b.Allow(t0, 1) {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatalf("allowed %d of 400 at one instant, want the burst, 100", allowed)
	}
}

// TestNewBucketPanicsOnZero: a zero rate is a wiring mistake.
func TestNewBucketPanicsOnZero(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewBucket(0, 1) did not panic")
		}
	}()
	NewBucket(0, 1)
}
