package api

import "sync/atomic"

// Limits are the caps of Config a running node may change (SetLimits).
// A zero or negative one takes its default as in Config.
type Limits struct {
	MaxBodySize, MaxEventData, RequestsPerIP, BodyMemory int
}

// Handler serves the API (New); SetLimits changes its caps while it runs.
type Handler struct{ *handler }

// SetLimits applies l to the requests that arrive from now on; those in
// progress finish under the caps they were admitted with. It is safe to
// call while requests are served.
func (h *Handler) SetLimits(l Limits) {
	c := Config{MaxBodySize: l.MaxBodySize, MaxEventData: l.MaxEventData}.withDefaults()
	h.sizes.Store(&sizes{body: c.MaxBodySize, eventData: c.MaxEventData})
	h.clients.max.Store(int64(l.RequestsPerIP))
	h.memory.max.Store(int64(l.BodyMemory))
}

// sizes are the size caps in force.
type sizes struct{ body, eventData int }

// limits returns the size caps in force: one atomic load.
func (h *handler) limits() *sizes { return h.sizes.Load() }

// liveSizes is the sizes field of handler.
type liveSizes = atomic.Pointer[sizes]
