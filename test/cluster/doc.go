// Package cluster holds the failure tests of a roost cluster over Redis
// (docs/cluster.md, "When Redis goes away" and "Faults"): they run real
// `roost serve` processes built with `go build` against a private
// redis-server that the test kills, pauses (SIGSTOP), makes sleep (DEBUG
// SLEEP) or restarts, with or without its data, to prove that a node keeps
// serving its connections and delivering locally while Redis is away or
// slow, reports itself degraded on GET /ready only while Redis is
// unreachable, rejoins the cluster by itself when Redis comes back, never
// tells a client that a connected member left, and delivers every event
// once. A canary (testutil.Canary) measures delivery throughout.
//
// The tests need the redis-server binary. Without it they skip and say why,
// except in CI (CI=true), where they fail: CI must always run them. The
// cluster tests with the official Pusher clients live in e2e/test/cluster-*.
//
// The durable webhook outbox (docs/webhooks.md, "Durable on a cluster") has
// its own tests with a receiver in the test: TestKilledNodesWebhooksAreDelivered
// on every backend, TestWebhooksSurviveBackendRestartWithData and
// TestKilledNodesDuplicatesAreItsLastRequests.
//
// The behaviours every backend must show alike run from one table of
// backends (testutil.Backends): the machine's Redis, a private Redis
// Cluster of three primaries, and a private NATS with JetStream on a port
// the kernel picks, each test under a prefix of its own. They are
// TestSubscribeThenPublish, TestPresenceAcrossNodes, TestKilledNodeIsReaped
// (a roost node killed with SIGKILL) and TestBackendRestart (a private
// server of each kind killed and started again, empty). The tests that
// stay on Redis alone say why; NATS's own faults run in process, in
// internal/cluster/natsstore, except TestBackendFreeze: three nodes over a
// private redis-server and then a private nats-server stopped with SIGSTOP
// for 20 s, counting what every canary published and received and how
// often each node's presence member heard of a user who joined meanwhile.
//
// backend_bench_test.go measures the same operations on Redis and on NATS
// in one run, so that docs/cluster.md can quote their ratio.
//
// The package has no non-test code; this file only documents it.
package cluster
