package server

import (
	"io"
	"net/http"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/natsstore"
	"github.com/roostproject/roost/internal/cluster/redisstore"
	"github.com/roostproject/roost/internal/config"
)

// clusterBackend returns the store that cfg's nodes share and its prefix;
// nil for a single node. Config validation allows one of Redis and NATS.
func clusterBackend(cfg *config.Config) (*cluster.Backend, string) {
	switch {
	case cfg.NATS.URL != "":
		b := natsstore.Backend(cfg.NATS.URL)
		return &b, cfg.NATS.Prefix
	case cfg.Redis.URL != "":
		b := redisstore.Backend(cfg.Redis.URL)
		return &b, cfg.Redis.Prefix
	}
	return nil, ""
}

// joinCluster connects the hub to the other nodes through the cluster's
// store, making the node the hub's broker and state and the webhooks'
// record of delayed events.
func (s *Server) joinCluster() error {
	b, prefix := clusterBackend(s.cfg)
	apps := make([]string, len(s.cfg.Apps))
	for i, a := range s.cfg.Apps {
		apps[i] = a.ID
	}
	n, err := cluster.Open(cluster.Settings{
		Prefix: prefix, Node: s.hub.Node(), Apps: apps, NodeTTL: s.cfg.NodeTTL,
		Deliver: s.hub.Deliver, Reconcile: s.hub.Reconcile, Logger: s.log,
		Observer: s.webhooks, Adopt: s.adopter(),
	}, *b)
	if err != nil {
		return err
	}
	s.hub.SetBroker(n)
	s.hub.SetState(n.State())
	s.cluster, s.pending = n, n.WebhookPending()
	if s.adopter() != nil {
		s.outbox = n.WebhookOutbox()
	}
	return nil
}

// serveReady answers GET /ready: 200 when the node can serve its cluster,
// 503 with the reason when it is degraded (the cluster's store or the app
// store unreachable).
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
