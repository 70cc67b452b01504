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
	if left := s.Take(); len(left) != 1 || !left[Departure{"a", "presence-c", "unknown"}] {
		t.Fatalf("left %v, want the unchecked departure only", left)
	}
}
