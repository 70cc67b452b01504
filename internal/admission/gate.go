package admission

import (
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/rate"
	"github.com/roostproject/roost/internal/realip"
)

// Config sets a Gate's caps; a zero cap is off.
type Config struct {
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

// Gate admits connections within the caps and counts what it refuses. It
// is safe for concurrent use.
type Gate struct {
	cfg     Config
	node    *rate.Bucket // nil when PerSecond is 0
	mem     memSampler
	refused [NumReasons]atomic.Int64

	mu        sync.Mutex
	open      int
	ips       map[netip.Addr]*client // nil unless a per-address cap is set
	lastSweep time.Time
}

// client is what the Gate keeps about one address: while it has
// connections, or while its bucket is not yet full again.
type client struct {
	open   int
	bucket *rate.Bucket // nil when PerSecondPerIP is 0
	last   time.Time    // its last handshake
}

// Ticket is an admitted connection's claim on the caps; give it back with
// Release when the connection ends.
type Ticket struct {
	ip netip.Addr // the zero Addr when addresses are not tracked
}

// Tracked reports whether the ticket names its client's address, which
// happens only when a per-address cap is set: a caller that must remember
// tickets until Release can skip the others and release a zero Ticket.
func (t Ticket) Tracked() bool { return t.ip.IsValid() }

// New returns a Gate with cfg's caps.
func New(cfg Config) *Gate {
	g := &Gate{cfg: cfg, mem: memSampler{read: cfg.Memory}}
	if g.mem.read == nil {
		g.mem.read = GoMemory
	}
	if cfg.PerSecond > 0 {
		g.node = rate.NewBucket(float64(cfg.PerSecond), cfg.PerSecond)
	}
	if cfg.MaxPerIP > 0 || cfg.PerSecondPerIP > 0 {
		g.ips = make(map[netip.Addr]*client)
	}
	return g
}

// Admit claims a place for a new connection from ip at now, or says why
// there is none; a refusal is counted. The per-address caps count ip under
// its key (realip.Key).
func (g *Gate) Admit(ip netip.Addr, now time.Time) (Ticket, Reason) {
	if g.cfg.MaxMemory > 0 && g.mem.sample(now) > g.cfg.MaxMemory {
		return Ticket{}, g.Refuse(Memory)
	}
	ip = realip.Key(ip, g.cfg.IPv6Prefix)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cfg.MaxConnections > 0 && g.open >= g.cfg.MaxConnections {
		return Ticket{}, g.Refuse(Connections)
	}
	c, r := g.client(ip, now)
	if r == Admitted && g.node != nil && !g.node.Allow(now, 1) {
		r = Rate
	}
	if r != Admitted {
		return Ticket{}, g.Refuse(r)
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
func (g *Gate) client(ip netip.Addr, now time.Time) (*client, Reason) {
	if g.ips == nil {
		return nil, Admitted
	}
	g.sweep(now)
	c := g.ips[ip]
	if c == nil {
		c = &client{}
		if n := g.cfg.PerSecondPerIP; n > 0 {
			c.bucket = rate.NewBucket(float64(n), n)
		}
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

// sweepEvery is how often the Gate forgets addresses it no longer needs.
const sweepEvery = 10 * time.Second

// sweep drops the addresses with no connection whose bucket has refilled
// (a full bucket is the same as a new one): the table holds the addresses
// that are connected or were active in the last second or so.
func (g *Gate) sweep(now time.Time) {
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

// Release gives back an admitted connection's place.
func (g *Gate) Release(t Ticket) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	if c := g.ips[t.ip.Unmap()]; t.ip.IsValid() && c != nil {
		c.open--
	}
}

// Refuse counts a refusal for reason r and returns r.
func (g *Gate) Refuse(r Reason) Reason {
	g.refused[r].Add(1)
	return r
}

// Open returns how many admitted connections have not been released.
func (g *Gate) Open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// Refused returns the refusals counted so far, indexed by Reason.
func (g *Gate) Refused() [NumReasons]int64 {
	var out [NumReasons]int64
	for r := range out {
		out[r] = g.refused[r].Load()
	}
	return out
}

// Limits returns the caps the Gate applies.
func (g *Gate) Limits() Config { return g.cfg }
