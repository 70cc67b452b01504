package route

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/fallback"
)

// Header marks a forwarded request with the id of the node that forwarded
// it.
const Header = "Roost-Forwarded-By"

// storeTimeout bounds each call to the store on a request's path.
const storeTimeout = 2 * time.Second

// Config holds what a Router needs.
type Config struct {
	Routes cluster.Routes // the cluster's store
	Node   string         // this node's id
	Logger *slog.Logger   // nil means slog.Default()
}

// Router is a fallback.Router over a cluster's store.
type Router struct {
	cfg   Config
	self  atomic.Pointer[string] // this node's record; nil until advertised
	proxy *httputil.ReverseProxy

	mu   sync.Mutex // guards held and gone
	held map[string]struct{}
	gone []string

	draining context.Context // cancelled by Drain: forwarded requests end
	drain    context.CancelFunc

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

var _ fallback.Router = (*Router)(nil)

// New returns a Router and starts its renewals, which Close stops. It
// forwards nothing and records nothing until Advertise.
func New(cfg Config) *Router {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Router{cfg: cfg, held: make(map[string]struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	r.proxy = newProxy(cfg.Node)
	r.draining, r.drain = context.WithCancel(context.Background())
	go r.renew()
	return r
}

// Advertise sets the address at which the other nodes reach this one, an
// http:// or https:// URL.
func (r *Router) Advertise(u string) {
	rec := r.cfg.Node + " " + strings.TrimSuffix(u, "/")
	r.self.Store(&rec)
}

// Forward implements fallback.Router.
func (r *Router) Forward(w http.ResponseWriter, req *http.Request, key string) bool {
	if by := req.Header.Get(Header); by != "" {
		http.Error(w, "roost: no such session on this node (forwarded here by node "+by+"): it ended", http.StatusNotFound)
		return true
	}
	self := r.self.Load()
	if self == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(req.Context(), storeTimeout)
	rec, err := r.cfg.Routes.Owner(ctx, key)
	cancel()
	if err != nil || rec == "" || rec == *self {
		return false
	}
	target, ok := parseRecord(rec)
	if !ok {
		return false
	}
	ctx, stop := context.WithCancel(req.Context())
	defer stop()
	defer context.AfterFunc(r.draining, stop)()
	serve(r.proxy, w, req.WithContext(ctx), target)
	return true
}

// Drain ends the requests this node forwards, so that a shutdown need not
// wait for streams whose sessions live on: their clients reconnect, as
// this node's own do. It does not wait.
func (r *Router) Drain() { r.drain() }

// parseRecord returns the address in a session's record, "id url".
func parseRecord(rec string) (*url.URL, bool) {
	_, raw, ok := strings.Cut(rec, " ")
	if !ok {
		return nil, false
	}
	u, err := url.Parse(raw)
	return u, err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Held implements fallback.Router.
func (r *Router) Held(key string) {
	self := r.self.Load()
	if self == nil {
		return
	}
	r.mu.Lock()
	r.held[key] = struct{}{}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	if err := r.cfg.Routes.Claim(ctx, *self, []string{key}); err != nil && !cluster.Unreachable(err) {
		r.cfg.Logger.Warn("recording a fallback session in the cluster's store", "err", err)
	}
}

// Ended implements fallback.Router.
func (r *Router) Ended(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.held[key]; ok {
		delete(r.held, key)
		r.gone = append(r.gone, key)
	}
}

// Close removes the records left and stops the renewals; calls after the
// first do nothing.
func (r *Router) Close() {
	r.once.Do(func() {
		r.drain()
		close(r.stop)
		<-r.done
	})
}
