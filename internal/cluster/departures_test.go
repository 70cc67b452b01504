package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

type removals struct {
	hub.NopObserver
	users []string
}

func (r *removals) MemberRemoved(app, channel, user string) { r.users = append(r.users, user) }

// TestAnnounceOnlyWhatTheStoreConfirms: a departure the store confirms is
// announced once, one whose user is a member again is dropped, and one the
// store cannot check waits for the next time.
func TestAnnounceOnlyWhatTheStoreConfirms(t *testing.T) {
	var s Departures
	s.Add("a", "presence-c", "gone")
	s.Add("a", "presence-c", "back")
	s.Add("a", "presence-c", "unknown")
	obs := &removals{}
	var published []*hub.Message
	b := Announcer{
		Member: func(_ context.Context, d Departure) (bool, error) {
			if d.User == "unknown" {
				return false, errors.New("store away")
			}
			return d.User == "back", nil
		},
		Publish:  func(m *hub.Message) error { published = append(published, m); return nil },
		Observer: obs,
	}
	s.Announce(context.Background(), time.Second, b)
	if len(obs.users) != 1 || obs.users[0] != "gone" || len(published) != 1 || published[0].Event != "pusher_internal:member_removed" {
		t.Fatalf("removed %v, published %v; want gone's member_removed once", obs.users, published)
	}
	if _, ok := s.Take()[Departure{"a", "presence-c", "unknown"}]; !ok || len(s.gone) != 0 {
		t.Fatal("the unchecked departure not kept alone for the next time")
	}
}

// TestHeldDepartureUnheldOnlyWhenBack: a departure held in the store (the
// store made it, the node was not settled) is announced as any other when
// the store confirms it; when the user is a member again, its hold is
// removed and nothing is announced; one the store cannot check stays held.
func TestHeldDepartureUnheldOnlyWhenBack(t *testing.T) {
	var s Departures
	for _, u := range []string{"gone", "back", "unknown"} {
		s.Hold("a", "presence-c", u)
	}
	obs := &removals{}
	var published, unheld, announced []string
	b := Announcer{
		Member: func(_ context.Context, d Departure) (bool, error) {
			if d.User == "unknown" {
				return false, errors.New("store away")
			}
			return d.User == "back", nil
		},
		Publish:   func(m *hub.Message) error { published = append(published, m.Data); return nil },
		Observer:  obs,
		Unhold:    func(_ context.Context, d Departure) { unheld = append(unheld, d.User) },
		Announced: func(_ context.Context, d Departure) { announced = append(announced, d.User) },
	}
	s.Announce(context.Background(), time.Second, b)
	if len(obs.users) != 1 || obs.users[0] != "gone" || len(published) != 1 {
		t.Fatalf("removed %v, published %v; want gone's member_removed once", obs.users, published)
	}
	if len(unheld) != 1 || unheld[0] != "back" {
		t.Fatalf("unheld %v, want back's hold alone", unheld)
	}
	if len(announced) != 1 || announced[0] != "gone" {
		t.Fatalf("told of %v announced, want gone alone (its record can go)", announced)
	}
	if held, ok := s.Take()[Departure{"a", "presence-c", "unknown"}]; !ok || !held {
		t.Fatal("the unchecked departure not kept held")
	}
}

// TestDeferredSignOutAnnouncedToWatchersAlone: a deferred sign-out the
// store confirms (the user is signed in nowhere) is the watchlist's
// offline event, and no member removed; one whose user is signed in
// elsewhere is dropped.
func TestDeferredSignOutAnnouncedToWatchersAlone(t *testing.T) {
	var s Departures
	s.Add("a", "", "gone")
	s.Add("a", "", "elsewhere")
	obs := &removals{}
	var published []*hub.Message
	s.Announce(context.Background(), time.Second, Announcer{
		Member:   func(_ context.Context, d Departure) (bool, error) { return d.User == "elsewhere", nil },
		Publish:  func(m *hub.Message) error { published = append(published, m); return nil },
		Observer: obs,
	})
	want := hub.Watchlist("a", "gone", false)
	if len(published) != 1 || *published[0] != *want || len(obs.users) != 0 {
		t.Fatalf("published %v, removed %v; want gone's offline event alone", published, obs.users)
	}
}
