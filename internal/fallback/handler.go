package fallback

import (
	"log/slog"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
)

// Admission is the decision on a session's first request. A refusal is
// either already answered over HTTP (App nil, Code 0: a cap, the Origin) or
// to be sent in Pusher's terms inside the session (Code set: unknown app,
// disabled app, protocol, quota), as a WebSocket is refused after its
// upgrade, because pusher-js decides by that code what to do next.
type Admission struct {
	App     *config.App // the app admitted; nil when refused
	Release func()      // gives the admitted place back; set when App is
	Code    pusher.Code // a refusal in Pusher's terms
	Reason  string      // its message
}

// Config holds what a Handler needs. All fields are required unless noted.
type Config struct {
	Env    *session.Env
	Policy transport.Policy // the limits and timeouts of every connection
	// Shard is the hub shard whose goroutine runs the sessions, and Do
	// runs a function on it, in order, without blocking (hub.Shard.Do).
	Shard int
	Do    func(func())
	// Admit decides on a session's first request, answering an HTTP
	// refusal itself; key is the app key of the path, transport
	// "xhr_streaming" or "xhr_polling".
	Admit func(w http.ResponseWriter, r *http.Request, key, transport string) Admission
	Route Router // nil on one node
	// Loop, when not nil, holds streams' sockets once their response has
	// started, so that net/http lets them go. Nil means net/http holds
	// every stream.
	Loop   Loop
	Logger *slog.Logger // nil means slog.Default()
	// PollWait is how long a poll with nothing to answer waits before it
	// answers "h". Zero means 25 s, under the 30 s pusher-js waits for an
	// answer to its ping and under common proxies' read timeouts.
	PollWait time.Duration
	// Detach is how long a session may hold no stream or poll before it
	// ends as closed by its client. Zero means 10 s.
	Detach time.Duration
	// Now returns the time; nil means time.Now.
	Now func() time.Time
}

// Handler serves the fallback transports' requests under /pusher/app/.
type Handler struct {
	cfg   Config
	mux   *http.ServeMux
	stats [numKinds]connstats.Stats
	count atomic.Int64 // sessions in the table
	gens  atomic.Uint64

	mu       sync.Mutex // guards what follows
	table    map[string]*conn
	draining bool
	stop     chan struct{} // closed by Close: the sweeper ends
	closed   sync.Once
}

// New returns a Handler and starts its sweeper, which Close stops.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PollWait <= 0 {
		cfg.PollWait = 25 * time.Second
	}
	if cfg.Detach <= 0 {
		cfg.Detach = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Handler{cfg: cfg, table: make(map[string]*conn), stop: make(chan struct{})}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("POST "+Prefix+"{key}/{server}/{session}/xhr_streaming", h.serveReceive(streaming))
	h.mux.HandleFunc("POST "+Prefix+"{key}/{server}/{session}/xhr", h.serveReceive(polling))
	h.mux.HandleFunc("POST "+Prefix+"{key}/{server}/{session}/xhr_send", h.serveSend)
	h.mux.HandleFunc("OPTIONS "+Prefix+"{key}/{server}/{session}/{kind}", preflight)
	go h.sweep()
	return h
}

// Prefix is where the fallbacks are served: pusher-js's default httpPath,
// "/pusher", then "/app/".
const Prefix = "/pusher/app/"

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Len returns the number of sessions held.
func (h *Handler) Len() int { return int(h.count.Load()) }

// Stats calls f with each transport's name ("xhr_streaming",
// "xhr_polling": the transport label of the metrics) and counters.
func (h *Handler) Stats(f func(name string, s *connstats.Stats)) {
	for k := range numKinds {
		f(names[k], &h.stats[k])
	}
}

func (h *Handler) now() time.Time { return h.cfg.Now() }

// The parts of a session's path pusher-js makes (http_socket.ts): a server
// number below 1000 and eight base-32 digits.
var (
	serverRE  = regexp.MustCompile(`^[0-9]{1,3}$`)
	sessionRE = regexp.MustCompile(`^[0-9a-v]{8}$`)
)

// sessionKey returns the table key of r's session, or "" if its path is
// not one pusher-js makes.
func sessionKey(r *http.Request) string {
	server, sess := r.PathValue("server"), r.PathValue("session")
	if !serverRE.MatchString(server) || !sessionRE.MatchString(sess) {
		return ""
	}
	return r.PathValue("key") + "/" + server + "/" + sess
}

// lookup returns the session under key, or nil.
func (h *Handler) lookup(key string) *conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.table[key]
}

// insert adds c under its key, unless another session got there first
// (returned) or the handler drains (nil, false).
func (h *Handler) insert(c *conn) (*conn, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.draining {
		return nil, false
	}
	if old := h.table[c.key]; old != nil {
		return old, true
	}
	h.table[c.key] = c
	h.count.Add(1)
	return c, true
}

// remove takes c out of the table and drops what it still queued, out of
// the node's budget; c.mu must not be held.
func (h *Handler) remove(c *conn) {
	h.mu.Lock()
	gone := h.table[c.key] == c
	if gone {
		delete(h.table, c.key)
		h.count.Add(-1)
	}
	h.mu.Unlock()
	c.mu.Lock()
	h.cfg.Policy.Budget.Add(-c.queued)
	c.queue, c.queued = nil, 0
	c.mu.Unlock()
	if gone {
		h.ended(c.key)
	}
}

// each returns the sessions held now.
func (h *Handler) each() []*conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*conn, 0, len(h.table))
	for _, c := range h.table {
		out = append(out, c)
	}
	return out
}

// DisableApp closes every session of the app with id appID with 4003, on
// the shard's goroutine. It does not wait.
func (h *Handler) DisableApp(appID string) { h.disableApp(appID, numKinds) }

// disableApp is DisableApp for the sessions of transport k, or of both
// when k is numKinds.
func (h *Handler) disableApp(appID string, k kind) {
	conns := h.each()
	h.cfg.Do(func() {
		for _, c := range conns {
			if k == numKinds || c.kind == k {
				c.call().Disable(appID)
			}
		}
	})
}

// Drain refuses new sessions and tells every session to reconnect
// elsewhere (4200); the requests that hold them answer the close and
// return. It does not wait: http.Server.Shutdown waits for those requests.
func (h *Handler) Drain() {
	h.mu.Lock()
	h.draining = true
	h.mu.Unlock()
	conns := h.each()
	h.cfg.Do(func() {
		for _, c := range conns {
			c.call().Shutdown()
		}
	})
}

// Close ends every session left (their clients had no request to take the
// close) on the shard's goroutine, waits for that, and stops the sweeper.
// Call it after Drain and before the shard's goroutine stops; calls after
// the first do nothing.
func (h *Handler) Close() { h.closed.Do(h.close) }

func (h *Handler) close() {
	h.mu.Lock()
	h.draining = true
	h.mu.Unlock()
	done := make(chan struct{})
	conns := h.each()
	h.cfg.Do(func() {
		for _, c := range conns {
			c.end()
			h.remove(c)
			c.endStream()
		}
		close(done)
	})
	<-done
	close(h.stop)
}
