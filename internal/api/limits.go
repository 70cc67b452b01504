package api

import (
	"fmt"
	"net/http"
	"net/netip"
	"sync"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/rate"
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

// clientAddr is the address a request came from: the TCP peer, never a
// header a client could forge. Behind a proxy it is the proxy's. An address
// that does not parse (an in-memory pipe) is the zero Addr, shared by all
// such requests.
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

// The per-app rates, named as the settings that set them.
const (
	backendEvents = "max_backend_events_per_sec"
	readRequests  = "max_read_req_per_sec"
)

// buckets holds one token bucket per app and rate, made on first use. A
// bucket refills its rate each second and holds one second's worth, so an
// app may spend its whole second at once, as with soketi's one-second
// windows. Counts are this node's: in a cluster each node allows the rate.
type buckets struct {
	mu sync.Mutex
	m  map[bucketKey]*rate.Bucket
}

// bucketKey names a bucket; the rate is part of it, so a changed setting
// gets a fresh bucket.
type bucketKey struct {
	app, limit string
	perSecond  int
}

// allow takes n from the app's bucket for limit, whose rate is perSecond (0:
// unlimited), and returns a 429 when it does not hold n.
func (h *handler) allow(app *config.App, limit string, perSecond, n int, what string) error {
	if perSecond <= 0 {
		return nil
	}
	key := bucketKey{app.ID, limit, perSecond}
	b := &h.rates
	b.mu.Lock()
	bk := b.m[key]
	if bk == nil {
		if b.m == nil {
			b.m = make(map[bucketKey]*rate.Bucket)
		}
		bk = rate.NewBucket(float64(perSecond), perSecond)
		b.m[key] = bk
	}
	b.mu.Unlock()
	if bk.Allow(h.cfg.Now(), n) {
		return nil
	}
	return &statusError{
		status:     http.StatusTooManyRequests,
		msg:        fmt.Sprintf("app %s is over its limit of %d %s per second (%s); this request counts %d", app.ID, perSecond, what, limit, n),
		retryAfter: true,
	}
}

// read wraps a query endpoint in the app's max_read_req_per_sec.
func (h *handler) read(ep endpoint) endpoint {
	return func(w http.ResponseWriter, r *http.Request, req *request) error {
		if err := h.allow(req.app, readRequests, req.app.MaxReadReqPerSec, 1, "API reads"); err != nil {
			return err
		}
		return ep(w, r, req)
	}
}

// allowEvents takes n events, one per channel of each event of a request
// (as soketi counts them), from the app's max_backend_events_per_sec.
func (h *handler) allowEvents(app *config.App, n int) error {
	return h.allow(app, backendEvents, app.MaxBackendEventsPerSec, n, "backend events")
}
