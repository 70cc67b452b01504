// Package chaos holds the randomized checker of a roost cluster
// (docs/cluster.md, "The randomized checker"): three real `roost serve`
// processes on one backend (a private Redis, a private Redis Cluster of
// three primaries, a private NATS with JetStream) take a seeded random
// schedule of client work and faults, and after each quiet period the
// cluster is compared with a model of one node. Every run prints its seed;
// -seed reproduces one, -duration bounds it (CHAOS_SEED and
// CHAOS_DURATION in the environment do the same, for make chaos).
//
// The package has no non-test code; this file only documents it.
package chaos
