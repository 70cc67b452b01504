package admission

import (
	"net/netip"
	"testing"
	"time"
)

var (
	t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a  = netip.MustParseAddr("192.0.2.1")
	b  = netip.MustParseAddr("192.0.2.2")
)

// admit fails the test unless the gate admits ip at now.
func admit(t *testing.T, g *gate, ip netip.Addr, now time.Time) Ticket {
	t.Helper()
	tk, r := g.admit(ip, now)
	if r != Admitted {
		t.Fatalf("%v at %v: refused (%v)", ip, now.Sub(t0), r)
	}
	return tk
}

// refused fails the test unless the gate refuses ip at now for want.
func refused(t *testing.T, g *gate, ip netip.Addr, now time.Time, want Reason) {
	t.Helper()
	if _, r := g.admit(ip, now); r != want {
		t.Fatalf("%v at %v: %q, want %q", ip, now.Sub(t0), r, want)
	}
}

func TestNodeCap(t *testing.T) {
	g := newGate(Caps{MaxConnections: 2})
	admit(t, g, a, t0)
	tk := admit(t, g, b, t0)
	if tk.Tracked() {
		t.Error("a ticket names its address though no per-address cap is set")
	}
	refused(t, g, a, t0, Connections)
	g.release(tk)
	admit(t, g, a, t0)
	if g.opened() != 2 {
		t.Fatalf("open %d, want 2", g.opened())
	}
}

func TestPerAddressCap(t *testing.T) {
	g := newGate(Caps{MaxPerIP: 2})
	admit(t, g, a, t0)
	tk := admit(t, g, a, t0)
	if !tk.Tracked() {
		t.Error("with a per-address cap, a ticket must name its address")
	}
	refused(t, g, a, t0, IPConnections)
	admit(t, g, b, t0) // another address is not held back
	g.release(tk)
	admit(t, g, netip.MustParseAddr("::ffff:192.0.2.1"), t0) // the same address, IPv4-mapped
	refused(t, g, a, t0, IPConnections)
}

func TestNodeRate(t *testing.T) {
	g := newGate(Caps{PerSecond: 3})
	for range 3 {
		admit(t, g, a, t0)
	}
	refused(t, g, b, t0, Rate)
	admit(t, g, b, t0.Add(time.Second/3+time.Millisecond)) // one token back
	refused(t, g, b, t0.Add(time.Second/3+time.Millisecond), Rate)
	for range 3 {
		admit(t, g, a, t0.Add(2*time.Second)) // full again, no more
	}
	refused(t, g, a, t0.Add(2*time.Second), Rate)
}

// TestAddressRateSparesNodeTokens: an address over its own rate does not
// spend the node's tokens, so one client cannot lock out the others.
func TestAddressRateSparesNodeTokens(t *testing.T) {
	g := newGate(Caps{PerSecond: 4, PerSecondPerIP: 2})
	admit(t, g, a, t0)
	admit(t, g, a, t0)
	for range 10 {
		refused(t, g, a, t0, IPRate)
	}
	admit(t, g, b, t0)
	admit(t, g, b, t0)
	refused(t, g, b, t0, IPRate)
	refused(t, g, netip.MustParseAddr("192.0.2.3"), t0, Rate)
}

// TestSweepForgetsIdleAddresses: an address with no connection is dropped
// once its bucket is full again; a connected one is kept.
func TestSweepForgetsIdleAddresses(t *testing.T) {
	g := newGate(Caps{MaxPerIP: 1, PerSecondPerIP: 1})
	tk := admit(t, g, a, t0)
	admit(t, g, b, t0)
	g.release(tk)
	admit(t, g, netip.MustParseAddr("192.0.2.9"), t0.Add(sweepEvery))
	if _, kept := g.ips[a]; kept || len(g.ips) != 2 {
		t.Fatalf("after the sweep: %v", g.ips)
	}
	refused(t, g, b, t0.Add(sweepEvery), IPConnections)
}

func TestMemoryCeiling(t *testing.T) {
	mem := uint64(100)
	g := newGate(Caps{MaxMemory: 150, Memory: func() uint64 { return mem }})
	admit(t, g, a, t0)
	mem = 200
	admit(t, g, a, t0.Add(sampleEvery/2)) // the last reading still stands
	refused(t, g, a, t0.Add(sampleEvery), Memory)
	if g.opened() != 2 {
		t.Fatalf("open %d after a memory refusal", g.opened())
	}
}

func TestGoMemory(t *testing.T) {
	if m := GoMemory(); m < 1<<20 {
		t.Fatalf("GoMemory() = %d, want at least a MiB", m)
	}
}

func TestCgroupCeiling(t *testing.T) {
	for in, want := range map[string]uint64{"max\n": 0, "1000\n": 800, "": 0, "x": 0} {
		if got := cgroupCeiling(in); got != want {
			t.Errorf("cgroupCeiling(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestFileLimitConnections(t *testing.T) {
	for limit, want := range map[uint64]int{0: 0, 1024: 960, 20000: 19000, 64: 1, 1 << 62: 0} {
		if got := FileLimitConnections(limit); got != want {
			t.Errorf("FileLimitConnections(%d) = %d, want %d", limit, got, want)
		}
	}
	if FileLimit() == 0 {
		t.Error("FileLimit() = 0 on a Unix system")
	}
}

func TestReasonNames(t *testing.T) {
	seen := map[string]bool{}
	for r := Connections; r < NumReasons; r++ {
		if s := r.String(); s == "" || seen[s] {
			t.Errorf("reason %d: label %q empty or repeated", r, s)
		}
		seen[r.String()] = true
	}
	if !Descriptors.Overload() || Origin.Overload() || Admitted.Overload() {
		t.Error("Overload is wrong")
	}
}
