package apps

import (
	"time"

	"github.com/roostproject/roost/internal/config"
)

// maxUnknown bounds the negative cache: past it, expired entries are
// dropped, and if that is not enough the whole negative cache is, so a
// flood of random keys costs bounded memory.
const maxUnknown = 100_000

// put caches a decoded row and returns the app to serve, or nil when the
// row cannot be served at all (it lacks a usable id or key). A malformed
// row is served switched off, logged once until its error changes. The app
// is reported to OnChange, and to OnDisable if it was enabled and is not
// any more.
func (s *DB) put(a config.App, rowErr error) *config.App {
	if !s.logBad(a, rowErr) {
		return nil
	}
	app := &a
	s.mu.Lock()
	old := s.byID[a.ID]
	if old != nil && old.Key != a.Key {
		delete(s.byKey, old.Key)
	}
	s.byID[a.ID], s.byKey[a.Key] = app, app
	delete(s.unknown, lookupKey(colID, a.ID))
	delete(s.unknown, lookupKey(colKey, a.Key))
	s.mu.Unlock()
	s.hooks.OnChange(a.ID, app)
	if old != nil && old.IsEnabled() && !app.IsEnabled() {
		s.hooks.OnDisable(a.ID)
	}
	return app
}

// logBad logs a malformed row once per distinct error, naming the row by
// its id (or key), and reports whether the row can be cached: one without
// an id or key cannot.
func (s *DB) logBad(a config.App, rowErr error) bool {
	usable := a.ID != "" && a.Key != ""
	name := "id=" + a.ID
	if a.ID == "" {
		name = "key=" + a.Key
	}
	s.mu.Lock()
	logged := rowErr == nil || s.bad[name] == rowErr.Error()
	if rowErr == nil {
		delete(s.bad, name)
	} else {
		s.bad[name] = rowErr.Error()
	}
	s.mu.Unlock()
	if !logged {
		what := "app disabled until the row is fixed"
		if !usable {
			what = "row ignored"
		}
		s.log.Error("app store: malformed row in "+s.table+", "+what, "row", name, "err", rowErr.Error())
	}
	return usable
}

// remove drops the app with id from the cache, as when its row is deleted,
// and reports it to OnChange and OnDisable.
func (s *DB) remove(id string) {
	s.mu.Lock()
	old := s.byID[id]
	if old != nil {
		delete(s.byID, id)
		delete(s.byKey, old.Key)
	}
	s.mu.Unlock()
	if old != nil {
		s.hooks.OnChange(id, nil)
		s.hooks.OnDisable(id)
	}
}

// cachedIDs returns the ids of every cached app.
func (s *DB) cachedIDs() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := make([]string, 0, len(s.byID))
	for id := range s.byID {
		ids = append(ids, id)
	}
	return ids
}

// forgetUnknown drops the negative cache, expired entries only unless all
// is set (a NOTIFY says the table changed).
func (s *DB) forgetUnknown(all bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneUnknownLocked(all)
}

// pruneUnknownLocked drops expired negative entries, or all of them.
func (s *DB) pruneUnknownLocked(all bool) {
	if all {
		clear(s.unknown)
		return
	}
	now := time.Now()
	for k, until := range s.unknown {
		if !now.Before(until) {
			delete(s.unknown, k)
		}
	}
}

// unknownFull makes room in the negative cache; s.mu is held.
func (s *DB) unknownFull() {
	if len(s.unknown) < maxUnknown {
		return
	}
	s.pruneUnknownLocked(false)
	if len(s.unknown) >= maxUnknown {
		s.pruneUnknownLocked(true)
	}
}
