package api

import (
	"fmt"
	"net/http"
	"net/netip"
	"sync"
)

// inflight counts the requests each client address has in the handler and
// caps them at max; max 0 means no cap.
type inflight struct {
	mu  sync.Mutex
	max int
	n   map[netip.Addr]int
}

// acquire counts one more request from a, unless a already has max.
func (f *inflight) acquire(a netip.Addr) bool {
	if f.max <= 0 {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[a] >= f.max {
		return false
	}
	if f.n == nil {
		f.n = make(map[netip.Addr]int)
	}
	f.n[a]++
	return true
}

// release counts one request from a as finished.
func (f *inflight) release(a netip.Addr) {
	if f.max <= 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[a] <= 1 {
		delete(f.n, a) // the map holds only addresses with requests
		return
	}
	f.n[a]--
}

// clientAddr is the address a request came from: the TCP peer, or the
// client a trusted proxy names (the server resolves it before the API
// sees the request). An address that does not parse (an in-memory pipe)
// is the zero Addr, shared by all such requests.
func clientAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// errTooManyInFlight is the 429 for a client address over its cap.
func errTooManyInFlight(a netip.Addr, limit int) error {
	return &statusError{
		status:     http.StatusTooManyRequests,
		msg:        fmt.Sprintf("%d HTTP API requests from %v are already in progress (limits.api_requests_per_ip); wait for one to finish", limit, a),
		retryAfter: true,
	}
}

// budget is a cap on bytes held at once, shared by every request; max 0
// means no cap.
type budget struct {
	mu   sync.Mutex
	max  int64
	used int64
}

// reserve takes n bytes if they fit, or if nothing is held, so that a body
// larger than the whole budget is still served when it comes alone.
func (b *budget) reserve(n int64) bool {
	if b.max <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used > 0 && b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

// release gives back n bytes taken by reserve.
func (b *budget) release(n int64) {
	if b.max <= 0 || n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}
