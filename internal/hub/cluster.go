package hub

import "time"

// Member is one presence member: a user id and its user_info JSON ("" for none).
type Member struct {
	ID   string
	Info string
}

// Cluster is the state the nodes of a cluster share besides messages:
// presence members, signed-in users, subscription counts and cache channels.
// A nil Cluster (one node) means this node's own state is the whole truth.
//
// Every method is told what this node alone knows ("local") and must fall
// back to it when the shared store cannot be reached, so a node keeps
// working, with node-local semantics, through an outage. Methods may block
// for a bounded time (a store round trip) except Subscribed and CachePut,
// which must not block.
type Cluster interface {
	// Join records a connection of user on a presence channel and reports
	// whether it is the user's first connection anywhere in the cluster.
	Join(app, channel, user, info string, max int, local bool) (first bool, err error)
	// Leave undoes Join and reports whether it was the user's last one.
	Leave(app, channel, user string, local bool) (last bool)
	// Members lists a presence channel's members cluster-wide, by id.
	Members(app, channel string, local []Member) []Member
	// SignIn and SignOut count a user's signed-in connections cluster-wide;
	// they report the user coming online and going offline.
	SignIn(app, user string, local bool) (first bool)
	SignOut(app, user string, local bool) (last bool)
	// Online returns those of ids that are signed in anywhere.
	Online(app string, ids []string, local []string) []string
	// Subscribed records a change in this node's subscriptions to a channel.
	Subscribed(app, channel string, delta int)
	// Count returns a channel's subscriptions cluster-wide.
	Count(app, channel string, local int) int
	// Channels returns every occupied channel of app whose name starts with
	// prefix, with its subscription count cluster-wide.
	Channels(app, prefix string, local map[string]int) map[string]int
	// CachePut keeps the last event of a cache channel for CacheTTL.
	CachePut(m *Message)
	// CacheGet returns a cache channel's last event and its remaining TTL.
	CacheGet(app, channel string) (Message, time.Duration, bool)
}

// SetCluster makes the hub consult c for cluster-wide state; call it before
// serving connections. The cluster's broker is set with SetBroker.
func (h *Hub) SetCluster(c Cluster) { h.cluster = c }
