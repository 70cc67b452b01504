package server

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/admin"
	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/api"
	"github.com/roostproject/roost/internal/apps"
	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/dashboard"
	"github.com/roostproject/roost/internal/fallback"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/portable"
	"github.com/roostproject/roost/internal/ratelog"
	"github.com/roostproject/roost/internal/route"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/webhook"
	"github.com/roostproject/roost/internal/ws"
)

// Version is the server version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// The app store serves the handshake, the HTTP API and the admin API.
var (
	_ api.AppSource = (*apps.Source)(nil)
	_ admin.Apps    = (*apps.Source)(nil)
)

// Server is one roost node.
type Server struct {
	cfg       *config.Config
	log       *slog.Logger
	hub       *hub.Hub
	poller    *netpoll.Poller // nil when every connection is served by portable
	uring     bool            // the loops write fan-out with io_uring
	portable  *portable.Transport
	carriers  []carried         // every transport that carries sessions, the loops first (carriers.go)
	budget    *transport.Budget // the node's backlog budget, shared by both transports
	fallback  *fallback.Handler // pusher-js's HTTP fallback sessions
	http      *http.Server
	stats     connstats.Stats      // the epoll loops' counters
	cluster   *cluster.Node        // nil on a single node
	route     *route.Router        // forwards fallback requests; nil on a single node
	pending   webhook.Pending      // the cluster's delayed webhook events; nil on a single node
	outbox    webhook.Outbox       // the cluster's webhook outbox; nil on a single node or with webhooks.outbox off
	webhooks  *webhook.Webhooks    // every app's, built even when none has any
	dashboard *dashboard.Dashboard // nil when /dashboard is off
	apps      *apps.Source
	door      *admission.Door // whether a client may open a session
	env       *session.Env    // what every session shares, its live limits among it
	api       *api.Handler    // the HTTP API, whose caps a reload changes
	proxies   proxies         // whose word about the client is taken (clientaddr.go)
	fds       tickets         // the admission tickets of the epoll loops' sockets
	handoff   *handoff        // what the loops pass to net/http, when they accept
	metrics   *http.Server    // serves metrics.addr; nil when /metrics is on addr
	metricLn  net.Listener    // metrics.addr once bound
	timeouts  atomic.Int64    // connections closed by the handshake timeout
	loaded    loadStatus      // when the configuration was last applied (reload.go)
	reloading sync.Mutex      // held by Reload: one applies at a time
	edge      edge            // the certificates, when TLS is on

	// limitedLog writes each message at most once a second, with the
	// count (ratelog): for refusals, net/http's errors and the transports,
	// whose events come in floods.
	limitedLog *slog.Logger
}

// New builds a node from a validated configuration.
func New(cfg config.Config, log *slog.Logger) (*Server, error) {
	if err := checkExposure(&cfg); err != nil {
		return nil, err
	}
	s := &Server{cfg: &cfg, log: log}
	s.loaded.succeeded(time.Now())
	s.limitedLog = slog.New(ratelog.New(log.Handler(), time.Second))
	loops, err := loopCount(s.cfg, netpoll.Supported)
	if err != nil {
		return nil, err
	}
	if s.proxies, err = newProxies(s.cfg); err != nil {
		return nil, err
	}
	s.hub = hub.New(hub.Config{Shards: loops + 1, Encode: encode, Compress: ws.DeflateFrame}, nodeID())
	s.webhooks = s.newWebhooks()
	if b, _ := clusterBackend(&cfg); b != nil {
		if err := s.joinCluster(); err != nil {
			s.closeWebhooks(context.Background())
			return nil, err
		}
	}
	if s.apps, err = apps.New(s.cfg, log, apps.Hooks{OnDisable: s.disableApp, OnChange: s.appChanged}); err != nil {
		s.closeWebhooks(context.Background())
		return nil, err
	}
	s.door = s.newDoor()
	s.startWebhooks()
	env := &session.Env{Hub: s.hub, Config: s.cfg, Logger: log, Now: func() int64 { return time.Now().Unix() }}
	env.OnCacheMiss = s.webhooks.CacheMiss
	s.env = env
	pol := policy(s.cfg)
	s.budget = pol.Budget
	s.portable = portable.New(portable.Config{Shard: loops, Hub: s.hub, Env: env, Policy: pol, Logger: s.limitedLog})
	if loops > 0 {
		s.uring = useUring(s.cfg.Transport, netpoll.UringWorks)
		p, err := netpoll.New(netpoll.Config{Loops: loops, Hub: s.hub, Env: env, Policy: pol, Logger: s.limitedLog, Stats: &s.stats, OnClose: s.socketClosed,
			Uring: s.uring, ProxyHeader: s.proxyHeader(), ProxyRefused: s.proxyRefused, MaxHandshakes: handshakeBound()})
		if err != nil {
			s.closeWebhooks(context.Background())
			return nil, fmt.Errorf("server: starting epoll loops: %w", err)
		}
		s.poller = p
		s.addCarrier(p, admission.Epoll, &s.stats)
	}
	s.fallback = s.newFallback(env, pol, loops) // after the loops, which hold its streams
	s.addFallbackCarriers()
	s.addCarrier(s.portable, admission.Portable, s.portable.Stats())
	s.http = s.httpServer(s.clientAddresses(s.routes()))
	s.http.ConnContext = withConn
	s.http.ConnState = connState
	s.http.RegisterOnShutdown(s.closeDashboard)
	s.http.RegisterOnShutdown(s.fallback.Drain) // its held requests end with 4200, so Shutdown need not wait for them
	s.http.RegisterOnShutdown(s.drainRoute)     // nor for the streams it forwards
	if cfg.Metrics.Addr != "" {
		s.metrics = s.httpServer(s.metricsRoutes(http.NewServeMux()))
	}
	return s, nil
}

