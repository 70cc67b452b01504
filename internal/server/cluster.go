package server

import (
	"io"
	"net/http"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/natsstore"
	"github.com/roostproject/roost/internal/cluster/redisstore"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/webhook"
)

// clusterLink is what the server needs of a cluster backend, Redis or NATS.
type clusterLink interface {
	hub.Broker
	State() hub.State
	Ready() error
	Dropped() int64
	Duplicates() int64
	FlushCounts()
	Close() error
}

// joinCluster connects the hub to the other nodes through Redis or NATS
// (config validation allows one of them).
func (s *Server) joinCluster() error {
	apps := make([]string, len(s.cfg.Apps))
	for i, a := range s.cfg.Apps {
		apps[i] = a.ID
	}
	if s.cfg.NATS.URL != "" {
		return s.joinNATS(apps)
	}
	r, err := redisstore.New(redisstore.Config{URL: s.cfg.Redis.URL, Settings: s.nodeSettings(s.cfg.Redis.Prefix, apps)})
	if err != nil {
		return err
	}
	s.linkCluster(r, r.WebhookPending())
	return nil
}

// joinNATS connects the hub to the other nodes through NATS.
func (s *Server) joinNATS(apps []string) error {
	n, err := natsstore.New(natsstore.Config{URL: s.cfg.NATS.URL, Settings: s.nodeSettings(s.cfg.NATS.Prefix, apps)})
	if err != nil {
		return err
	}
	s.linkCluster(n, n.WebhookPending())
	return nil
}

// nodeSettings are this node's settings for either cluster backend.
func (s *Server) nodeSettings(prefix string, apps []string) cluster.Settings {
	return cluster.Settings{
		Prefix: prefix, Node: s.hub.Node(), Apps: apps,
		Deliver: s.hub.Deliver, Reconcile: s.hub.Reconcile, Logger: s.log,
		Observer: s.observer(),
	}
}

// linkCluster makes c the hub's broker and state, and p the webhooks'
// record of delayed events.
func (s *Server) linkCluster(c clusterLink, p webhook.Pending) {
	s.hub.SetBroker(c)
	s.hub.SetState(c.State())
	s.cluster, s.pending = c, p
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
