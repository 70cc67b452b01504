package dashboard

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/metrics"
)

// Hub is what the dashboard needs from the node's hub; *hub.Hub satisfies
// it.
type Hub interface {
	SetConsole(c hub.Console)
	Connections(app string) int
	Channels(ctx context.Context, app, prefix string) ([]hub.ChannelStats, error)
	Channel(ctx context.Context, app, name string) (hub.ChannelStats, error)
	Members(ctx context.Context, app, channel string) ([]hub.Member, error)
	Cached(ctx context.Context, app, channel string) (data string, ttl time.Duration, ok bool, err error)
}

// Apps finds apps; *apps.Source satisfies it.
type Apps interface {
	ByID(ctx context.Context, id string) (*config.App, error)
	List(ctx context.Context, after string, limit int) ([]config.App, error)
}

var _ Hub = (*hub.Hub)(nil)

// Config is what New needs.
type Config struct {
	// Token is the password (admin.token). Zero value means no password,
	// which New accepts only with Open.
	Token string
	// Open serves the dashboard without a password to requests whose Host
	// is a loopback name: the development app on a loopback address.
	Open bool
	// Settings are the dashboard.* settings.
	Settings config.Dashboard
	Hub      Hub
	Apps     Apps
	// API is the HTTP API handler (/apps/...): the event creator sends
	// its events through it, signed with the app's secret.
	API http.Handler
	// Snapshot fills the node's counters, as for /metrics.
	Snapshot func(*metrics.Snapshot)
	// Loaded says when the configuration was last applied; nil means
	// unknown, and the overview does not say.
	Loaded func() metrics.ConfigLoad
	// Node names this node (its socket_id prefix).
	Node   string
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Interval is the time between two samples of the overview. Zero value
	// means DefaultInterval.
	Interval time.Duration
	// Board is the cluster's: each node shares its latest sample there,
	// for the cluster view. Zero value means a single node.
	Board Board
}

// DefaultInterval is how often the overview takes a sample; History keeps
// fifteen minutes of them.
const DefaultInterval = 2 * time.Second

// Dashboard is the handler of /dashboard and everything under it.
type Dashboard struct {
	cfg     Config
	mux     *http.ServeMux
	limit   limiter
	console *console
	history *history
	peers   *peers // nil on a single node
	done    chan struct{}
	once    sync.Once
}

// New returns the dashboard; call Close when the server stops. It panics
// on a configuration with neither a token nor Open: that would be a
// dashboard nobody may use, a wiring mistake.
func New(cfg Config) *Dashboard {
	if cfg.Token == "" && !cfg.Open {
		panic("dashboard.New: no token and not open")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	d := &Dashboard{cfg: cfg, done: make(chan struct{})}
	d.limit = newLimiter(cfg.Settings.RequestsPerSecond, cfg.Now)
	d.console = newConsole(cfg.Hub, cfg.Settings.ConsoleEventsPerSecond, cfg.Now)
	d.history = newHistory(cfg.Interval, cfg.Snapshot, cfg.Now)
	d.startPeers()
	d.history.start()
	d.mux = d.routes()
	return d
}

// Close ends the open console streams and stops the sampling. It may be
// called more than once.
func (d *Dashboard) Close() {
	d.once.Do(func() {
		close(d.done)
		d.history.stop()
		if d.peers != nil {
			d.peers.leave(d.cfg.Node)
		}
	})
}

func (d *Dashboard) routes() *http.ServeMux {
	mux := http.NewServeMux()
	files, _ := fs.Sub(static, "static")
	mux.Handle("GET /dashboard/static/", http.StripPrefix("/dashboard/static/", http.FileServerFS(files)))
	mux.HandleFunc("GET /dashboard", d.page)
	mux.HandleFunc("GET /dashboard/{$}", d.page)
	mux.HandleFunc("POST /dashboard/api/login", d.login)
	mux.HandleFunc("POST /dashboard/api/logout", d.logout)
	api := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, d.guard(h)) }
	api("GET /dashboard/api/session", d.session)
	api("GET /dashboard/api/overview", d.overview)
	api("GET /dashboard/api/apps", d.apps)
	api("GET /dashboard/api/channels", d.channels)
	api("GET /dashboard/api/channel", d.channel)
	if d.cfg.Settings.ConsoleOn() {
		api("GET /dashboard/api/console", d.stream)
		api("POST /dashboard/api/publish", d.publish)
	}
	return mux
}

// ServeHTTP applies the per-address rate limit and the checks every
// request passes, then routes.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !d.limit.allow(clientIP(r)) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "too many dashboard requests from this address: dashboard.requests_per_second")
		return
	}
	if err := d.checkRequest(r); err != nil {
		writeError(w, http.StatusForbidden, err.Error())
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Cache-Control", "no-store")
	d.mux.ServeHTTP(w, r)
}
