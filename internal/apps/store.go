package apps

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/roostproject/roost/internal/config"
)

// Store finds apps. A nil app with a nil error means no app has that key or
// id; an error means the store could not tell (ErrUnavailable). Returned
// apps are shared and read-only. Implementations are safe for concurrent
// use.
type Store interface {
	// ByKey returns the app a client names in /app/{key}.
	ByKey(ctx context.Context, key string) (*config.App, error)
	// ByID returns the app an HTTP API path names in /apps/{id}/.
	ByID(ctx context.Context, id string) (*config.App, error)
}

// ErrUnavailable is returned when an app is not cached and the database
// cannot be asked: it is down, or did not answer within app_store.wait.
var ErrUnavailable = errors.New("apps: the app store is unavailable")

// ErrReadOnly is returned by writes to apps that come from the
// configuration file, which roost never rewrites.
var ErrReadOnly = errors.New("apps: apps from the configuration are read-only; set app_store.url to manage apps")

// ErrConflict is returned by a write whose id or key another app holds.
var ErrConflict = errors.New("apps: the id or key is taken")

// ErrNotFound is returned by an update or delete of an app that does not
// exist.
var ErrNotFound = errors.New("apps: no such app")

// File serves the apps of a loaded configuration, which a reload may
// replace as a whole (Swap). Its lookups never wait and never fail.
type File struct {
	cfg atomic.Pointer[config.Config]
}

var _ Store = (*File)(nil)

// NewFile returns the store of cfg's apps; cfg must not change afterwards.
func NewFile(cfg *config.Config) *File {
	f := &File{}
	f.cfg.Store(cfg)
	return f
}

// ByKey implements Store.
func (f *File) ByKey(_ context.Context, key string) (*config.App, error) {
	return f.cfg.Load().AppByKey(key), nil
}

// ByID implements Store.
func (f *File) ByID(_ context.Context, id string) (*config.App, error) {
	return f.cfg.Load().AppByID(id), nil
}

// List returns the configuration's apps in their order.
func (f *File) List() []config.App { return f.cfg.Load().Apps }

// Swap serves cfg's apps from now on, in place of the ones before, which
// it returns; cfg must not change afterwards.
func (f *File) Swap(cfg *config.Config) *config.Config { return f.cfg.Swap(cfg) }

// Hooks are told what happens to the database's apps, from the goroutine
// that read the row (a lookup, the refresh or a notification). Nil fields
// are not called.
type Hooks struct {
	// OnDisable is told the id of an app that was switched off or removed,
	// so its connections can be closed.
	OnDisable func(appID string)
	// OnChange is told every app read from a row (new, changed or read
	// again unchanged), and a nil app with the id of one whose row is gone,
	// so that what keeps per-app state (webhooks) follows the table.
	OnChange func(id string, a *config.App)
}

// orNop fills nil hooks with functions that do nothing.
func (h Hooks) orNop() Hooks {
	if h.OnDisable == nil {
		h.OnDisable = func(string) {}
	}
	if h.OnChange == nil {
		h.OnChange = func(string, *config.App) {}
	}
	return h
}
