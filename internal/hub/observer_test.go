package hub

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder is an Observer that lists what it was told.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *recorder) ChannelOccupied(app, channel string) { r.add("occupied %s/%s", app, channel) }
func (r *recorder) ChannelVacated(app, channel string)  { r.add("vacated %s/%s", app, channel) }
func (r *recorder) MemberAdded(app, channel, user string) {
	r.add("added %s/%s %s", app, channel, user)
}
func (r *recorder) MemberRemoved(app, channel, user string) {
	r.add("removed %s/%s %s", app, channel, user)
}
func (r *recorder) ClientEvent(app, channel, event, data, socketID, user string) {
	r.add("client %s/%s %s %s %s %s", app, channel, event, data, socketID, user)
}
func (r *recorder) SubscriptionCount(app, channel string, count int) {
	r.add("count %s/%s %d", app, channel, count)
}

// TestObserverSeesEachTransitionOnce: two subscriptions and two tabs of one
// user are one occupied, one member_added, one member_removed and one
// vacated.
func TestObserverSeesEachTransitionOnce(t *testing.T) {
	h := newTestHub(1)
	r := &recorder{}
	h.SetObserver(r)
	a, b := h.Acquire("app", "presence-x"), h.Acquire("app", "presence-x")
	h.Join(a, 0, Member{ID: "u"}, 0, "", func(error) {})
	h.Join(b, 0, Member{ID: "u"}, 0, "", func(error) {})
	h.Publish("app", Publication{Channels: []string{"presence-x"}, Event: "client-e", Data: "d", SocketID: "7.1", UserID: "u"})
	h.Publish("app", Publication{Channels: []string{"presence-x"}, Event: "api", Data: "d"})
	h.Leave(a, "u")
	h.Leave(b, "u")
	h.Release(a)
	h.Release(b)
	h.CountChanged(h.Acquire("app", "news"))
	want := []string{"occupied app/presence-x", "added app/presence-x u", "client app/presence-x client-e d 7.1 u",
		"removed app/presence-x u", "vacated app/presence-x", "occupied app/news", "count app/news 1"}
	if !slices.Equal(r.events, want) {
		t.Fatalf("observed %q\nwant     %q", r.events, want)
	}
}

// TestSharedCountsReportChannelsThemselves: with a Counts store from
// SetState, the hub leaves channel transitions to it (it alone knows the
// cluster-wide ones) but still reports members.
func TestSharedCountsReportChannelsThemselves(t *testing.T) {
	h := newTestHub(1)
	r := &recorder{}
	h.SetObserver(r)
	h.SetState(State{Counts: memoryCounts{h}})
	ch := h.Acquire("app", "presence-x")
	h.Join(ch, 0, Member{ID: "u"}, 0, "", func(error) {})
	h.Release(ch)
	if want := []string{"added app/presence-x u"}; !slices.Equal(r.events, want) {
		t.Fatalf("observed %q, want %q", r.events, want)
	}
}

// TestObserverHearsMembersWhenTheStoreAnswers: with a store elsewhere, a
// join is reported when the store says it was the user's first, not when
// it is asked; a join the store never answered is not reported; the last
// leave is reported once.
func TestObserverHearsMembersWhenTheStoreAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := New(Config{Shards: 1, Encode: rawEncode, StoreWait: time.Second}, 7)
		box := mailbox{fs: make(chan func(), 1)}
		h.SetShard(0, box)
		far := farPresence{mem: NewMemoryPresence(), release: make(chan struct{})}
		h.SetState(State{Presence: far})
		r := &recorder{}
		h.SetObserver(r)
		ch := h.Acquire("app", "presence-x")
		join := func() {
			h.Join(ch, 0, Member{ID: "u"}, 0, "", func(error) {})
			synctest.Wait()
		}
		join() // the store does not answer within StoreWait
		if len(r.events) != 1 {
			t.Fatalf("observed %q while the join waits for the store", r.events)
		}
		time.Sleep(2 * time.Second)
		(<-box.fs)()
		close(far.release)
		join()
		(<-box.fs)()
		join()
		(<-box.fs)()
		h.Leave(ch, "u")
		h.Leave(ch, "u")
		synctest.Wait()
		want := []string{"occupied app/presence-x", "added app/presence-x u", "removed app/presence-x u"}
		if !slices.Equal(r.events, want) {
			t.Fatalf("observed %q, want %q", r.events, want)
		}
	})
}
