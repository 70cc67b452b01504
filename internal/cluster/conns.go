package cluster

// This file is how an app's connection limit (apps[].max_connections)
// holds across a cluster: each node publishes its count of connections per
// app through the store, and keeps the sum of the other live nodes' last
// published counts in memory, for the handshakes to read without waiting
// (docs/cluster.md, "Connection limits"). The figure lags the truth by up
// to a write and a read period, so a burst of handshakes on several nodes
// may take an app past its limit by what they admit meanwhile.

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// ConnsTTL is how long a node's published record of its connections lives
// after its last write: a node that stops writing (killed, or cut off from
// the store) stops counting against the apps' limits this long after.
const ConnsTTL = 3 * time.Second

// connsEvery is how often a node writes its record when it changed, and
// reads the others' while handshakes ask for them (connsAsked): the lag,
// and so the overshoot of a burst (docs/cluster.md, "Connection limits";
// 100 ms let in two to three times as many over the limit).
const connsEvery = 25 * time.Millisecond

// connsRefresh is how often a node writes its record and reads the others'
// when nothing asks for more: well within ConnsTTL.
const connsRefresh = time.Second

// connsAsked is how long after a handshake asked for an app's figure the
// node keeps reading every connsEvery.
const connsAsked = 10 * time.Second

// Tallies are the store's records of each node's connections per app.
type Tallies interface {
	// PostTally writes this node's record, which lapses ConnsTTL after.
	PostTally(ctx context.Context, record []byte) error
	// Tallies returns the records of nodes that have not lapsed, by node
	// id.
	Tallies(ctx context.Context, nodes []string) (map[string][]byte, error)
}

// tally is the cluster's hub.Tally. Here and Elsewhere are called from the
// hub (epoll loops included) and never wait; tick runs on its own
// goroutine and does the store's I/O.
type tally struct {
	n *Node

	mu      sync.Mutex     // guards here and changed
	here    map[string]int // this node's connections per app
	changed bool           // here changed since the last write

	asked  atomic.Bool                    // a handshake asked since the last tick
	others atomic.Pointer[map[string]int] // the other nodes' sum per app, as last read
	peers  atomic.Pointer[[]string]       // the other live nodes, as the last heartbeat found them

	// Owned by tick.
	posted, read, askedUntil time.Time
}

var _ hub.Tally = (*tally)(nil)

// Here implements hub.Tally.
func (t *tally) Here(app string, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > 0 {
		t.here[app] = n
	} else {
		delete(t.here, app)
	}
	t.changed = true
}

// Elsewhere implements hub.Tally. While the store is away it is the last
// figure read before.
func (t *tally) Elsewhere(app string) int {
	if !t.asked.Load() {
		t.asked.Store(true)
	}
	if m := t.others.Load(); m != nil {
		return (*m)[app]
	}
	return 0
}

// tick writes this node's record when it changed or is due, and reads the
// others' when a handshake asked lately or a read is due.
func (t *tally) tick() {
	if !t.n.link.Healthy.Load() {
		return
	}
	now := time.Now()
	if t.asked.Swap(false) {
		t.askedUntil = now.Add(connsAsked)
	}
	ctx, cancel := context.WithTimeout(t.n.ctx, t.n.cfg.SlowReply)
	defer cancel()
	if rec, due := t.record(now); due {
		t.check(t.n.store.PostTally(ctx, rec))
		t.posted = now
	}
	if now.Before(t.askedUntil) || now.Sub(t.read) >= connsRefresh {
		t.readOthers(ctx)
		t.read = now
	}
}

// record returns this node's record, and whether it is to be written now.
func (t *tally) record(now time.Time) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.changed && now.Sub(t.posted) < connsRefresh {
		return nil, false
	}
	t.changed = false
	return EncodeTally(t.here), true
}

// readOthers replaces the other nodes' sum with the store's records; a
// failed read keeps the last one.
func (t *tally) readOthers(ctx context.Context) {
	var peers []string
	if p := t.peers.Load(); p != nil {
		peers = *p
	}
	recs, err := t.n.store.Tallies(ctx, peers)
	if err != nil {
		t.check(err)
		return
	}
	sum := make(map[string]int)
	for _, rec := range recs {
		for app, c := range DecodeTally(rec) {
			sum[app] += c
		}
	}
	t.others.Store(&sum)
}

// setPeers notes the live nodes a heartbeat found, this one aside: the
// nodes whose records the next reads ask for. A node that starts is
// counted by the others from their next heartbeat on.
func (t *tally) setPeers(alive map[string]string) {
	peers := make([]string, 0, len(alive))
	for id := range alive {
		if id != t.n.id {
			peers = append(peers, id)
		}
	}
	t.peers.Store(&peers)
}

// check has the link checked after a call that failed but for the store
// being known away.
func (t *tally) check(err error) {
	if err != nil && !Unreachable(err) {
		t.n.link.Suspect()
	}
}

// EncodeTally is a node's record of its connections per app.
func EncodeTally(here map[string]int) []byte {
	b, _ := json.Marshal(here)
	return b
}

// DecodeTally reads a record of EncodeTally; what is malformed, and
// counts below one, count for nothing.
func DecodeTally(rec []byte) map[string]int {
	var m map[string]int
	if json.Unmarshal(rec, &m) != nil {
		return nil
	}
	for app, c := range m {
		if c <= 0 {
			delete(m, app)
		}
	}
	return m
}
