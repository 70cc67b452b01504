// Package redisstore is a cluster's store on Redis: one server, a
// Sentinel primary or a Redis Cluster (docs/cluster.md).
//
// Messages travel over Redis pub/sub, one topic per channel. On a Redis
// Cluster a topic is a sharded channel on the primary of its slot, and
// every key of a channel carries the channel's hash tag (keys.go); the
// store subscribes a topic again by itself when its slot moves or its
// primary fails (sharded.go). Each message carries its node's id and a
// sequence number, so that a copy Redis received twice (a write given up
// on and tried again) is delivered once (dedup.go). Presence members,
// signed-in users and subscription counts live in Redis hashes whose
// entries record each node's share ({"n":{node:count}}), changed by Lua
// scripts that report the totals around the change (scripts.go).
//
// Goroutines: one receiver (on a Redis Cluster one per primary, and a
// router) and one writer of presence and user changes, which sends them
// in pipelined batches.
package redisstore
