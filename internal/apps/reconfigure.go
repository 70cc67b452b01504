package apps

import "github.com/roostproject/roost/internal/config"

// Reconfigure serves the configured apps of cfg, a configuration loaded
// again (a reload), in place of the ones before; cfg must not change
// afterwards, and its app_store settings are not applied (the database
// stays as it was opened). As for a row of the database, the hooks given
// to New hear of each configured app that is new, changed or gone
// (OnChange, with nil for one gone), and of each that was enabled and is
// now disabled or gone (OnDisable), so its connections can be closed.
// Connections of an app that stays enabled keep the settings they
// connected with; new connections get the new ones.
func (s *Source) Reconfigure(cfg *config.Config) {
	next := s.configured(cfg)
	old := s.file.Swap(next)
	s.clashes.Clear()
	for i := range old.Apps {
		s.retire(&old.Apps[i], next.AppByID(old.Apps[i].ID))
	}
	for i := range next.Apps {
		s.hooks.OnChange(next.Apps[i].ID, &next.Apps[i])
	}
}

// retire tells the hooks what became of a configured app: now is the app
// with its id in the new configuration, or nil.
func (s *Source) retire(was, now *config.App) {
	if now == nil {
		s.hooks.OnChange(was.ID, nil)
	}
	if was.IsEnabled() && (now == nil || !now.IsEnabled()) {
		s.hooks.OnDisable(was.ID)
	}
}
