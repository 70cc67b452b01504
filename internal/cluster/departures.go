package cluster

// This file holds the presence departures and sign-outs a cluster node has
// not announced yet, in either backend: they happened while the store was
// away or soon after it came back, when the node cannot tell whether the
// user still has a connection on another node whose share is not written
// again yet. Once the node is settled, each one that the store confirms
// (the user is no member, or signed in nowhere) is announced.

import (
	"context"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// Departure is one member gone from one presence channel, or, with no
// Channel, one user signed out (its watchers are told it went offline).
type Departure struct{ App, Channel, User string }

// Departures is the departures not announced yet. Its zero value is empty.
type Departures struct {
	mu   sync.Mutex
	gone map[Departure]bool // true: held in the store (see Hold)
}

// Add defers the announcement of user's departure from channel.
func (s *Departures) Add(app, channel, user string) { s.add(Departure{app, channel, user}, false) }

// Hold defers the announcement of a departure the store made (the user's
// total reached zero) whose member_removed the node holds back in the
// store meanwhile (Node.holdDeparture): a comeback on another node, which
// the store answers as a first join, then cancels its member_added
// against the hold instead of sending it, as for any member_removed held
// back, and Announce removes the hold.
func (s *Departures) Hold(app, channel, user string) { s.add(Departure{app, channel, user}, true) }

func (s *Departures) add(d Departure, held bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone == nil {
		s.gone = make(map[Departure]bool)
	}
	s.gone[d] = s.gone[d] || held
}

// Cancel forgets user's deferred departure from channel, and reports
// whether there was one (the user came back before it was announced) and
// whether it was held in the store.
func (s *Departures) Cancel(app, channel, user string) (was, held bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := Departure{app, channel, user}
	held, was = s.gone[d]
	delete(s.gone, d)
	return was, held
}

// Unheld returns the presence departures not held in the store (those
// deferred while the store was away).
func (s *Departures) Unheld() []Departure {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Departure
	for d, held := range s.gone {
		if !held && d.Channel != "" {
			out = append(out, d)
		}
	}
	return out
}

// Take returns and forgets the deferred departures, each with whether it
// was held in the store.
func (s *Departures) Take() map[Departure]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	gone := s.gone
	s.gone = nil
	return gone
}

// Announcer is what Announce needs of a cluster backend.
type Announcer struct {
	// Member reports whether the store holds d.User as a member of
	// d.Channel, or, with no Channel, as signed in.
	Member func(ctx context.Context, d Departure) (bool, error)
	// Publish sends a message to every node's subscribers.
	Publish func(m *hub.Message) error
	// Observer is told of each member removed.
	Observer hub.Observer
	// Unhold removes the hold of a departure held in the store (see Hold)
	// whose user is a member again.
	Unhold func(ctx context.Context, d Departure)
	// Announced is told of each departure held in the store once it is
	// announced: the node's record of it can go.
	Announced func(ctx context.Context, d Departure)
}

// Announce publishes member_removed, and tells the observer, for every
// deferred departure the store confirms within timeout (a sign-out's
// watchlist offline event, for the watchers alone), and removes the
// hold of those held whose user is a member again (and, either way, the
// node's record of each held one); those it cannot check wait for the next
// time.
func (s *Departures) Announce(parent context.Context, timeout time.Duration, b Announcer) {
	gone := s.Take()
	if len(gone) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	for g, held := range gone {
		member, err := b.Member(ctx, g)
		switch {
		case err != nil:
			s.add(g, held)
		case !member && g.Channel == "":
			b.Publish(hub.Watchlist(g.App, g.User, false))
		case !member:
			b.Publish(hub.MemberRemoved(g.App, g.Channel, g.User))
			b.Observer.MemberRemoved(g.App, g.Channel, g.User) // holds it again, as its own
			if held {
				b.Announced(ctx, g)
			}
		case held:
			b.Unhold(ctx, g)
		}
	}
}
