package natsstore

import (
	"testing"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// node is a cluster node on NATS, with the parts the tests look at.
type node struct {
	*cluster.Node
	s        *NATS
	presence hub.Presence
	users    hub.Users
	counts   counts
}

// counts is a node's hub.Counts, with its flush at hand.
type counts struct {
	hub.Counts
	n *cluster.Node
}

func (c counts) flush() { c.n.FlushCounts() }

// start opens a node on the NATS at url.
func start(t testing.TB, url string, s cluster.Settings) *node {
	t.Helper()
	var st *NATS
	n, err := cluster.Open(s, cluster.Backend{URL: url, Open: func(url string, s cluster.Settings) (cluster.Store, error) {
		var err error
		st, err = open(url, s)
		return st, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	state := n.State()
	return &node{Node: n, s: st, presence: state.Presence, users: state.Users, counts: counts{state.Counts, n}}
}
