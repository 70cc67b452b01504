// Package cluster joins roost nodes through Redis so that a cluster behaves
// exactly like one node (docs/design.md, "Across a cluster").
//
// Messages travel over Redis pub/sub, one topic per channel; a node
// subscribes to a topic only while it has local subscribers, delivers its own
// publishes locally at once and ignores their echo. On a Redis Cluster a
// topic is a sharded channel on the primary of its slot, and every key of a
// channel carries the channel's hash tag (keys.go); the node subscribes a
// topic again by itself when its slot moves or its primary fails (sharded.go). Each message carries its
// node's id and a sequence number, so that a copy Redis received twice (a
// write given up on and tried again) is delivered once. Presence members,
// signed-in users and subscription counts live in Redis hashes whose entries
// record each node's share ({"n":{node:count}}), updated by Lua scripts that
// report the moment a total leaves or reaches zero: that is when
// member_added / member_removed and online / offline are due, exactly once
// per cluster. Each node refreshes a heartbeat key; when one stops (kill -9),
// a survivor takes a lock and removes the dead node's shares, announcing the
// members that vanish with it.
//
// No epoll loop waits for Redis: the hub calls the state from goroutines of
// its own, with a deadline, and the changes to presence and users go
// through one ordered, pipelined queue.
//
// Redis can go away, or stop answering for a while. Local delivery never
// waits for it: outbound messages queue up to a cap (drops are counted),
// every state query falls back to the node's own answer, and when Redis
// comes back the node re-subscribes and writes its shares again, exactly
// (Redis may have restarted empty, or kept calls the node gave up on). A
// node that saw an outage reaps nobody and announces no departure until
// the other live nodes have had time to write their shares again, and has
// its subscribers' member lists checked against the store (see package
// linkstate).
//
// What the NATS backend does alike lives once under internal/clusterkit: the
// link's state, the count bookkeeping, the deferred departures, the
// presence and user changes, the subscription queue and the settings.
//
// Goroutines: one publisher (drains the outbox in order), one receiver (on a
// Redis Cluster one per primary, and a router), one subscription manager, one state writer (presence and users), one health
// watcher (heartbeat, probes, reaping) and one ticker (count flushes,
// reconciliation rounds, deferred departures).
package redisstore
