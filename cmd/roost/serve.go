package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/server"
)

// serve runs `roost serve`: flags override ROOST_* variables, which
// override the config file. Every setting and its flag, if any, are
// declared in package config; this adds only --config and --print-config.
func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // a mistake gets one line; --help gets serveUsage
	path := fs.String("config", "", "YAML config `file` (see --print-config)")
	var print printFormat
	fs.Var(&print, "print-config", "print a commented config file with every setting and its default, and exit;\n"+
		"--print-config=markdown prints the settings as the README's table")
	flags := config.RegisterFlags(fs)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		serveUsage(fs, stdout)
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "roost serve --help lists the flags and ROOST_* variables")
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "roost serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if print != "" {
		fmt.Fprint(stdout, print.document())
		return 0
	}
	cfg, err := config.Load(*path, os.Environ(), flags)
	if err != nil {
		fmt.Fprintln(stderr, "roost:", err)
		return 1
	}
	reload := func() (config.Config, error) { return config.Load(*path, os.Environ(), flags) }
	return start(cfg, reload, stdout, stderr)
}

// serveUsage is `roost serve --help`: the flags, then every ROOST_*
// variable, both generated from the settings' declarations.
func serveUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `usage: roost serve [flags]

Runs a roost node. Each setting comes from the --config file, then its ROOST_*
variable, then its flag, each overriding the one before; unset, it has the
default shown. --print-config prints every setting as a commented file.

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, "\nenvironment variables (an empty one counts as unset; ROOST_APP_* define one app,\nwhich replaces the file's apps):\n")
	config.EnvUsage(w)
}

// printFormat is the --print-config flag: bare (or =yaml) it asks for the
// example file, =markdown for the settings table.
type printFormat string

// IsBoolFlag lets --print-config stand alone (flag.Value).
func (p *printFormat) IsBoolFlag() bool { return true }

// String returns the format asked for (flag.Value).
func (p *printFormat) String() string { return string(*p) }

// Set checks and keeps the format (flag.Value).
func (p *printFormat) Set(s string) error {
	switch s {
	case "true", "yaml":
		*p = "yaml"
	case "markdown":
		*p = "markdown"
	case "false":
		*p = ""
	default:
		return fmt.Errorf("want yaml or markdown, got %q", s)
	}
	return nil
}

// document returns what the format asks for.
func (p printFormat) document() string {
	if p == "markdown" {
		return config.Markdown()
	}
	return config.Example()
}

// start runs a node of cfg until SIGINT or SIGTERM; on SIGHUP it calls
// reload for the configuration loaded again and applies it (reloadConfig).
func start(cfg config.Config, reload func() (config.Config, error), stdout, stderr io.Writer) int {
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
	server.SoftMemoryLimit(cfg.Limits)
	ln, err := srv.Listen()
	if err != nil {
		fmt.Fprintln(stderr, "roost:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	onHangup(ctx, func() { reloadConfig(srv, reload) }, func() { reloadCertificates(srv) }) // before the banner, which says the node is up
	banner(stdout, &cfg, srv, ln.Addr().String())
	if err := srv.Serve(ctx, ln); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "roost:", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// reloadConfig loads the configuration again, from the file and the
// ROOST_* variables the process started with (on Linux another process
// cannot change them: a change needs the file or a restart), and applies it
// or, if it has an error, keeps the running one.
func reloadConfig(srv *server.Server, reload func() (config.Config, error)) {
	next, err := reload()
	if err != nil {
		srv.ReloadFailed(err)
		return
	}
	if srv.Reload(next) == nil {
		server.SoftMemoryLimit(next.Limits)
	}
}

func banner(w io.Writer, cfg *config.Config, srv *server.Server, addr string) {
	scheme := "http"
	if cfg.TLS.Enabled() {
		scheme = "https"
	}
	fmt.Fprintf(w, "roost %s serving on %s://%s (transport %s)\n", server.Version, scheme, addr, srv.Transport())
	if srv.DashboardOn() {
		fmt.Fprintf(w, "dashboard: %s://%s/dashboard\n", scheme, addr)
	}
	if cfg.AppStore.URL != "" {
		fmt.Fprintf(w, "apps: the configured ones, then table %s of the app store\n", cfg.AppStore.Table)
	} else if cfg.IsDevelopment() {
		a := cfg.Apps[0]
		fmt.Fprintf(w, "development app: id=%s key=%s secret=%s\n", a.ID, a.Key, a.Secret)
		fmt.Fprintln(w, "WARNING: this app's secret is public; roost serves it on loopback only: define your own apps before exposing roost")
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
