// Package natsstore is a cluster's store on NATS with JetStream
// (docs/cluster.md, "NATS").
//
// Messages travel on core NATS, one subject per channel, at most once.
// Presence members, signed-in users and subscription counts live in
// JetStream key-value buckets whose values record each node's share
// ({"field":{"n":{node:count}}}), changed by compare-and-set on the key's
// revision: the node whose write takes a total from or to zero is the one
// that reports it. Heartbeats live in a bucket whose entries expire after
// the node TTL.
//
// Goroutines: one receiver and one remover of old delete markers
// (tombstones.go); nats.go adds its own reader and flusher.
package natsstore
