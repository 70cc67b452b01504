package admission

import (
	"testing"
	"time"
)

// TestSetLimitsLowersAndRaisesCaps checks that a lowered cap refuses new
// connections while the open ones keep their places, and a raised one
// admits again.
func TestSetLimitsLowersAndRaisesCaps(t *testing.T) {
	g := New(Config{MaxPerIP: 3, MaxConnections: 10})
	first := admit(t, g, a, t0)
	admit(t, g, a, t0)
	g.SetLimits(Config{MaxPerIP: 1, MaxConnections: 10})
	refused(t, g, a, t0, IPConnections)
	admit(t, g, b, t0)
	if g.Open() != 3 {
		t.Fatalf("open %d after lowering the cap, want the 3 admitted", g.Open())
	}
	g.Release(first)
	refused(t, g, a, t0, IPConnections) // one is still open, and 1 is the cap
	g.SetLimits(Config{MaxPerIP: 2, MaxConnections: 2})
	refused(t, g, a, t0, Connections)
	g.SetLimits(Config{MaxPerIP: 2, MaxConnections: 3})
	admit(t, g, a, t0)
}

// TestSetLimitsTurnsCapsOn checks caps switched on by SetLimits where the
// Gate started with none: a per-address cap counts the connections
// admitted from then on, and the rates and the memory ceiling apply.
func TestSetLimitsTurnsCapsOn(t *testing.T) {
	mem := uint64(100)
	g := New(Config{Memory: func() uint64 { return mem }})
	admit(t, g, a, t0)
	g.SetLimits(Config{MaxPerIP: 1})
	admit(t, g, a, t0) // the one before counts under no address
	refused(t, g, a, t0, IPConnections)
	g.SetLimits(Config{PerSecond: 1})
	admit(t, g, b, t0)
	refused(t, g, b, t0, Rate)
	g.SetLimits(Config{PerSecondPerIP: 1})
	t1 := t0.Add(time.Second)
	admit(t, g, b, t1)
	refused(t, g, b, t1, IPRate)
	g.SetLimits(Config{MaxMemory: 50})
	refused(t, g, b, t1.Add(time.Second), Memory)
	g.SetLimits(Config{})
	admit(t, g, b, t1.Add(time.Second))
}
