package redisstore

import (
	"testing"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// node is a cluster node on Redis, with the parts the tests look at.
type node struct {
	*cluster.Node
	r        *Redis
	presence hub.Presence
	users    hub.Users
	counts   counts
}

// counts is a node's hub.Counts, with its writes at hand.
type counts struct {
	hub.Counts
	n *cluster.Node
}

func (c counts) flush()  { c.n.FlushCounts() }
func (c counts) resync() { c.n.SyncCounts() }

// start opens a node on the Redis at url; an empty prefix is "roost".
func start(t testing.TB, url string, s cluster.Settings) *node {
	t.Helper()
	if s.Prefix == "" {
		s.Prefix = "roost"
	}
	var r *Redis
	n, err := cluster.Open(s, cluster.Backend{URL: url, Open: func(url string, s cluster.Settings) (cluster.Store, error) {
		var err error
		r, err = open(url, s)
		return r, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	st := n.State()
	return &node{Node: n, r: r, presence: st.Presence, users: st.Users, counts: counts{st.Counts, n}}
}
