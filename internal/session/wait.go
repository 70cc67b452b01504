package session

import (
	"slices"

	"github.com/roostproject/roost/internal/pusher"
)

// A join or a sign-in may wait for the cluster's store (hub.Join, SignIn),
// which answers later on the connection's own goroutine; the connection
// goes on being served meanwhile. What the client sends next must not
// overtake that answer where it depends on it: everything it sends while a
// sign-in waits, and a client event on a channel whose join waits, waits
// too, and is handled, in the order it came, once the answer is sent.

// extra is what only some connections need: the signed-in user, and what
// waits for the store.
type extra struct {
	user    *user
	signing signing        // how far a sign-in is
	pending int            // subscriptions whose join waits (see whenReady)
	held    []held         // messages that wait, in the order they came
	size    int            // bytes in held
	members []presenceJoin // the presence channels joined, with the user id
}

// signing is how far a sign-in is: every message waits until it is done.
type signing uint8

const (
	noSignin          signing = iota // no sign-in under way
	awaitingStore                    // the store has not counted the connection yet
	awaitingWatchlist                // the watchlist's state is being read
)

// held is one message that waits; channel names a client event's channel.
type held struct {
	payload []byte
	channel string
}

// Bounds on what waits per connection: a client that keeps sending while
// the store is slow has its messages dropped, with an error, beyond them.
const (
	maxHeld      = 100
	maxHeldBytes = 64 << 10
)

// ext returns s.x, allocating it.
func (s Call) ext() *extra {
	if s.x == nil {
		s.x = &extra{}
	}
	return s.x
}

// tidy frees s.x when it holds nothing.
func (s Call) tidy() {
	if x := s.x; x != nil && x.user == nil && x.signing == noSignin && x.pending == 0 && len(x.held) == 0 && len(x.members) == 0 {
		s.x = nil
	}
}

// signedIn returns the signed-in user, or nil.
func (s *Session) signedIn() *user {
	if s.x == nil {
		return nil
	}
	return s.x.user
}

// waiting reports whether anything waits, cheaply, before a message is
// parsed to see whether it must wait too.
func (s Call) waiting() bool {
	return s.x != nil && (s.x.signing != noSignin || s.x.pending > 0 || len(s.x.held) > 0)
}

// mustWait reports whether a message, a client event on channel or
// another message (channel ""), must wait; once one waits, every later one
// does, so that they keep their order.
func (s Call) mustWait(channel string) bool {
	if s.x != nil && (s.x.signing != noSignin || len(s.x.held) > 0) {
		return true
	}
	return channel != "" && s.pendingIndex(channel) >= 0
}

// hold keeps a copy of payload until the answer it waits for is sent.
func (s Call) hold(payload []byte, channel string) {
	x := s.ext()
	if len(x.held) >= maxHeld || x.size+len(payload) > maxHeldBytes {
		s.sendError(pusher.NoCode, "message dropped: too many messages are waiting for the cluster to answer")
		return
	}
	x.held = append(x.held, held{payload: slices.Clone(payload), channel: channel})
	x.size += len(payload)
}

// resume handles the messages that waited, in order, until one must wait
// again. Every answer from the store ends with it.
func (s Call) resume() {
	for !s.closed && s.x != nil && s.x.signing == noSignin && len(s.x.held) > 0 {
		h := s.x.held[0]
		if h.channel != "" && s.pendingIndex(h.channel) >= 0 {
			break
		}
		s.x.held = slices.Delete(s.x.held, 0, 1)
		s.x.size -= len(h.payload)
		s.handle(h.payload)
	}
	s.tidy()
}
