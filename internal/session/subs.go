package session

import (
	"hash/maphash"
	"strings"
)

// A connection's subscriptions are a set keyed by channel name. Most
// connections hold a few: up to listMax they are a plain list, searched from
// the start. Past that the slice is an open-addressing hash table: its
// length a power of two, at most three quarters full, probed linearly from
// the slot the name hashes to, an empty slot having no channel, and entries
// shifted back on removal so no tombstones build up. Finding, adding and
// removing a subscription then take the same time however many channels the
// connection holds, and subscribing to n channels costs n steps, not n².
//
// The commonest connection holds one channel (private-user-123), so the set
// starts in Session.one, inside the connection's own struct, and moves to a
// slice of its own (Session.more) the first time it holds two: a connection
// of one channel allocates nothing for its subscription.
const listMax = 16

// subsSeed keys the table's hash; it is drawn per process, so a client
// cannot pick channel names that all land in one slot.
var subsSeed = maphash.MakeSeed()

// subs returns the set as a list or table; entries written through it stay
// in the set.
func (s *Session) subs() []subscription {
	switch {
	case s.more != nil:
		return *s.more
	case s.one[0].ch == nil:
		return s.one[:0]
	}
	return s.one[:]
}

// setSubs makes l, a list or table derived from s.subs(), the set.
func (s *Session) setSubs(l []subscription) {
	switch {
	case s.more != nil:
		*s.more = l
	case len(l) > 0 && &l[0] != &s.one[0]: // the set has outgrown s.one
		s.one[0] = subscription{}
		s.more = new([]subscription) // not &l, which would move every l to the heap
		*s.more = l
	}
}

// hashed reports whether the set is a table rather than a list.
func (s *Session) hashed() bool { return len(s.subs()) > listMax }

// home is the slot of the table where name's probe starts.
func (s *Session) home(name string) int {
	return int(maphash.String(subsSeed, name) & uint64(len(s.subs())-1))
}

// find returns the position of the subscription to name, or -1.
func (s *Session) find(name string) int {
	subs := s.subs()
	if !s.hashed() {
		for i := range subs {
			if subs[i].ch.Name() == name {
				return i
			}
		}
		return -1
	}
	mask := len(subs) - 1
	for i := s.home(name); subs[i].ch != nil; i = (i + 1) & mask {
		if subs[i].ch.Name() == name {
			return i
		}
	}
	return -1
}

// add puts sub in the set.
func (s *Session) add(sub subscription) {
	s.count(sub, 1)
	if !s.hashed() && int(s.nsubs) <= listMax {
		s.setSubs(append(s.subs(), sub))
		return
	}
	if !s.hashed() || 4*int(s.nsubs) > 3*len(s.subs()) {
		s.resize()
	}
	s.insert(sub)
}

// insert puts sub in the first free slot of its probe; the table has one.
func (s *Session) insert(sub subscription) {
	subs := s.subs()
	mask := len(subs) - 1
	i := s.home(sub.ch.Name())
	for subs[i].ch != nil {
		i = (i + 1) & mask
	}
	subs[i] = sub
}

// remove takes the subscription at position i out of the set.
func (s *Session) remove(i int) {
	subs := s.subs()
	s.count(subs[i], -1)
	if !s.hashed() {
		last := len(subs) - 1
		subs[i] = subs[last]
		subs[last] = subscription{}
		s.setSubs(subs[:last])
		return
	}
	mask := len(subs) - 1
	for j := (i + 1) & mask; subs[j].ch != nil; j = (j + 1) & mask {
		// The entry at j moves back into the hole unless its home lies
		// after the hole, on its way from home to j.
		if h := s.home(subs[j].ch.Name()); (j-h)&mask >= (j-i)&mask {
			subs[i] = subs[j]
			i = j
		}
	}
	subs[i] = subscription{}
	if 8*int(s.nsubs) < len(subs) && !s.closed {
		s.resize()
	}
}

// resize rebuilds the set for its nsubs entries: a list when they fit one,
// else a table at most half full.
func (s *Session) resize() {
	old := s.subs()
	if int(s.nsubs) <= listMax {
		list := make([]subscription, 0, s.nsubs)
		for _, sub := range old {
			if sub.ch != nil {
				list = append(list, sub)
			}
		}
		s.setSubs(list)
		return
	}
	size := 4 * listMax
	for size < 2*int(s.nsubs) {
		size *= 2
	}
	s.setSubs(make([]subscription, size))
	for _, sub := range old {
		if sub.ch != nil {
			s.insert(sub)
		}
	}
}

// count keeps the totals when sub joins (by +1) or leaves (-1) the set.
func (s *Session) count(sub subscription, by int) {
	s.nsubs += uint16(by)
	if !strings.HasPrefix(sub.ch.Name(), "#") {
		s.nclient += uint16(by)
	}
}
