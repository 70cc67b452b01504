package hub

import (
	"sync"
	"sync/atomic"

	"github.com/roostproject/roost/internal/pusher"
)

// Channel is one channel of one app with at least one local subscriber.
// It is created on the first subscription and dropped when the last one
// leaves; a connection holds a pointer to each channel it has joined. Many
// channels have a single subscriber (private-user-123), so a channel holds
// only what every channel needs; the rest is allocated when used.
type Channel struct {
	app  string
	name string

	// count is the number of local subscriptions; changed under Hub.mu.
	count atomic.Int32
	// ready: the broker delivers the channel's messages from other nodes;
	// guarded by mu (it sits here, beside count, to keep the struct small).
	ready bool
	kind  pusher.Kind // read from name, kept beside ready to cost no space
	// shards[i] lists the subscribers owned by shard i, nil when it has
	// none (the list is guarded by that shard's mutex, Hub.locks[i]).
	shards []atomic.Pointer[shardList]

	mu sync.Mutex    // guards ready and x
	x  *channelExtra // subscription-count throttle, waiting joins, view, or nil
}

// channelExtra is what only some channels need.
type channelExtra struct {
	counts  countState
	waiters []waiter // joins waiting for ready
	members *view    // a presence channel's members as this node knows them
	cached  *cached  // a cache channel's last event as this node knows it
}

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
	if c.x == nil {
		c.x = &channelExtra{}
	}
	return c.x
}

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
func (c *Channel) App() string { return c.app }

// Count returns the number of local subscriptions to the channel.
func (c *Channel) Count() int { return int(c.count.Load()) }
