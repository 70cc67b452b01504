package server

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/api"
	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/portable"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/webhook"
)

// Version is the server version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// Server is one roost node.
type Server struct {
	cfg      *config.Config
	log      *slog.Logger
	hub      *hub.Hub
	poller   *netpoll.Poller // nil when every connection is served by portable
	portable *portable.Transport
	http     *http.Server
	stats    connstats.Stats   // the epoll loops' counters
	cluster  *cluster.Redis    // nil on a single node
	webhooks *webhook.Webhooks // nil when no app has webhooks
	refused  atomic.Int64      // WebSocket handshakes refused (HTTP error or Pusher code)
}

// New builds a node from a validated configuration.
func New(cfg config.Config, log *slog.Logger) (*Server, error) {
	s := &Server{cfg: &cfg, log: log}
	loops := s.loops()
	s.hub = hub.New(hub.Config{Shards: loops + 1, Encode: encode}, nodeID())
	s.webhooks = s.newWebhooks()
	if cfg.Redis.URL != "" {
		if err := s.joinCluster(); err != nil {
			s.closeWebhooks(context.Background())
			return nil, err
		}
	}
	s.startWebhooks()
	env := &session.Env{Hub: s.hub, Config: s.cfg, Logger: log, Now: func() int64 { return time.Now().Unix() }}
	if s.webhooks != nil {
		env.OnCacheMiss = s.webhooks.CacheMiss
	}
	s.portable = portable.New(s.portableConfig(env, loops))
	if loops > 0 {
		p, err := netpoll.New(s.pollerConfig(env, loops))
		if err != nil {
			s.closeWebhooks(context.Background())
			return nil, fmt.Errorf("server: starting epoll loops: %w", err)
		}
		s.poller = p
	}
	s.http = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: cfg.Limits.HandshakeTimeout,
		MaxHeaderBytes:    cfg.Limits.MaxHeaderBytes,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// loops returns how many epoll loops to run; 0 means portable only.
func (s *Server) loops() int {
	c := s.cfg
	if c.Transport == "portable" || !netpoll.Supported || (c.Transport == "auto" && c.TLS.Enabled()) {
		return 0
	}
	if c.Loops > 0 {
		return c.Loops
	}
	return runtime.GOMAXPROCS(0)
}

// Transport names the transport serving new connections.
func (s *Server) Transport() string {
	if s.poller != nil && !s.cfg.TLS.Enabled() {
		return "epoll"
	}
	return "portable"
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app/{key}", s.serveWebSocket)
	mux.Handle("/apps/", api.New(api.Config{
		Apps: s.cfg, Backend: s.hub, Logger: s.log,
		MaxBodySize: s.cfg.Limits.MaxBodySize, MaxEventData: s.cfg.Limits.MaxEventData,
	}))
	mux.HandleFunc("GET /up", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "OK\n") })
	mux.HandleFunc("GET /ready", s.serveReady)
	mux = s.withMetrics(mux)
	return mux
}

// Listen binds the configured address.
func (s *Server) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen on %s: %w", s.cfg.Addr, err)
	}
	if s.cfg.TLS.Enabled() {
		cert, err := tls.LoadX509KeyPair(s.cfg.TLS.CertFile, s.cfg.TLS.KeyFile)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("server: tls: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	return ln, nil
}

// Serve serves ln until ctx ends, then shuts down gracefully: no new
// connections, every client told to reconnect (4200), and an exit within
// the shutdown timeout.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(ln) }()
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
	err := s.http.Shutdown(ctx)
	if s.poller != nil {
		err = errors.Join(err, s.poller.Shutdown(ctx))
	}
	err = errors.Join(err, s.portable.Shutdown(ctx))
	s.closeWebhooks(ctx)
	if s.cluster != nil {
		err = errors.Join(err, s.cluster.Close())
	}
	return err
}

// Connections returns how many WebSocket connections the node serves.
func (s *Server) Connections() int {
	n := s.portable.Len()
	if s.poller != nil {
		n += s.poller.Len()
	}
	return n
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
