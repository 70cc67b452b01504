package hub

import (
	"sync"
	"sync/atomic"

	"github.com/roostproject/roost/internal/pusher"
)

// Channel is one channel of one app with at least one local subscriber.
// It is created on the first subscription and dropped when the last one
// leaves; a connection holds a pointer to each channel it has joined. Most
// channels have a single subscriber (private-user-123), so a channel is 64
// bytes that hold that subscriber inline (its "solo" form); a second
// subscriber moves both into per-shard lists kept in the channel's extra,
// which also holds everything else only some channels need.
type Channel struct {
	name string
	app  *appChannels

	// one is the solo subscriber, nil when there is none; guarded by the
	// mutex of its shard (state's solo bits), like a shard list.
	one Subscriber
	// x is allocated when first needed and kept for the channel's life;
	// its fields are guarded by mu, except lists, which is atomic.
	x atomic.Pointer[channelExtra]

	mu sync.Mutex // guards the ready bit and x's fields; orders form changes

	// count is the number of local subscriptions; changed under Hub.mu.
	count atomic.Int32
	// state holds the ready bit (set under mu: the broker delivers the
	// channel's messages from other nodes), a watchlist channel's state of
	// its user (changed under mu, see watch.go) and, in its low bits, 1 +
	// the shard of the solo subscriber, or 0 (changed under mu and that
	// shard's mutex; read without a lock by publishers).
	state atomic.Int32
}

// The bits of Channel.state.
const (
	stateSolo  = 1<<16 - 1 // 1 + the solo subscriber's shard; 0: none
	stateReady = 1 << 16
)

// channelExtra is what only some channels need.
type channelExtra struct {
	// lists, once a channel has had two subscribers at a time, holds one
	// list per shard (see shardLists); it is never unset.
	lists   atomic.Pointer[shardLists]
	counts  countState
	waiters []waiter // joins waiting for ready
	members *view    // a presence channel's members as this node knows them
	cached  *cached  // a cache channel's last event as this node knows it
}

// shardLists[i] lists the subscribers owned by shard i, nil when it has
// none (the list is guarded by that shard's mutex, Hub.locks[i]).
type shardLists []atomic.Pointer[shardList]

// presence returns x.members, allocating it; Channel.mu is held.
func (x *channelExtra) presence() *view {
	if x.members == nil {
		x.members = &view{}
	}
	return x.members
}

// last returns x.cached, allocating it; Channel.mu is held.
func (x *channelExtra) last() *cached {
	if x.cached == nil {
		x.cached = &cached{}
	}
	return x.cached
}

// extra returns c.x, allocating it; c.mu is held.
func (c *Channel) extra() *channelExtra {
	x := c.x.Load()
	if x == nil {
		x = &channelExtra{}
		c.x.Store(x)
	}
	return x
}

// lists returns the channel's per-shard lists, or nil in the solo form.
func (c *Channel) lists() *shardLists {
	if x := c.x.Load(); x != nil {
		return x.lists.Load()
	}
	return nil
}

// solo returns the shard of the solo subscriber, or -1.
func (c *Channel) solo() int { return int(c.state.Load()&stateSolo) - 1 }

// ready reports whether the broker delivers the channel's messages.
func (c *Channel) ready() bool { return c.state.Load()&stateReady != 0 }

// kind is the channel's kind, read from its name when needed rather than
// stored (it would cost the channel a size class).
func (c *Channel) kind() pusher.Kind { return pusher.KindOf(c.name) }

// shardList is one shard's subscribers of a channel. It exists only while
// it is not empty (Detach drops it), so a publisher skips a shard with no
// subscribers by a pointer load, without taking the shard's lock.
type shardList struct {
	subs []Subscriber
}

// waiter is a join to finish on its shard once the channel is ready.
type waiter struct {
	shard int
	f     func()
}

// Name returns the channel's name.
func (c *Channel) Name() string { return c.name }

// App returns the id of the app the channel belongs to.
func (c *Channel) App() string { return c.app.id }

// Count returns the number of local subscriptions to the channel.
func (c *Channel) Count() int { return int(c.count.Load()) }
