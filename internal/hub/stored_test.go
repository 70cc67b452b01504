package hub

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// storing is a broker whose store answers a mark only when the test does.
type storing struct {
	*MemoryBroker
	marks chan func()
}

func (s storing) Stored(done func()) { s.marks <- done }

// TestWaitStoredWaitsForTheStore: the API's wait after a publish returns
// once the broker's store has it, and after StoreWait when the store never
// answers.
func TestWaitStoredWaitsForTheStore(t *testing.T) {
	for _, wait := range []time.Duration{time.Hour, time.Millisecond} {
		h := New(Config{Shards: 1, Encode: rawEncode, StoreWait: wait}, 7)
		b := storing{MemoryBroker: NewMemoryBroker(h.Deliver), marks: make(chan func(), 1)}
		h.SetBroker(b)
		var stored atomic.Bool
		returned := make(chan bool, 1)
		go func() {
			if err := h.Publish("app", Publication{Channels: []string{"cache-x"}, Event: "e", Data: "d"}); err != nil {
				t.Error(err)
			}
			h.WaitStored(context.Background())
			returned <- stored.Load()
		}()
		mark := <-b.marks
		if wait == time.Millisecond {
			if <-returned {
				t.Fatal("the store never answered, yet the publish saw it stored")
			}
			continue
		}
		stored.Store(true)
		mark()
		if !<-returned {
			t.Fatal("the publish returned before the store had it")
		}
	}
}

// TestWaitStoredAnswersAtOnceAfterAWaitRanOut: once the store let one wait
// run out, the next caller does not wait (nor queue a mark) until the
// store answers the late mark; then callers wait for the store again.
func TestWaitStoredAnswersAtOnceAfterAWaitRanOut(t *testing.T) {
	h := New(Config{Shards: 1, Encode: rawEncode, StoreWait: time.Millisecond}, 7)
	b := storing{MemoryBroker: NewMemoryBroker(h.Deliver), marks: make(chan func(), 2)}
	h.SetBroker(b)
	h.WaitStored(context.Background()) // runs out: the store never answers
	late := <-b.marks
	h.WaitStored(context.Background())
	if len(b.marks) != 0 {
		t.Fatal("after a wait ran out, the next caller queued a mark and waited for the stalled store")
	}
	late()
	h.WaitStored(context.Background())
	if len(b.marks) != 1 {
		t.Fatal("after the store answered the late mark, a caller did not wait for the store again")
	}
}
