package server

import (
	"io"
	"net/http"

	"github.com/roostproject/roost/internal/cluster"
)

// joinCluster connects the hub to the other nodes through Redis.
func (s *Server) joinCluster() error {
	apps := make([]string, len(s.cfg.Apps))
	for i, a := range s.cfg.Apps {
		apps[i] = a.ID
	}
	r, err := cluster.New(cluster.Config{
		URL: s.cfg.Redis.URL, Prefix: s.cfg.Redis.Prefix, Node: s.hub.Node(),
		Apps: apps, Deliver: s.hub.Deliver, Reconcile: s.hub.Reconcile, Logger: s.log,
		Observer: s.observer(),
	})
	if err != nil {
		return err
	}
	s.hub.SetBroker(r)
	s.hub.SetState(r.State())
	s.cluster = r
	return nil
}

// serveReady answers GET /ready: 200 when the node can serve its cluster,
// 503 with the reason when it is degraded (Redis or the app store
// unreachable).
func (s *Server) serveReady(w http.ResponseWriter, _ *http.Request) {
	if err := s.apps.Ready(); err != nil {
		http.Error(w, "degraded: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	if s.cluster != nil {
		if err := s.cluster.Ready(); err != nil {
			http.Error(w, "degraded: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	io.WriteString(w, "ready\n")
}
