package api

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/realip"
)

// Backend is what the HTTP API needs from the hub: publishing, channel
// statistics and presence membership, cluster-wide. Implementations must be
// safe for concurrent use; every method is called from request goroutines.
// The queries wait for shared state at most until ctx ends (the request's
// context) and a bound of their own; an error means it did not answer.
type Backend interface {
	// Publish delivers p to the subscribers of its channels.
	Publish(appID string, p hub.Publication) error
	// WaitStored returns once what was published before it is in the
	// shared store of a cluster, or after a bound of its own.
	WaitStored(ctx context.Context)
	// Channel reports one channel, occupied or not.
	Channel(ctx context.Context, appID, name string) (hub.ChannelStats, error)
	// Channels reports the occupied channels whose names start with prefix.
	Channels(ctx context.Context, appID, prefix string) ([]hub.ChannelStats, error)
	// Users lists the distinct user ids of a presence channel's members.
	Users(ctx context.Context, appID, channel string) ([]string, error)
	// TerminateUser closes every connection signed in as userID.
	TerminateUser(appID, userID string)
}

// CacheReader is optionally implemented by a Backend that keeps the last
// event of cache channels, so the channel query can answer info=cache
// (Pusher docs, "Cache channels"). Without it the answer is "cache": null,
// which the docs define as an empty cache.
type CacheReader interface {
	// Cached returns the cached event data of a channel and its remaining
	// time to live; ok is false when nothing is cached.
	Cached(ctx context.Context, appID, channel string) (data string, ttl time.Duration, ok bool, err error)
}

// AppSource looks apps up by id (apps.Store satisfies it). ByID returns nil
// and no error for an unknown id, and an error when it cannot tell, which
// the API answers 503. It may wait, bounded, for a database.
type AppSource interface {
	ByID(ctx context.Context, id string) (*config.App, error)
}

// Config configures the HTTP API handler.
type Config struct {
	// Apps finds the app a request names. Nil means no app exists, so every
	// request is answered 404.
	Apps AppSource
	// Backend receives publications and answers channel queries. Required.
	Backend Backend
	// MaxBodySize is the largest request body accepted, in bytes. Zero value
	// means 1 MiB.
	MaxBodySize int
	// MaxEventData is the largest event data accepted, in bytes. Zero value
	// means 10 KiB, Pusher's documented limit.
	MaxEventData int
	// BodyTimeout bounds receiving a request body, counted from when the
	// request reaches the handler; a body still incomplete then is answered
	// 408 and its connection closed. Zero value means no deadline.
	BodyTimeout time.Duration
	// RequestsPerIP caps the requests one client address may have in the
	// handler at once; more are answered 429. Zero value means no cap.
	RequestsPerIP int
	// IPv6Prefix is how many leading bits of an IPv6 address RequestsPerIP
	// counts it by (realip.Key); 0 means the whole address.
	IPv6Prefix int
	// BodyMemory caps the bytes of request bodies being received at once,
	// each counted at its Content-Length (MaxBodySize when unknown); more
	// are answered 503. One body is always admitted when no other is being
	// received. Zero value means no cap.
	BodyMemory int
	// Now tells the time for signature timestamps and per-app rates. Zero
	// value means time.Now.
	Now func() time.Time
	// Logger receives request failures: 5xx at Error, 4xx at Debug. Zero
	// value means slog.Default().
	Logger *slog.Logger
}

// Default limits, applied by withDefaults.
const (
	defaultMaxBodySize  = 1 << 20
	defaultMaxEventData = 10 << 10
)

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() Config {
	if c.MaxBodySize <= 0 {
		c.MaxBodySize = defaultMaxBodySize
	}
	if c.MaxEventData <= 0 {
		c.MaxEventData = defaultMaxEventData
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// handler serves the API; cfg and mux are set once by New and read-only
// after (cfg's caps are read through sizes and the limiters, which
// SetLimits changes), the limiters are safe for concurrent use.
type handler struct {
	cfg      Config
	mux      *http.ServeMux
	bufs     sync.Pool // of *[]byte, request body buffers
	clients  inflight  // requests in the handler, per client address
	memory   budget    // bytes of bodies being received
	rates    buckets   // per-app rates
	sizes    liveSizes // MaxBodySize and MaxEventData, as SetLimits last set them
	listings *listings // channel and user listings being built
}

// New returns the handler for every path under /apps/. Paths it does not
// know are answered 404, known paths with the wrong method 405 with Allow.
// New panics if cfg.Backend is nil: that is a wiring mistake, not a request
// error.
func New(cfg Config) *Handler {
	if cfg.Backend == nil {
		panic("api.New: Config.Backend is nil")
	}
	h := &Handler{&handler{cfg: cfg.withDefaults(), listings: newListings()}}
	h.SetLimits(Limits{MaxBodySize: cfg.MaxBodySize, MaxEventData: cfg.MaxEventData, RequestsPerIP: cfg.RequestsPerIP, BodyMemory: cfg.BodyMemory})
	h.bufs.New = func() any { b := make([]byte, 0, initialBodyCap); return &b }
	h.mux = h.routes()
	return h
}

// routes maps the endpoints of the Pusher HTTP API reference to handlers.
// http.ServeMux answers unknown paths 404 and wrong methods 405 with Allow.
func (h *handler) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("POST /apps/{app}/events", h.gate(h.events))
	mux.Handle("POST /apps/{app}/batch_events", h.gate(h.batchEvents))
	mux.Handle("GET /apps/{app}/channels", h.gate(h.read(h.channels)))
	mux.Handle("GET /apps/{app}/channels/{channel}", h.gate(h.read(h.channel)))
	mux.Handle("GET /apps/{app}/channels/{channel}/users", h.gate(h.read(h.users)))
	mux.Handle("POST /apps/{app}/users/{user}/terminate_connections", h.gate(h.terminate))
	return mux
}

// ServeHTTP implements http.Handler. Before any route runs, it counts the
// request against its client address's cap and puts the body under its
// deadline, so that no request under /apps/, known or not, holds the
// connection longer than BodyTimeout waiting for a body.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	addr := realip.Key(clientAddr(r), h.cfg.IPv6Prefix)
	if !h.clients.acquire(addr) {
		h.refuse(w, r, errTooManyInFlight(addr, int(h.clients.max.Load())))
		return
	}
	defer h.clients.release(addr)
	if r.ContentLength != 0 && h.cfg.BodyTimeout > 0 {
		// Unsupported only by test recorders, which have no connection.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.cfg.BodyTimeout))
	}
	h.mux.ServeHTTP(w, r)
}
