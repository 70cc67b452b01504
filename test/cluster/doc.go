// Package cluster holds the failure tests of a roost cluster over Redis
// (docs/cluster.md, "When Redis goes away"): they run real `roost serve`
// processes built with `go build` against a private redis-server that the
// test kills with SIGKILL and starts again on the same port, to prove that a
// node keeps delivering locally while Redis is away, reports itself degraded
// on GET /ready, and rejoins the cluster by itself when Redis comes back.
//
// The tests need the redis-server binary. Without it they skip and say why,
// except in CI (CI=true), where they fail: CI must always run them. The
// cluster tests with the official Pusher clients live in e2e/test/cluster-*.
//
// The package has no non-test code; this file only documents it.
package cluster
