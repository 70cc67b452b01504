package bench

import "testing"

// TestSpreadPoolCoversThePool: with SpreadPool, the workers of a fleet and
// fleets given different offsets draw different channels of the pool, so
// that a cluster's connections cover it instead of all sharing its start.
func TestSpreadPoolCoversThePool(t *testing.T) {
	const pool = 10000
	seen := map[string]bool{}
	for node := range 5 {
		cfg := FleetConfig{ChannelPool: pool, ChannelOffset: node * 2000, SpreadPool: true}
		w := &worker{cfg: workerConfig{pool: pool, channels: 1, offset: int64(cfg.offset(0))}}
		for idx := int64(1); idx <= 2000; idx++ {
			seen[w.channel(idx, 0)] = true
		}
	}
	if len(seen) != pool {
		t.Fatalf("5 nodes x 2,000 connections drew %d distinct channels of %d", len(seen), pool)
	}
	plain := FleetConfig{ChannelPool: pool}
	if plain.offset(3) != 0 || (FleetConfig{SpreadPool: true}).offset(2) != 2*MaxPerWorker {
		t.Fatal("offsets: without SpreadPool every worker starts at the pool's start; with it, worker i at i*MaxPerWorker")
	}
}
