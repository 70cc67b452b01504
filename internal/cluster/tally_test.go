package cluster

import (
	"maps"
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

func TestPendingFollowsLocal(t *testing.T) {
	var b Book
	b.Subscribed("a", "news", 2)
	b.Subscribed("a", "news-2", 1)
	b.Subscribed("b", "news", 1)
	if got := b.WithPrefix(false, "a", "news"); !maps.Equal(got, map[string]int{"news": 2, "news-2": 1}) {
		t.Fatalf("local counts %v", got)
	}
	p := b.TakePending()
	if len(p) != 3 || b.Of(true, Key{"a", "news"}) != 0 {
		t.Fatalf("taken %v, left %d", p, b.Of(true, Key{"a", "news"}))
	}
	b.Subscribed("a", "news", -2)
	if b.Of(true, Key{"a", "news"}) != -2 || b.Of(false, Key{"a", "news"}) != 0 {
		t.Fatal("a change after a flush took the pending ones is not pending")
	}
	b.Dirty.Store(true)
	all := b.TakeAll()
	if !maps.Equal(all, map[Key]int{{"a", "news-2"}: 1, {"b", "news"}: 1}) || b.Dirty.Load() || len(b.TakePending()) != 0 {
		t.Fatalf("resync took %v, dirty %v", all, b.Dirty.Load())
	}
}

type seen struct {
	hub.NopObserver
	occupied, vacated int
}

func (s *seen) ChannelOccupied(app, channel string) { s.occupied++ }
func (s *seen) ChannelVacated(app, channel string)  { s.vacated++ }

func TestReportOnlyAtZero(t *testing.T) {
	o := &seen{}
	for _, c := range [][2]int{{0, 1}, {1, 2}, {2, 1}, {1, 0}, {0, 0}} {
		Report(o, Key{"a", "c"}, c[0], c[1])
	}
	if o.occupied != 1 || o.vacated != 1 {
		t.Fatalf("occupied %d, vacated %d; want 1 each", o.occupied, o.vacated)
	}
}