// idleTimeout is how long a keep-alive connection may wait for its next
// request.
const idleTimeout = 2 * time.Minute

// setTimeouts bounds every phase of an HTTP request, so that no connection
// outlives a timeout before it is hijacked: its headers (the handshake
// timeout), its whole request with the body (plus the API body timeout), its
// response (plus the write timeout), and the wait for the next request. An
// upgraded WebSocket keeps none of these: the epoll transport takes the
// socket out of the Go runtime, and the portable one sets its own deadline
// before every read and write.
func setTimeouts(h *http.Server, l config.Limits) {
	h.ReadHeaderTimeout = l.HandshakeTimeout
	h.ReadTimeout = l.HandshakeTimeout + l.APIBodyTimeout
	h.WriteTimeout = h.ReadTimeout + l.WriteTimeout
	h.IdleTimeout = idleTimeout
}

// httpServer returns an HTTP server for h with the node's timeouts and
// size limits, whose own errors (a failed accept, a TLS handshake) are
// logged at most once a second each.
func (s *Server) httpServer(h http.Handler) *http.Server {
	c := s.cfg.Limits
	hs := &http.Server{
		Handler:        h,
		MaxHeaderBytes: c.MaxHeaderBytes,
		ErrorLog:       log.New(httpErrors{s.limitedLog}, "", 0),
	}
	setTimeouts(hs, c)
	return hs
}

// loopCount returns how many epoll loops to run, 0 meaning portable only, on a
// platform that has epoll or not. "auto" is portable where there is no
// epoll; "epoll" where there is none is an error rather than a silent
// fallback.
func loopCount(c *config.Config, epoll bool) (int, error) {
	switch {
	case (c.Transport == config.TransportEpoll || c.Transport == config.TransportEpollUring) && !epoll:
		return 0, fmt.Errorf("server: transport %q needs Linux (this is %s); use %q or %q",
			c.Transport, runtime.GOOS, config.TransportAuto, config.TransportPortable)
	case c.Transport == config.TransportPortable || !epoll:
		return 0, nil
	case c.Loops > 0:
		return c.Loops, nil
	}
	return runtime.GOMAXPROCS(0), nil
}

// useUring reports whether the epoll loops write fan-out with io_uring:
// always with "epoll+uring" (an unusable ring then fails the start), where
// the kernel allows it with "auto", never with "epoll".
func useUring(transport string, works func() bool) bool {
	switch transport {
	case config.TransportEpollUring:
		return true
	case config.TransportAuto:
		return works()
	}
	return false
}

// wsTransport is the transport that serves the node's WebSockets, however
// their handshake came: the label of their refusals.
func (s *Server) wsTransport() admission.Transport {
	if s.poller != nil {
		return admission.Epoll
	}
	return admission.Portable
}

