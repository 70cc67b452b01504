// Package cluster joins roost nodes through a shared store so that a
// cluster behaves exactly like one node (docs/design.md, "Across a
// cluster"). It holds, once, everything that does not depend on the
// store; a Store (redisstore, natsstore) does the I/O beneath it.
//
// A node subscribes to a channel's topic only while it has local
// subscribers, delivers its own publishes locally at once and ignores
// their echo. Presence members, signed-in users and subscription counts
// live in the store as each node's share of a total; the store's write
// that takes a total from or to zero is the one that reports it, so
// member_added / member_removed, online / offline and channel_occupied /
// vacated are due exactly once per cluster. Each node refreshes a
// heartbeat; when one lapses (kill -9), a survivor takes a lock and
// removes the dead node's shares, announcing what vanishes with it.
//
// No epoll loop waits for the store: the hub calls the state from
// goroutines of its own, with a deadline. The store can go away, or stop
// answering for a while. Local delivery never waits for it: outbound
// messages queue up to a cap (drops are counted), every state query falls
// back to the node's own answer, and when the store answers again the node
// subscribes again and writes its shares again, exactly (the store may
// have restarted empty, or kept calls the node gave up on). A node that
// saw an outage reaps nobody and announces no departure until the other
// live nodes have had time to write their shares again, and has its
// subscribers' member lists checked against the store (link.go).
//
// Goroutines: one publisher (drains the outbox in order), one subscription
// manager, one health watcher (heartbeat, probes, reaping) and one ticker
// (count flushes, reconciliation rounds, deferred departures), one that
// writes and reads the nodes' connection counts (conns.go), and the
// store's own receivers.
package cluster
