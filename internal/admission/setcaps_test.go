package admission

import (
	"testing"
	"time"
)

// TestSetCapsLowersAndRaisesCaps checks that a lowered cap refuses new
// connections while the open ones keep their places, and a raised one
// admits again.
func TestSetCapsLowersAndRaisesCaps(t *testing.T) {
	g := newGate(Caps{MaxPerIP: 3, MaxConnections: 10})
	first := admit(t, g, a, t0)
	admit(t, g, a, t0)
	g.setCaps(Caps{MaxPerIP: 1, MaxConnections: 10})
	refused(t, g, a, t0, IPConnections)
	admit(t, g, b, t0)
	if g.opened() != 3 {
		t.Fatalf("open %d after lowering the cap, want the 3 admitted", g.opened())
	}
	g.release(first)
	refused(t, g, a, t0, IPConnections) // one is still open, and 1 is the cap
	g.setCaps(Caps{MaxPerIP: 2, MaxConnections: 2})
	refused(t, g, a, t0, Connections)
	g.setCaps(Caps{MaxPerIP: 2, MaxConnections: 3})
	admit(t, g, a, t0)
}

// TestSetCapsTurnsCapsOn checks caps switched on by setCaps where the
// Gate started with none: a per-address cap counts the connections
// admitted from then on, and the rates and the memory ceiling apply.
func TestSetCapsTurnsCapsOn(t *testing.T) {
	mem := uint64(100)
	g := newGate(Caps{Memory: func() uint64 { return mem }})
	admit(t, g, a, t0)
	g.setCaps(Caps{MaxPerIP: 1})
	admit(t, g, a, t0) // the one before counts under no address
	refused(t, g, a, t0, IPConnections)
	g.setCaps(Caps{PerSecond: 1})
	admit(t, g, b, t0)
	refused(t, g, b, t0, Rate)
	g.setCaps(Caps{PerSecondPerIP: 1})
	t1 := t0.Add(time.Second)
	admit(t, g, b, t1)
	refused(t, g, b, t1, IPRate)
	g.setCaps(Caps{MaxMemory: 50})
	refused(t, g, b, t1.Add(time.Second), Memory)
	g.setCaps(Caps{})
	admit(t, g, b, t1.Add(time.Second))
}
