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
