package testutil

import (
	"strings"
	"testing"
)

// TestRedisFaults: a paused server does not answer until resumed, and one
// stopped with SHUTDOWN SAVE comes back with its data, one stopped without
// saving comes back empty.
func TestRedisFaults(t *testing.T) {
	r := StartRedis(t)
	r.Pause()
	if r.Pings() {
		t.Fatal("a paused redis-server answered PING")
	}
	r.Resume()
	Eventually(t, ReadTimeout, "a resumed redis-server answering PING", r.Pings)
	for _, save := range []bool{false, true} {
		if reply, err := r.Command(ReadTimeout, "SET", "k", "v"); err != nil || reply != "+OK" {
			t.Fatalf("SET: %q %v", reply, err)
		}
		r.Shutdown(save)
		if r.Pings() {
			t.Fatal("redis-server answers PING after SHUTDOWN")
		}
		r.Start()
		if reply, _ := r.Command(ReadTimeout, "EXISTS", "k"); reply != map[bool]string{true: ":1", false: ":0"}[save] {
			t.Fatalf("after SHUTDOWN (save %v), EXISTS k = %q", save, reply)
		}
	}
	r.Kill()
	if r.Pings() {
		t.Fatal("redis-server answers PING after Kill")
	}
	r.Wipe()
	r.Start()
	if reply, _ := r.Command(ReadTimeout, "EXISTS", "k"); reply != ":0" {
		t.Fatalf("killed after a SHUTDOWN SAVE and wiped, EXISTS k = %q", reply)
	}
}

// TestRedisClusterStarts: three primaries with a replica each agree on
// their slots, and a moved slot is served by its new primary.
func TestRedisClusterStarts(t *testing.T) {
	c := StartRedisCluster(t, 3, 1)
	from := c.Primary("k")
	if out, err := from.Cli("SET", "k", "v"); err != nil || !strings.HasPrefix(out, "OK") {
		t.Fatalf("SET on the slot's primary: %q %v", out, err)
	}
	to := c.Primaries[0]
	if to == from {
		to = c.Primaries[1]
	}
	c.MoveSlot(c.Slot("k"), from, to)
	if c.Primary("k") != to {
		t.Fatal("the slot did not move")
	}
	if out, _ := to.Cli("GET", "k"); strings.TrimSpace(out) != "v" {
		t.Fatalf("the key did not move with its slot: %q", out)
	}
}

// TestSentinelFailsOver: the sentinel promotes the replica on demand.
func TestSentinelFailsOver(t *testing.T) {
	s := StartSentinel(t)
	s.Failover()
	if role, _ := s.Replica.Cli("ROLE"); !strings.HasPrefix(role, "master") {
		t.Fatalf("the replica's role after the failover: %q", role)
	}
}
