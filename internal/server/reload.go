package server

import (
	"sync"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/metrics"
)

// A reload (SIGHUP: cmd/roost loads the file and the ROOST_* variables
// again and calls Reload) applies the apps of the new configuration, and
// nothing else, without closing a connection: an app added is served at
// once; a changed one (secret, limits, origins, webhooks, compression,
// subscription_count, client_events) serves its new connections, and API
// calls, with its new settings while its open connections keep the ones
// they connected with; an app switched off or removed has its connections
// closed with 4003, as the app store's refresh does. Every other setting
// is read once at start, so a change to one is logged as needing a
// restart (config.RestartNeeded).

// Reload applies next, a configuration loaded again, and reports an error
// (also logged) if it refuses it, keeping the running one.
func (s *Server) Reload(next config.Config) error {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	exposed := next
	exposed.Addr = s.cfg.Addr // the address stays the one bound at start
	if err := checkExposure(&exposed); err != nil {
		s.ReloadFailed(err)
		return err
	}
	for _, w := range next.Warnings {
		s.log.Warn("config: " + w)
	}
	for _, path := range s.restartNeeded(&next) {
		s.log.Warn("config reload: setting changed; it needs a restart to apply", "setting", path)
	}
	s.apps.Reconfigure(&next)
	s.loaded.succeeded(time.Now())
	s.log.Info("config reloaded", "apps", len(next.Apps))
	return nil
}

// ReloadFailed logs a configuration that could not be loaded again (a
// file with an error: err names the field and the line) and records the
// failure for /metrics and the dashboard; the running configuration stays.
func (s *Server) ReloadFailed(err error) {
	s.loaded.failed() // before the log line, which a watcher may act on
	s.log.Error("config reload refused; the running configuration is kept", "err", err)
}

// restartNeeded names the settings of next that only a restart applies:
// those that changed outside the apps, and the apps' webhooks when the
// node started without any (it then built no webhook sender at all).
func (s *Server) restartNeeded(next *config.Config) []string {
	paths := config.RestartNeeded(s.cfg, next)
	if s.webhooks != nil {
		return paths
	}
	for i := range next.Apps {
		if len(next.Apps[i].Webhooks) > 0 {
			return append(paths, "apps[].webhooks (no app had webhooks at start)")
		}
	}
	return paths
}

// loadStatus is when the configuration was last applied and whether the
// last reload was refused. It is safe for concurrent use.
type loadStatus struct {
	mu   sync.Mutex
	last metrics.ConfigLoad
}

func (l *loadStatus) succeeded(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = metrics.ConfigLoad{LastSuccess: now}
}

func (l *loadStatus) failed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last.Failed = true
}

// get returns the status.
func (l *loadStatus) get() metrics.ConfigLoad {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}
