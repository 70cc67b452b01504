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
// is safe for concurrent use; SetLimits changes the caps while it runs.
type Gate struct {
	maxMem  atomic.Uint64 // cfg.MaxMemory, read before mu is taken
	mem     memSampler
	refused [NumReasons]atomic.Int64

	mu        sync.Mutex   // guards what follows
	cfg       Config       // the caps
	node      *rate.Bucket // nil when PerSecond is 0
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
	g := &Gate{mem: memSampler{read: cfg.Memory}}
	if g.mem.read == nil {
		g.mem.read = GoMemory
	}
	g.SetLimits(cfg)
	return g
}

// SetLimits replaces the caps (its Memory is ignored: the Gate keeps the
// one it was built with). Admitted connections keep their places: a cap
// lowered below what is open refuses new connections, and closes none. A
// per-address cap set where none was counts only the connections admitted
// from then on; a changed per-address rate starts every address's bucket
// full again.
func (g *Gate) SetLimits(cfg Config) {
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

// Admit claims a place for a new connection from ip at now, or says why
// there is none; a refusal is counted. The per-address caps count ip under
// its key (realip.Key).
func (g *Gate) Admit(ip netip.Addr, now time.Time) (Ticket, Reason) {
	if max := g.maxMem.Load(); max > 0 && g.mem.sample(now) > max {
		return Ticket{}, g.Refuse(Memory)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ip = realip.Key(ip, g.cfg.IPv6Prefix)
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
func (g *Gate) Limits() Config {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cfg
}
