package server

import (
	"context"
	"strconv"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/metrics"
	"github.com/roostproject/roost/internal/webhook"
)

// newWebhooks builds the apps' webhooks, or nil when no app has any, and
// makes the hub report to them.
func (s *Server) newWebhooks() *webhook.Webhooks {
	w := webhook.New(webhook.Options{Apps: s.cfg.Apps, Settings: s.cfg.Webhooks,
		Node: strconv.FormatUint(s.hub.Node(), 10), Logger: s.log, Delivered: s.webhookDelivered})
	if !w.Enabled() {
		return nil
	}
	s.hub.SetObserver(w)
	return w
}

// startWebhooks starts the webhooks' intake, with the cluster's shared
// record of delayed events when there is a cluster.
func (s *Server) startWebhooks() {
	if s.webhooks == nil {
		return
	}
	var p webhook.Pending
	if s.cluster != nil {
		p = s.cluster.WebhookPending()
	}
	s.webhooks.Start(p)
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
