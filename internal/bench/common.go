package bench

import (
	"context"
	"io"
	"sync"
	"time"
)

// Common are the options every mode shares: which server to load (or which
// to start), how to start worker processes and where progress goes.
type Common struct {
	// Target is the server to load. An empty Target.URL starts a roost
	// child process with Transport and ActivityTimeout instead.
	Target Target
	// Transport asked of the child server (ServerOptions.Transport). Zero
	// value means DefaultTransport.
	Transport string
	// TLS makes the child server serve wss:// itself (ServerOptions.TLS).
	TLS bool
	// ActivityTimeout of the child server. Zero value means roost's default
	// (120 s).
	ActivityTimeout time.Duration
	// Deflate has the clients offer permessage-deflate and a child server's
	// app accept it (apps[].compression). Zero value means neither.
	Deflate bool
	// XHRStreaming makes the clients pusher-js xhr_streaming sessions
	// (roost's HTTP fallback) instead of WebSockets; idle only.
	XHRStreaming bool
	// Spawn starts workers; nil means SelfSpawner.
	Spawn Spawner
	// ServerSpawn starts child servers; nil means SelfServer.
	ServerSpawn ServerSpawner
	// ServerEnv adds NAME=value settings to a child server's environment
	// (ServerOptions.Env), such as its limits. Zero value adds none.
	ServerEnv []string
	// Settle is the least time to let the server settle after a ramp, before
	// measuring; it waits up to ten times as long for RSS to stop moving.
	// Zero value means 3 s.
	Settle time.Duration
	// Progress receives the progress line; nil means none.
	Progress io.Writer
	// Stderr receives workers' and child servers' errors; nil discards them.
	Stderr io.Writer
}

// start returns the target, starting a child server when needed, and a
// function that stops what it started.
func (c *Common) start(ctx context.Context) (Target, func(), error) {
	if c.Target.URL != "" {
		t := c.Target
		if t.PID == 0 {
			t.FindLocalPID()
		}
		return t, func() {}, nil
	}
	srv, err := StartServer(ctx, ServerOptions{Transport: c.Transport, ActivityTimeout: c.ActivityTimeout,
		Compression: c.Deflate, Spawn: c.ServerSpawn, Stderr: c.Stderr, TLS: c.TLS, Env: c.ServerEnv})
	if err != nil {
		return Target{}, nil, err
	}
	return srv.Target, func() { srv.Stop() }, nil
}

// open prepares c, starts the target (see start) and a fleet of
// fleet(t)'s configuration against it, and returns a function that closes
// the fleet and stops what start started.
func (c *Common) open(ctx context.Context, fleet func(Target) FleetConfig) (Target, *Fleet, func(), error) {
	c.prepare()
	t, stop, err := c.start(ctx)
	if err != nil {
		return Target{}, nil, nil, err
	}
	f, err := StartFleet(fleet(t))
	if err != nil {
		stop()
		return Target{}, nil, nil, err
	}
	return t, f, func() { f.Close(); stop() }, nil
}

// fleetBase is what every load's fleet against t takes from c: where to
// connect, whether to offer permessage-deflate, how to start workers and
// where their errors go.
func (c *Common) fleetBase(t Target) FleetConfig {
	return FleetConfig{URL: t.WebSocketURL(), CAFile: t.CAFile, Deflate: c.Deflate, Spawn: c.Spawn, Stderr: c.Stderr}
}

// load is the fleet for n connections against t, each on channels
// channels drawn from a pool of pool (zero: its own), pinging every ping
// (zero: the server's activity timeout).
func (c *Common) load(t Target, n, channels, pool int, ping time.Duration) FleetConfig {
	cfg := c.fleetBase(t)
	cfg.Workers, cfg.Channels, cfg.ChannelPool, cfg.Ping, cfg.XHRStreaming = WorkersFor(n), channels, pool, ping, c.XHRStreaming
	return cfg
}

// maxFailures is how many failed connections a ramp of n tolerates.
func maxFailures(n int) int64 { return int64(50 + n/100) }

// lockedWriter serialises writes from child-process copiers and progress.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prepare makes Stderr (and Progress, when it is the same writer) safe for
// the concurrent writes of child processes' output copiers.
func (c *Common) prepare() {
	c.Settle = cmpOr(c.Settle, 3*time.Second)
	if c.Stderr == nil {
		return
	}
	lw := &lockedWriter{w: c.Stderr}
	if c.Progress == c.Stderr {
		c.Progress = lw
	}
	c.Stderr = lw
}
