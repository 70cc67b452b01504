package hub

// State is what the nodes of a cluster share besides messages, split by
// concern: presence members, signed-in users, subscription counts, cache
// channels and the apps' connections. Each is a small interface with an in-memory implementation,
// which is the single-node default; a cluster replaces them with versions
// that consult a shared store.
//
// Every method that consults the store takes a context whose deadline
// bounds the wait; an implementation returns the context's error (or its
// own) rather than wait longer. The methods that only record a change
// (Counts.Subscribed, Cache.Put) must not block. Every argument and result
// is a plain value, so an implementation may do its work on a goroutine of
// its own. The hub never calls a store from an epoll loop: see async.
type State struct {
	Presence Presence
	Users    Users
	Counts   Counts
	Cache    Cache
	Tally    Tally // never waits, so it does not make the hub call off the loops
}

// inMemory is implemented by the hub's own stores: they answer at once from
// this process, so the hub may call them on any goroutine, loops included.
// A store that embeds one of them would count as in memory too: a store
// elsewhere keeps them in a field (as the cluster's local shares do).
type inMemory interface{ inMemory() }

// SetState makes the hub keep its shared state in s; a nil field keeps the
// current store. Call it before serving connections. The cluster's broker is
// set with SetBroker.
func (h *Hub) SetState(s State) {
	if s.Presence != nil {
		h.presence = s.Presence
	}
	if s.Users != nil {
		h.users = s.Users
	}
	if s.Counts != nil {
		h.counts, h.localCounts = s.Counts, false
	}
	if s.Cache != nil {
		h.cache = s.Cache
	}
	if s.Tally != nil {
		h.tally = s.Tally
	}
	h.inline = isInMemory(h.presence) && isInMemory(h.users) && isInMemory(h.counts) && isInMemory(h.cache)
}

func isInMemory(store any) bool {
	_, ok := store.(inMemory)
	return ok
}
