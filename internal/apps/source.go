package apps

import (
	"context"
	"log/slog"
	"sync"

	"github.com/roostproject/roost/internal/config"
)

// Source is the node's apps: the configuration's, then the database's when
// app_store.url is set. It is what the handshake, the HTTP API and the
// admin API look apps up in. Reads cover the configured apps too; writes
// (manage.go) need a database and never touch a configured app.
type Source struct {
	file  *File
	db    *DB // nil without app_store.url
	log   *slog.Logger
	hooks Hooks // as given to New, told of the configured apps' changes

	clashes sync.Map // id of a row hidden by a configured app → true, once logged
}

var _ Store = (*Source)(nil)

// New returns the apps of cfg, opening its app store if it has one. hooks
// are told of the database's apps (a row that a configured app hides is
// not reported). With a database, the built-in development app (whose
// secret is public) is not served.
func New(cfg *config.Config, log *slog.Logger, hooks Hooks) (*Source, error) {
	hooks = hooks.orNop()
	s := &Source{log: log, hooks: hooks}
	s.file = NewFile(s.configured(cfg))
	if cfg.AppStore.URL == "" {
		return s, nil
	}
	onChange := hooks.OnChange
	hooks.OnChange = func(id string, a *config.App) {
		if s.file.cfg.Load().AppByID(id) == nil && (a == nil || !s.clash(a)) {
			onChange(id, a)
		}
	}
	db, err := OpenDB(cfg.AppStore, log, hooks)
	if err != nil {
		return nil, err
	}
	s.db = db
	return s, nil
}

// configured returns the configuration whose apps are served: cfg, but
// none at all in place of the development app (whose secret is public)
// when there is a database.
func (s *Source) configured(cfg *config.Config) *config.Config {
	if cfg.AppStore.URL != "" && cfg.IsDevelopment() {
		return &config.Config{}
	}
	return cfg
}

// Close closes the database, if any.
func (s *Source) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// Ready reports why the app store is degraded, or nil.
func (s *Source) Ready() error {
	if s.db == nil {
		return nil
	}
	return s.db.Ready()
}

// ReadOnly reports whether apps can only be read (no database).
func (s *Source) ReadOnly() bool { return s.db == nil }

// ByKey implements Store.
func (s *Source) ByKey(ctx context.Context, key string) (*config.App, error) {
	if a, _ := s.file.ByKey(ctx, key); a != nil || s.db == nil {
		return a, nil
	}
	a, err := s.db.ByKey(ctx, key)
	return s.unclashed(a), err
}

// CachedByKey is ByKey without waiting: the app with key when it is known
// in memory (configured, or cached from the database), and false when
// only the database can answer. It never blocks, so an epoll loop may call
// it.
func (s *Source) CachedByKey(key string) (*config.App, bool) {
	if a, _ := s.file.ByKey(context.Background(), key); a != nil || s.db == nil {
		return a, true
	}
	a, known := s.db.cached(colKey, key)
	if !known || a == nil {
		return nil, known
	}
	return s.unclashed(a), true
}

// ByID implements Store.
func (s *Source) ByID(ctx context.Context, id string) (*config.App, error) {
	if a, _ := s.file.ByID(ctx, id); a != nil || s.db == nil {
		return a, nil
	}
	a, err := s.db.ByID(ctx, id)
	return s.unclashed(a), err
}

// unclashed hides a database app whose id or key a configured app also
// has: the configuration wins, and the clash is logged once per id.
func (s *Source) unclashed(a *config.App) *config.App {
	if a == nil || !s.clash(a) {
		return a
	}
	if _, logged := s.clashes.LoadOrStore(a.ID, true); !logged {
		s.log.Warn("app store: a configured app has this row's id or key; the configured app wins",
			"row", "id="+a.ID)
	}
	return nil
}

// clash reports whether a configured app has a's id or key.
func (s *Source) clash(a *config.App) bool {
	f := s.file.cfg.Load()
	return f.AppByID(a.ID) != nil || f.AppByKey(a.Key) != nil
}
