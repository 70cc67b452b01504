package server

import (
	"sync"
	"time"

	"github.com/roostproject/roost/internal/api"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/metrics"
)

// A reload (SIGHUP: cmd/roost loads the file and the ROOST_* variables
// again and calls Reload) applies the apps of the new configuration and its
// node-wide limits tagged reload:"live", without closing a connection. A
// limit applies to what starts after the reload: a lowered cap refuses new
// connections and closes none of those open. An app added is served at
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
	for _, path := range config.RestartNeeded(s.cfg, &next) {
		s.log.Warn("config reload: setting changed; it needs a restart to apply", "setting", path)
	}
	s.apps.Reconfigure(&next)
	s.applyLimits(&next)
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

// applyLimits hands the live limits of next (config.WithLive) to the parts
// that apply them: the admission door, the sessions and the HTTP API. The settings that
// need a restart keep their running values, so no part sees half a change.
func (s *Server) applyLimits(next *config.Config) {
	l := config.WithLive(s.cfg, next).Limits
	s.door.SetCaps(caps(l))
	s.env.SetLimits(l)
	s.api.SetLimits(api.Limits{MaxBodySize: l.MaxBodySize, MaxEventData: l.MaxEventData, RequestsPerIP: l.APIRequestsPerIP, BodyMemory: l.APIBodyMemory})
}
