package config

import (
	"runtime"
	"time"
)

// Defaults for zero-valued fields; each field's doc comment repeats its own.
const (
	defaultAddr             = "127.0.0.1:6001"
	defaultTransport        = TransportAuto
	defaultActivityTimeout  = 120 * time.Second
	defaultPongWait         = 30 * time.Second
	defaultShutdownTimeout  = 10 * time.Second
	defaultGCPercent        = 50
	defaultMaxMessageSize   = 64 << 10
	defaultMaxBodySize      = 1 << 20
	defaultMaxEventData     = 10 << 10
	defaultWriteBacklog     = 1 << 20
	defaultWriteTimeout     = 10 * time.Second
	defaultHandshakeTimeout = 5 * time.Second
	defaultMaxHeaderBytes   = 16 << 10
	defaultClientEventsRate = 10
	defaultPresenceMembers  = 100
	defaultPresenceUserInfo = 1024
	defaultLogLevel         = "info"
	defaultLogFormat        = "text"
	defaultRedisPrefix      = "roost"
)

// The development app's credentials are public on purpose: they let
// `roost serve` work with no configuration, which is why the default Addr is
// loopback only.
const (
	devAppID     = "app-id"
	devAppKey    = "app-key"
	devAppSecret = "app-secret"
)

// Transport values for Config.Transport.
const (
	// TransportAuto picks epoll on Linux without TLS, else portable.
	TransportAuto = "auto"
	// TransportEpoll serves connections from per-core epoll loops.
	TransportEpoll = "epoll"
	// TransportPortable serves each connection from its own goroutine.
	TransportPortable = "portable"
)

// Default returns the configuration `roost serve` runs with when given no
// file and no ROOST_* variables: every default, plus one development app
// {ID: "app-id", Key: "app-key", Secret: "app-secret", ClientEvents: true}
// whose public secret is why Addr defaults to loopback.
func Default() Config {
	var c Config
	c.applyDefaults()
	c.buildIndex()
	return c
}

// devApp returns the built-in development app, defaults not yet applied.
func devApp() App {
	return App{ID: devAppID, Key: devAppKey, Secret: devAppSecret, ClientEvents: true}
}

// IsDevelopment reports whether the only app is the built-in development
// app, so the server can warn that its secret is public.
func (c *Config) IsDevelopment() bool {
	if len(c.Apps) != 1 {
		return false
	}
	a := c.Apps[0]
	return a.ID == devAppID && a.Key == devAppKey && a.Secret == devAppSecret
}

// applyDefaults fills every zero-valued field with its default. It is the
// one place defaults live, run after the file and the environment.
func (c *Config) applyDefaults() {
	orDefault(&c.Addr, defaultAddr)
	orDefault(&c.Transport, defaultTransport)
	orDefault(&c.Loops, runtime.GOMAXPROCS(0))
	orDefault(&c.ActivityTimeout, defaultActivityTimeout)
	orDefault(&c.PongWait, defaultPongWait)
	orDefault(&c.ShutdownTimeout, defaultShutdownTimeout)
	orDefault(&c.GCPercent, defaultGCPercent)
	c.Limits.applyDefaults()
	orDefault(&c.Log.Level, defaultLogLevel)
	orDefault(&c.Log.Format, defaultLogFormat)
	orDefault(&c.Redis.Prefix, defaultRedisPrefix)
	if len(c.Apps) == 0 {
		c.Apps = []App{devApp()}
	}
	for i := range c.Apps {
		c.Apps[i].applyDefaults()
	}
}

// applyDefaults fills the zero-valued limits; called by Config.applyDefaults.
func (l *Limits) applyDefaults() {
	orDefault(&l.MaxMessageSize, defaultMaxMessageSize)
	orDefault(&l.MaxBodySize, defaultMaxBodySize)
	orDefault(&l.MaxEventData, defaultMaxEventData)
	orDefault(&l.WriteBacklog, defaultWriteBacklog)
	orDefault(&l.WriteTimeout, defaultWriteTimeout)
	orDefault(&l.HandshakeTimeout, defaultHandshakeTimeout)
	orDefault(&l.MaxHeaderBytes, defaultMaxHeaderBytes)
	orDefault(&l.ClientEventsPerSecond, defaultClientEventsRate)
}

// applyDefaults fills the zero-valued app quotas; called by
// Config.applyDefaults.
func (a *App) applyDefaults() {
	orDefault(&a.MaxPresenceMembers, defaultPresenceMembers)
	orDefault(&a.MaxPresenceUserInfo, defaultPresenceUserInfo)
}

// orDefault sets *p to def when *p is the zero value.
func orDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}