// Transport names the transport serving new connections: "epoll",
// "epoll+uring" when the loops write fan-out with io_uring, or "portable".
func (s *Server) Transport() string {
	switch {
	case s.poller != nil && s.uring:
		return config.TransportEpollUring
	case s.poller != nil:
		return config.TransportEpoll
	}
	return config.TransportPortable
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app/{key}", s.serveWebSocket)
	mux.Handle(fallback.Prefix, s.fallback)
	l := s.cfg.Limits
	s.api = api.New(api.Config{
		Apps: s.apps, Backend: s.hub, Logger: s.log,
		MaxBodySize: l.MaxBodySize, MaxEventData: l.MaxEventData,
		BodyTimeout: l.APIBodyTimeout, RequestsPerIP: l.APIRequestsPerIP, IPv6Prefix: l.IPv6Prefix, BodyMemory: l.APIBodyMemory,
	})
	mux.Handle("/apps/", s.api)
	s.mountDashboard(mux, s.api)
	if s.cfg.Admin.Token != "" {
		mux.Handle("/admin/", admin.New(s.cfg.Admin.Token, s.apps, s.log))
	}
	mux.HandleFunc("GET /up", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "OK\n") })
	mux.HandleFunc("GET /ready", s.serveReady)
	if s.cfg.Metrics.Addr == "" {
		s.metricsRoutes(mux)
	}
	return mux
}

// tlsListener hands out TLS server connections over netpoll Streams, so
// that after the handshake and the upgrade an epoll loop can take a
// connection over with its TLS state (docs/design.md, "TLS on the epoll
// transport").
type tlsListener struct {
	net.Listener
	cfg *tls.Config
}

// Accept implements net.Listener.
func (l tlsListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return tls.Server(netpoll.NewStream(c), l.cfg), nil
}

// Listen binds the configured address. On the epoll transport without TLS
// the loops start accepting on it (accept.go); the listener returned is
// what net/http serves.
func (s *Server) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen on %s: %w", s.cfg.Addr, err)
	}
	ln = timeoutListener{Listener: ln, timeouts: &s.timeouts}
	if s.cfg.TLS.Enabled() {
		tln, err := s.listenTLS(s.proxied(ln))
		if err != nil {
			ln.Close()
			return nil, err
		}
		ln = tln
	}
	if s.metrics != nil {
		if s.metricLn, err = net.Listen("tcp", s.cfg.Metrics.Addr); err != nil {
			ln.Close()
			s.closeEdge()
			return nil, fmt.Errorf("server: listen on %s (metrics.addr): %w", s.cfg.Metrics.Addr, err)
		}
	}
	return s.acceptOnLoops(ln), nil
}

// MetricsAddr returns the address /metrics is served on when metrics.addr
// is set and Listen has bound it, else "".
func (s *Server) MetricsAddr() string {
	if s.metricLn == nil {
		return ""
	}
	return s.metricLn.Addr().String()
}

// Serve serves ln until ctx ends, then shuts down gracefully: no new
// connections, every client told to reconnect (4200), and an exit within
// the shutdown timeout.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	errc := make(chan error, 3)
	s.advertise(ln)
	go func() { errc <- s.http.Serve(ln) }()
	ectx, stopEdge := context.WithCancel(ctx)
	defer stopEdge()
	s.serveEdge(ectx, errc)
	if s.poller != nil {
		rctx, stop := context.WithCancel(ctx)
		defer stop()
		go s.releaseAfterBursts(rctx)
	}
	if s.metricLn != nil {
		go func() { errc <- s.metrics.Serve(s.metricLn) }()
	}
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil // Shutdown was called directly
		}
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	return s.Shutdown(sctx)
}

// Shutdown stops the node within ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	err := errors.Join(s.http.Shutdown(ctx), s.shutdownEdge(ctx))
	if s.metrics != nil {
		err = errors.Join(err, s.metrics.Shutdown(ctx))
	}
	for _, c := range s.carriers {
		err = errors.Join(err, c.Shutdown(ctx))
	}
	s.closeRoute() // the fallback sessions have ended with their carriers
	s.closeWebhooks(ctx)
	s.closeDashboard()
	if s.cluster != nil {
		err = errors.Join(err, s.cluster.Close())
	}
	return errors.Join(err, s.apps.Close())
}

// Hub returns the node's hub.
func (s *Server) Hub() *hub.Hub { return s.hub }

// nodeID picks this node's socket_id prefix: random, so that nodes of a
// cluster, and restarts of one node, do not hand out the same ids.
func nodeID() uint64 {
	var b [4]byte
	rand.Read(b[:])
	return uint64(binary.BigEndian.Uint32(b[:])%1_000_000_000) + 1
}
