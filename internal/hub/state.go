package hub

// State is what the nodes of a cluster share besides messages, split by
// concern: presence members, signed-in users, subscription counts and cache
// channels. Each is a small interface with an in-memory implementation,
// which is the single-node default; a cluster replaces them with versions
// that consult a shared store.
//
// The methods that answer a question may wait for one bounded round trip to
// the store; the hub calls them with none of its locks held. The methods
// that only record a change (Counts.Subscribed, Cache.Put) must not block.
// Every argument and result is a plain value, so an implementation may do
// its work on a goroutine of its own.
type State struct {
	Presence Presence
	Users    Users
	Counts   Counts
	Cache    Cache
}

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
}
