// Package hub keeps, for every app, which connections are subscribed to which
// channel, and fans a published event out to them.
//
// Subscribers are grouped in shards: one shard per epoll loop, plus one for the
// goroutine-per-connection transport. A shard's subscriber lists are guarded
// by that shard's mutex and, in practice, only touched by the goroutine that
// owns the shard's connections, so the lock is uncontended. A publish encodes
// the event into one immutable WebSocket frame and posts one Delivery per shard
// that has subscribers; the shard's owner then writes the frame to each of its
// sockets (docs/design.md, "Fan-out encodes once").
//
// Lock order: Hub.mu, then Channel.mu, then a shard's mutex. No lock is held
// while calling Broker methods that may block, nor while writing to a socket
// except a shard's own mutex during Flush, whose Deliver calls must not block.
package hub
