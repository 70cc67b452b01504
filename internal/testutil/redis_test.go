package testutil

import "testing"

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
}
