package server

import (
	"context"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/metrics"
	"github.com/roostproject/roost/internal/webhook"
)

// newWebhooks builds the apps' webhooks, or nil when no configured app has
// any and there is no app store (whose apps may have some), and makes the
// hub report to them.
func (s *Server) newWebhooks() *webhook.Webhooks {
	w := webhook.New(webhook.Options{Apps: s.cfg.Apps, Settings: s.cfg.Webhooks,
		Node: strconv.FormatUint(s.hub.Node(), 10), Logger: s.log, Delivered: s.webhookDelivered})
	if !w.Enabled() && s.cfg.AppStore.URL == "" {
		return nil
	}
	s.hub.SetObserver(w)
	return w
}

// appChanged gives the webhooks an app read from the app store, or the id
// of one whose row is gone (a nil a).
func (s *Server) appChanged(id string, a *config.App) {
	switch {
	case s.webhooks == nil:
	case a == nil:
		s.webhooks.RemoveApp(id)
	default:
		s.webhooks.SetApp(a)
	}
}

// startWebhooks starts the webhooks' intake, with the cluster's shared
// record of delayed events when there is a cluster.
func (s *Server) startWebhooks() {
	if s.webhooks == nil {
		return
	}
	s.webhooks.Start(s.pending)
}

// closeWebhooks sends what the webhooks hold within ctx. In a cluster it
// runs before the node leaves Redis: the node's last count changes are
// flushed first (reporting the channels its clients left), and the held
// events are decided in Redis, where another node may cancel them.
func (s *Server) closeWebhooks(ctx context.Context) {
	if s.webhooks == nil {
		return
	}
	if s.cluster != nil {
		s.cluster.FlushCounts()
	}
	s.webhooks.Close(ctx)
}

// webhookMetrics adds the webhooks' counters to a scrape.
func (s *Server) webhookMetrics(snap *metrics.Snapshot) {
	if s.webhooks == nil {
		return
	}
	for _, st := range s.webhooks.Stats() {
		m := metrics.Webhook{App: st.App, Sent: st.Sent, FailedAttempts: st.FailedAttempts, Retried: st.Retried,
			Queued: st.Queued, Dropped: make(map[string]int64), Buckets: make(map[float64]uint64),
			Requests: st.Requests, Seconds: st.Seconds}
		if !st.Oldest.IsZero() {
			m.OldestSeconds = time.Since(st.Oldest).Seconds()
		}
		for i, n := range st.Dropped {
			m.Dropped[webhook.DropReasons[i]] = n
		}
		for i, le := range webhook.LatencyBuckets {
			m.Buckets[le] = st.Buckets[i]
		}
		snap.Webhooks = append(snap.Webhooks, m)
	}
}

// observer is what the cluster tells of cluster-wide transitions: the
// webhooks, or nothing.
func (s *Server) observer() hub.Observer {
	if s.webhooks == nil {
		return nil
	}
	return s.webhooks
}
