package testutil

import (
	"os"
	"testing"
)

// TestNATSFaults: a paused server greets nobody until resumed, a killed one
// comes back on its port with its store kept, and a wiped one with none.
func TestNATSFaults(t *testing.T) {
	n := StartNATS(t)
	greets := func() bool { ok, _ := natsJetStream(n.addr()); return ok }
	n.Pause()
	if greets() {
		t.Fatal("a paused nats-server greeted a client")
	}
	n.Resume()
	Eventually(t, ReadTimeout, "a resumed nats-server greeting with JetStream", greets)
	n.Kill()
	if greets() {
		t.Fatal("nats-server greets after Kill")
	}
	if _, err := os.Stat(n.store()); err != nil {
		t.Fatalf("the killed server's store is gone: %v", err)
	}
	n.Wipe()
	if _, err := os.Stat(n.store()); !os.IsNotExist(err) {
		t.Fatalf("the store survived Wipe: %v", err)
	}
	n.Start()
	if !greets() {
		t.Fatal("a restarted nats-server does not greet with JetStream")
	}
}
