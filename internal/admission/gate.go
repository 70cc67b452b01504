package admission

import (
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/rate"
	"github.com/roostproject/roost/internal/realip"
)

// Caps are the node's caps on new sessions; a zero cap is off.
type Caps struct {
	// MaxConnections caps the node's open connections.
	MaxConnections int
	// MaxPerIP caps the open connections of one client address.
	MaxPerIP int
	// PerSecond caps new handshakes per second on the node, with a burst
	// of one second's worth.
	PerSecond int
	// PerSecondPerIP caps new handshakes per second from one address, with
	// a burst of one second's worth.
	PerSecondPerIP int
	// IPv6Prefix is how many leading bits of an IPv6 address the
	// per-address caps count it by (realip.Key); 0 means the whole address.
	IPv6Prefix int
	// MaxMemory is the memory ceiling in bytes, compared with Memory.
	MaxMemory uint64
	// Memory returns the process's memory in bytes; nil means GoMemory.
	Memory func() uint64
}

// gate admits connections within the caps. It is safe for concurrent use;
// setCaps changes the caps while it runs.
type gate struct {
	maxMem atomic.Uint64 // cfg.MaxMemory, read before mu is taken
	mem    memSampler

	mu        sync.Mutex   // guards what follows
	cfg       Caps         // the caps
	node      *rate.Bucket // nil when PerSecond is 0
	open      int
	ips       map[netip.Addr]*client // nil unless a per-address cap is set
	lastSweep time.Time
}

// client is what the gate keeps about one address: while it has
// connections, or while its bucket is not yet full again.
type client struct {
	open   int
	bucket *rate.Bucket // nil when PerSecondPerIP is 0
	last   time.Time    // its last handshake
}

// Ticket is an admitted session's claim on the caps; give it back with
// Door.Release when the session ends.
type Ticket struct {
	ip netip.Addr // the zero Addr when addresses are not tracked
}

// Tracked reports whether the ticket names its client's address, which
// happens only when a per-address cap is set: a caller that must remember
// tickets until Release can skip the others and release a zero Ticket.
func (t Ticket) Tracked() bool { return t.ip.IsValid() }

// newGate returns a gate with cfg's caps.
func newGate(cfg Caps) *gate {
	g := &gate{mem: memSampler{read: cfg.Memory}}
	if g.mem.read == nil {
		g.mem.read = GoMemory
	}
	g.setCaps(cfg)
	return g
}

// setCaps replaces the caps, as Door.SetCaps says.
func (g *gate) setCaps(cfg Caps) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cfg.Memory = g.mem.read
	g.maxMem.Store(cfg.MaxMemory)
	if cfg.PerSecond != g.cfg.PerSecond || g.node == nil {
		g.node = newBucket(cfg.PerSecond)
	}
	if cfg.PerSecondPerIP != g.cfg.PerSecondPerIP {
		for _, c := range g.ips {
			c.bucket = newBucket(cfg.PerSecondPerIP)
		}
	}
	if g.ips == nil && (cfg.MaxPerIP > 0 || cfg.PerSecondPerIP > 0) {
		g.ips = make(map[netip.Addr]*client)
	}
	g.cfg = cfg
}

// newBucket returns a bucket of n a second with a burst of n, or nil when
// n is 0 (no cap).
func newBucket(n int) *rate.Bucket {
	if n <= 0 {
		return nil
	}
	return rate.NewBucket(float64(n), n)
}

// admit claims a place for a new connection from ip at now, or says why
// there is none. The per-address caps count ip under its key (realip.Key).
func (g *gate) admit(ip netip.Addr, now time.Time) (Ticket, Reason) {
	if max := g.maxMem.Load(); max > 0 && g.mem.sample(now) > max {
		return Ticket{}, Memory
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ip = realip.Key(ip, g.cfg.IPv6Prefix)
	if g.cfg.MaxConnections > 0 && g.open >= g.cfg.MaxConnections {
		return Ticket{}, Connections
	}
	c, r := g.client(ip, now)
	if r == Admitted && g.node != nil && !g.node.Allow(now, 1) {
		r = Rate
	}
	if r != Admitted {
		return Ticket{}, r
	}
	g.open++
	if c == nil {
		return Ticket{}, Admitted
	}
	c.open++
	return Ticket{ip: ip}, Admitted
}

// client applies the per-address caps and returns the address's record,
// nil when addresses are not tracked. The caller holds g.mu.
func (g *gate) client(ip netip.Addr, now time.Time) (*client, Reason) {
	if g.ips == nil {
		return nil, Admitted
	}
	g.sweep(now)
	c := g.ips[ip]
	if c == nil {
		c = &client{bucket: newBucket(g.cfg.PerSecondPerIP)}
		g.ips[ip] = c
	}
	c.last = now
	if g.cfg.MaxPerIP > 0 && c.open >= g.cfg.MaxPerIP {
		return nil, IPConnections
	}
	if c.bucket != nil && !c.bucket.Allow(now, 1) {
		return nil, IPRate
	}
	return c, Admitted
}

// sweepEvery is how often the gate forgets addresses it no longer needs.
const sweepEvery = 10 * time.Second

// sweep drops the addresses with no connection whose bucket has refilled
// (a full bucket is the same as a new one): the table holds the addresses
// that are connected or were active in the last second or so.
func (g *gate) sweep(now time.Time) {
	if now.Sub(g.lastSweep) < sweepEvery {
		return
	}
	g.lastSweep = now
	for ip, c := range g.ips {
		if c.open == 0 && now.Sub(c.last) >= time.Second {
			delete(g.ips, ip)
		}
	}
}

// release gives back an admitted connection's place.
func (g *gate) release(t Ticket) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	if c := g.ips[t.ip.Unmap()]; t.ip.IsValid() && c != nil {
		c.open--
	}
}

// opened returns how many admitted connections have not been released.
func (g *gate) opened() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// caps returns the caps the gate applies.
func (g *gate) caps() Caps {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cfg
}
