package cluster

// This file is how the store's shares (presence members, signed-in users,
// subscription counts) expire once no node refreshes them: a cluster
// stopped whole, or restarted a day later with new node ids, leaves none
// of them behind for good. Each store gives a share key ShareTTL when it
// writes one (or, for a few per-app keys, at every heartbeat), and each
// node refreshes the keys it holds a share in every ShareRefresh and after
// it writes its shares again.
//
// ShareTTL is shorter than RecordTTL on purpose. A node reaps a former
// node through its records (the node list, its list of presence
// channels), and a share key that a new node writes to keeps the former
// node's share in it as long as the key lives. So a share key must never
// outlive the records that let a node remove the former node's part of
// it: a cluster restarted while such a key is still there finds the
// records still there for at least RecordTTL - ShareTTL, and reaps them
// in seconds.

import (
	"context"
	"time"
)

// ShareTTL is how long a key that holds nodes' shares lives after the last
// write or refresh of it.
const ShareTTL = RecordTTL - time.Hour

// ShareRefresh is how often a node refreshes the keys it holds a share
// in: well within ShareTTL.
const ShareRefresh = time.Hour

// Held names the keys this node holds a share in.
type Held struct {
	Presence []Key // presence channels with a member here
	Users    []Key // users (Name) signed in here
	Counts   []Key // channels with a subscription here
}

// Refresher is a store whose share keys expire.
type Refresher interface {
	// Refresh gives the keys of h their ShareTTL again, or makes sure
	// they have at least ShareTTL - ShareRefresh left.
	Refresh(ctx context.Context, h Held) error
}

// refreshSoon has the store refresh every key this node holds a share in,
// on a goroutine of its own (a large refresh must not hold up the
// heartbeat), if one is due and none is under way. The health loop calls
// it after each heartbeat.
func (n *Node) refreshSoon() {
	if !n.refreshDue() || !n.refreshing.CompareAndSwap(false, true) {
		return
	}
	n.stale.Store(false) // this refresh covers what was written before it
	n.Go(n.refreshShares)
}

func (n *Node) refreshShares() {
	defer n.refreshing.Store(false)
	ctx, cancel := context.WithTimeout(n.ctx, time.Minute)
	defer cancel()
	if err := n.store.Refresh(ctx, n.held()); err != nil {
		n.stale.Store(true)
		n.log.Warn("cluster shares' expiry not refreshed; tried again after the next heartbeat", "err", err)
		return
	}
	n.refreshed.Store(time.Now().UnixNano())
}

// refreshDue reports whether the shares' expiry is due for a refresh: a
// resync wrote them again (the store may have lost their expiry with
// them), or the last refresh is ShareRefresh old.
func (n *Node) refreshDue() bool {
	return n.stale.Load() || time.Since(time.Unix(0, n.refreshed.Load())) >= ShareRefresh
}

// held lists the keys this node holds a share in.
func (n *Node) held() Held {
	own := n.own()
	h := Held{Presence: make([]Key, 0, len(own.Presence)), Users: make([]Key, 0, len(own.Users))}
	for k := range own.Presence {
		h.Presence = append(h.Presence, k)
	}
	for k := range own.Users {
		h.Users = append(h.Users, k)
	}
	h.Counts = n.counts.held()
	return h
}

// held lists the channels with a subscription here.
func (b *Book) held() []Key {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Key, 0, len(b.local))
	for k := range b.local {
		out = append(out, k)
	}
	return out
}

// RefreshShares refreshes the expiry of every key this node holds a share
// in now, as it does every ShareRefresh. Tests use it.
func (n *Node) RefreshShares() error { return n.store.Refresh(n.ctx, n.held()) }
