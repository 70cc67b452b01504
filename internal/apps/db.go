package apps

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roostproject/roost/internal/config"
)

// DB serves the apps of a database table through an in-memory cache
// (package doc). The cache's lookups take a read lock and never allocate;
// only a miss asks the database, once however many clients ask at the same
// time.
type DB struct {
	db     *sql.DB
	d      dialect
	pg     *pgx.ConnConfig // for LISTEN; nil on MySQL
	table  string          // quoted
	cfg    config.AppStore
	log    *slog.Logger
	health health

	hooks Hooks // what is told of changed apps

	mu      sync.RWMutex
	byKey   map[string]*config.App
	byID    map[string]*config.App
	unknown map[string]time.Time // lookupKey → until when it is unknown
	bad     map[string]string    // row → the error last logged for it

	flightMu sync.Mutex
	flights  map[string]*flight

	refreshes atomic.Int64 // completed refreshes, for tests

	stop chan struct{}
	wg   sync.WaitGroup
}

var _ Store = (*DB)(nil)

// maxQueries bounds the queries one node runs at once (the pool's
// connections); more wait, each for at most app_store.wait.
const maxQueries = 8

// Columns a lookup can be by.
const (
	colKey = "key"
	colID  = "id"
)

// flight is one database lookup that every caller missing the same key or
// id waits for.
type flight struct {
	done chan struct{}
	app  *config.App
	err  error
}

// OpenDB connects to cfg.URL and starts the refresh (and, on PostgreSQL,
// the LISTEN) goroutine. It loads no app: apps are read when first asked
// for. An unreachable database is not an error here; it makes lookups of
// uncached apps fail until it comes back.
func OpenDB(cfg config.AppStore, log *slog.Logger, hooks Hooks) (*DB, error) {
	db, d, pg, err := open(cfg.URL, cfg.Wait)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxQueries)
	db.SetMaxIdleConns(maxQueries / 2)
	db.SetConnMaxIdleTime(time.Minute)
	s := newDB(cfg, log, hooks)
	s.db, s.d, s.pg, s.table = db, d, pg, d.ident(cfg.Table)
	s.wg.Add(1)
	go s.refreshLoop()
	if pg != nil {
		s.wg.Add(1)
		go s.listen()
	}
	return s, nil
}

// newDB returns a store with an empty cache and no database yet.
func newDB(cfg config.AppStore, log *slog.Logger, hooks Hooks) *DB {
	s := &DB{
		cfg: cfg, log: log, hooks: hooks.orNop(),
		byKey: map[string]*config.App{}, byID: map[string]*config.App{},
		unknown: map[string]time.Time{}, bad: map[string]string{}, flights: map[string]*flight{},
		stop: make(chan struct{}),
	}
	s.health.log = log
	return s
}

// Close stops the background goroutines and closes the pool.
func (s *DB) Close() error {
	close(s.stop)
	s.wg.Wait()
	return s.db.Close()
}

// Ready reports why the store is degraded (the database unreachable), or
// nil.
func (s *DB) Ready() error { return s.health.get() }

// ByKey implements Store.
func (s *DB) ByKey(ctx context.Context, key string) (*config.App, error) {
	return s.lookup(ctx, colKey, key)
}

// ByID implements Store.
func (s *DB) ByID(ctx context.Context, id string) (*config.App, error) {
	return s.lookup(ctx, colID, id)
}

// lookup answers from the cache, or waits for the database at most
// cfg.Wait. A name no valid app can have is unknown without a query.
func (s *DB) lookup(ctx context.Context, col, v string) (*config.App, error) {
	if a, known := s.cached(col, v); known {
		return a, nil
	}
	if config.CheckName(v) != nil {
		return nil, nil
	}
	f := s.join(col, v)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Wait)
	defer cancel()
	select {
	case <-f.done:
		return f.app, f.err
	case <-ctx.Done():
		return nil, ErrUnavailable
	}
}

// cached returns the cached app, or nil and true when v is known not to
// exist; known is false when the database must be asked.
func (s *DB) cached(col, v string) (a *config.App, known bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := s.byKey
	if col == colID {
		m = s.byID
	}
	if a, ok := m[v]; ok {
		return a, true
	}
	until, ok := s.unknown[lookupKey(col, v)]
	return nil, ok && time.Now().Before(until)
}

// lookupKey names a lookup in the unknown and flights maps.
func lookupKey(col, v string) string { return col + "\x00" + v }

// join returns the lookup of v in flight, starting it if there is none. The
// lookup runs on its own goroutine with its own deadline, so a caller that
// gives up does not cancel it for the others.
func (s *DB) join(col, v string) *flight {
	k := lookupKey(col, v)
	s.flightMu.Lock()
	defer s.flightMu.Unlock()
	if f, ok := s.flights[k]; ok {
		return f
	}
	f := &flight{done: make(chan struct{})}
	s.flights[k] = f
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Wait)
		defer cancel()
		f.app, f.err = s.fetch(ctx, col, v)
		s.flightMu.Lock()
		delete(s.flights, k)
		s.flightMu.Unlock()
		close(f.done)
	}()
	return f
}

// fetch reads the app whose col is v and caches the answer.
func (s *DB) fetch(ctx context.Context, col, v string) (*config.App, error) {
	q := fmt.Sprintf("SELECT * FROM %s WHERE %s = %s", s.table, s.d.ident(col), s.d.param(1))
	var found *config.App
	err := s.query(ctx, q, []any{v}, func(a config.App, err error) {
		if found == nil {
			found = s.put(a, err)
		}
	})
	if err != nil {
		return nil, ErrUnavailable
	}
	if found == nil {
		s.markUnknown(col, v)
	}
	return found, nil
}

// query runs q and hands each decoded row to row. A failure is recorded in
// the store's health (and logged, rate-limited) before it is returned.
func (s *DB) query(ctx context.Context, q string, args []any, row func(config.App, error)) error {
	err := s.scan(ctx, q, args, row)
	if err != nil {
		s.health.fail(err)
		return err
	}
	s.health.ok()
	return nil
}

// scan runs q and decodes every row, whatever its columns.
func (s *DB) scan(ctx context.Context, q string, args []any, row func(config.App, error)) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row(decodeRow(cols, vals))
	}
	return rows.Err()
}

// markUnknown remembers that no app has col v, for the unknown TTL (never
// longer than the refresh interval, so an app inserted after a client
// tried its key is served within the interval).
func (s *DB) markUnknown(col, v string) {
	ttl := min(s.cfg.UnknownTTL, s.cfg.Refresh)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unknownFull()
	s.unknown[lookupKey(col, v)] = time.Now().Add(ttl)
}
