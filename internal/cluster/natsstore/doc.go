// Package natscluster joins roost nodes through NATS, as package cluster
// does through Redis, so that a cluster behaves exactly like one node
// (docs/cluster.md, "NATS").
//
// Messages travel on core NATS, one subject per channel; a node subscribes
// to a subject only while it has local subscribers, delivers its own
// publishes locally at once and ignores their echo. Presence members,
// signed-in users and subscription counts live in JetStream key-value
// buckets whose values record each node's share ({"field":{"n":{node:count}}}),
// changed by compare-and-set on the key's revision: the node whose write
// takes a total from or to zero is the one that reports it, so member_added
// / member_removed, online / offline and channel_occupied / vacated are
// reported exactly once per cluster. Each node refreshes a heartbeat key in
// a bucket whose entries expire after the node TTL; when one lapses
// (kill -9), a survivor takes a lock key and removes the dead node's shares,
// announcing the members that vanish with it.
//
// No epoll loop waits for NATS: the hub calls the state from goroutines of
// its own, with a deadline. When NATS goes away the node answers from its
// own shares, queues its outbound messages up to a cap, and writes its
// shares again when NATS answers (it may have restarted empty, or with its
// data from before).
//
// The rules this backend shares with package cluster (the link's state, the
// count bookkeeping, the deferred departures, the presence and user
// changes, the subscription queue and the settings) live under
// internal/clusterkit; this package keeps its JetStream and core NATS I/O.
//
// Goroutines: one publisher (drains the outbox in order), one receiver, one
// subscription manager, one health watcher (heartbeat, reaping, resync) and
// one ticker (count flushes, reconciliation rounds, deferred departures);
// nats.go adds its own reader and flusher.
package natsstore
