package session

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/roostproject/roost/internal/hub"
)

// TestSubscriptionSet drives a session's set of subscriptions through
// random adds, removes and moves across the list and table layouts, and
// checks every lookup and count against a map after each step.
func TestSubscriptionSet(t *testing.T) {
	f := newFixture(t, nil)
	channels := make([]*hub.Channel, 300)
	for i := range channels {
		name := fmt.Sprint("c-", i)
		if i%10 == 0 {
			name = hub.WatchlistPrefix + name // the server's own: not the client's
		}
		channels[i] = f.env.Hub.Acquire("app-id", name)
	}
	var s Session
	model := map[*hub.Channel]int32{}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 20000 {
		ch := channels[rng.IntN(len(channels))]
		// Grow for the first half of the run, shrink for the second.
		grow := step < 10000
		switch i := s.find(ch.Name()); {
		case i < 0 && (grow || rng.IntN(4) == 0):
			model[ch] = int32(step)
			s.add(subscription{ch: ch, index: int32(step)})
		case i >= 0 && (!grow || rng.IntN(3) == 0):
			delete(model, ch)
			s.remove(i)
		case i >= 0:
			model[ch] = int32(-step)
			s.Moved(ch, -step)
		}
		checkSet(t, &s, channels, model)
	}
	for _, ch := range channels {
		if i := s.find(ch.Name()); i >= 0 {
			delete(model, ch)
			s.remove(i)
			checkSet(t, &s, channels, model)
		}
	}
	if s.hashed() {
		t.Errorf("an empty set kept a table of %d slots", len(s.subs()))
	}
}

// checkSet compares s with model.
func checkSet(t *testing.T, s *Session, channels []*hub.Channel, model map[*hub.Channel]int32) {
	t.Helper()
	client := 0
	for _, ch := range channels {
		i := s.find(ch.Name())
		want, ok := model[ch]
		if ok && ch.Name()[0] != '#' {
			client++
		}
		switch {
		case ok != (i >= 0):
			t.Fatalf("%s: found at %d, in the model: %v", ch.Name(), i, ok)
		case ok && (s.subs()[i].ch != ch || s.subs()[i].index != want):
			t.Fatalf("%s: entry %+v, want index %d", ch.Name(), s.subs()[i], want)
		}
	}
	if int(s.nsubs) != len(model) || int(s.nclient) != client {
		t.Fatalf("counts %d and %d client, want %d and %d", s.nsubs, s.nclient, len(model), client)
	}
	if s.hashed() && 4*int(s.nsubs) > 3*len(s.subs()) {
		t.Fatalf("table of %d slots holds %d", len(s.subs()), s.nsubs)
	}
}

// TestSessionSize guards what every connection, idle or not, carries.
func TestSessionSize(t *testing.T) {
	if size := unsafe.Sizeof(Session{}); size != 64 {
		t.Fatalf("Session is %d bytes, want 64", size)
	}
}

// BenchmarkSubscribeMany subscribes one connection to 10,000 channels: the
// time per subscription stays flat as the connection's set grows.
func BenchmarkSubscribeMany(b *testing.B) {
	const n = 10000
	b.ReportAllocs()
	b.StopTimer()
	for range b.N {
		f := newFixture(b, nil)
		f.env.Config.Limits.MaxSubscriptionsPerConnection = n
		r := f.connect()
		r.discard = true
		msgs := make([][]byte, n)
		for i := range msgs {
			msgs[i] = []byte(subscribe(fmt.Sprint("c-", i), "", ""))
		}
		b.StartTimer()
		for _, m := range msgs {
			r.call().HandleText(m)
		}
		b.StopTimer()
		r.close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/subscription")
}
