package config

import (
	"reflect"
	"runtime"
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
	// TransportAuto picks epoll on Linux (writing fan-out with io_uring
	// where the kernel allows it), else portable.
	TransportAuto = "auto"
	// TransportEpoll serves connections from per-core epoll loops, writing
	// with write(2) only.
	TransportEpoll = "epoll"
	// TransportEpollUring is epoll whose loops write each publish to their
	// subscribers with one io_uring submission instead of one write(2) each.
	TransportEpollUring = "epoll+uring"
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

// HasPublicSecret reports whether the app signs with the development app's
// secret, which is public: the server must not be reachable from other
// hosts while it serves such an app.
func (a *App) HasPublicSecret() bool { return a.Secret == devAppSecret }

// applyDefaults fills every unset setting with the default in its tag. It
// is the one place defaults are applied, after every source. Two defaults
// are not constants: no apps means the development app, and loops 0 means
// one per usable core.
func (c *Config) applyDefaults() {
	if len(c.Apps) == 0 {
		c.Apps = []App{devApp()}
	}
	fillDefaults(schema(), reflect.ValueOf(c).Elem())
	if c.Loops == 0 {
		c.Loops = runtime.GOMAXPROCS(0)
	}
}

// fillDefaults sets each unset setting under fields, in struct s, to its
// default, entering every entry of a list.
func fillDefaults(fields []*field, s reflect.Value) {
	for _, f := range fields {
		x := s.Field(f.index)
		switch {
		case f.list != nil:
			for i := range x.Len() {
				fillDefaults(f.fields, x.Index(i))
			}
		case !f.isSetting():
			fillDefaults(f.fields, x)
		case f.defValue.IsValid() && unset(x):
			x.Set(fresh(f.defValue))
		}
	}
}

// fresh copies what a default points to (a *bool, a list), so no two
// Configs share memory that one of them might change.
func fresh(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(v.Elem())
		return p
	case reflect.Slice:
		return reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, v.Len()), v)
	}
	return v
}

// unset reports whether a setting holds its zero value, which means "use
// the default"; an empty list counts as unset too.
func unset(x reflect.Value) bool {
	return x.IsZero() || (x.Kind() == reflect.Slice && x.Len() == 0)
}
