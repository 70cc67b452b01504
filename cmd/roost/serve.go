package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/server"
)

// serve runs `roost serve`: flags override ROOST_* variables, which
// override the config file.
func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "", "YAML config `file` (see roost serve --print-config)")
	printConfig := fs.Bool("print-config", false, "print an example config file and exit")
	overrides := map[string]*string{
		"ROOST_ADDR":         fs.String("addr", "", "listen address `host:port` (default 127.0.0.1:6001)"),
		"ROOST_TRANSPORT":    fs.String("transport", "", "auto, epoll or portable (default auto)"),
		"ROOST_TLS_CERT":     fs.String("tls-cert", "", "PEM certificate `file`: serve TLS directly"),
		"ROOST_TLS_KEY":      fs.String("tls-key", "", "PEM key `file`"),
		"ROOST_REDIS_URL":    fs.String("redis-url", "", "join a cluster through Redis: redis://[user:pass@]host:port[/db] or rediss://"),
		"ROOST_REDIS_PREFIX": fs.String("redis-prefix", "", "prefix of every Redis key and topic (default roost)"),
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *printConfig {
		fmt.Fprint(stdout, config.Example)
		return 0
	}
	// The config loader takes the first of repeated names: flags go first.
	var environ []string
	for name, v := range overrides {
		if *v != "" {
			environ = append(environ, name+"="+*v)
		}
	}
	cfg, err := config.Load(*path, append(environ, os.Environ()...))
	if err != nil {
		fmt.Fprintln(stderr, "roost:", err)
		return 1
	}
	return start(cfg, stdout, stderr)
}

func start(cfg config.Config, stdout, stderr io.Writer) int {
	log := newLogger(cfg.Log, stderr)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(cfg.GCPercent)
	}
	for _, w := range cfg.Warnings {
		log.Warn("config: " + w)
	}
	srv, err := server.New(cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "roost:", err)
		return 1
	}
	ln, err := srv.Listen()
	if err != nil {
		fmt.Fprintln(stderr, "roost:", err)
		return 1
	}
	banner(stdout, &cfg, srv, ln.Addr().String())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "roost:", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

func banner(w io.Writer, cfg *config.Config, srv *server.Server, addr string) {
	scheme := "http"
	if cfg.TLS.Enabled() {
		scheme = "https"
	}
	fmt.Fprintf(w, "roost %s serving on %s://%s (transport %s)\n", server.Version, scheme, addr, srv.Transport())
	if cfg.IsDevelopment() {
		a := cfg.Apps[0]
		fmt.Fprintf(w, "development app: id=%s key=%s secret=%s\n", a.ID, a.Key, a.Secret)
		fmt.Fprintln(w, "WARNING: this app's secret is public; define your own apps (--config) before exposing roost")
		if host, _, _ := net.SplitHostPort(addr); !net.ParseIP(host).IsLoopback() {
			fmt.Fprintln(w, "WARNING: the development app is reachable beyond this machine on", addr)
		}
	}
}

func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
