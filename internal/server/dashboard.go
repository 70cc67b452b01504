package server

import (
	"net/http"
	"strconv"

	"github.com/roostproject/roost/internal/dashboard"
)

// dashboardOpen reports whether the dashboard may be served without a
// password: only for the development app on a loopback address, whose
// secret is public anyway.
func (s *Server) dashboardOpen() bool {
	return s.cfg.IsDevelopment() && isLoopback(s.cfg.Addr)
}

// DashboardOn reports whether the node serves /dashboard: it is switched
// on, and it has admin.token as its password or may go without one.
func (s *Server) DashboardOn() bool {
	return s.cfg.Dashboard.On() && (s.cfg.Admin.Token != "" || s.dashboardOpen())
}

// mountDashboard serves /dashboard on mux when it is on; api is the HTTP
// API handler, through which its event creator publishes.
func (s *Server) mountDashboard(mux *http.ServeMux, api http.Handler) {
	if !s.DashboardOn() {
		return
	}
	cfg := dashboard.Config{
		Token: s.cfg.Admin.Token, Open: s.cfg.Admin.Token == "" && s.dashboardOpen(),
		Settings: s.cfg.Dashboard, Hub: s.hub, Apps: s.apps, API: api, Snapshot: s.snapshot, Loaded: s.loaded.get,
		Node: strconv.FormatUint(s.hub.Node(), 10), Logger: s.log,
	}
	if s.cluster != nil {
		cfg.Board = s.cluster
	}
	s.dashboard = dashboard.New(cfg)
	mux.Handle("/dashboard", s.dashboard)
	mux.Handle("/dashboard/", s.dashboard)
}

// webhookDelivered tells an open debug console the outcome of a webhook
// request; with none open it costs one atomic load.
func (s *Server) webhookDelivered(app, url string, events int, err error) {
	if c, ok := s.hub.Console().(dashboard.WebhookConsole); ok {
		c.WebhookDelivered(app, url, events, err)
	}
}

// closeDashboard ends the dashboard's console streams, which would
// otherwise hold a graceful shutdown open, and its sampling.
func (s *Server) closeDashboard() {
	if s.dashboard != nil {
		s.dashboard.Close()
	}
}
