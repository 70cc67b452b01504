package api

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/rate"
)

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
