package server

import (
	"context"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/metrics"
	"github.com/roostproject/roost/internal/webhook"
)

// newWebhooks builds the apps' webhooks and makes the hub report to them.
// They are built even when no app has any, so that webhooks a reload or
// the app store gives an app later are sent: until then each fact the hub
// reports costs a lookup in an empty map, and the node an idle goroutine
// (two in a cluster with the outbox on).
func (s *Server) newWebhooks() *webhook.Webhooks {
	w := webhook.New(webhook.Options{Apps: s.cfg.Apps, Settings: s.cfg.Webhooks,
		Node: strconv.FormatUint(s.hub.Node(), 10), Logger: s.log, Delivered: s.webhookDelivered})
	s.hub.SetObserver(w)
	return w
}

// appChanged gives the webhooks an app read from the app store, or the id
// of one whose row is gone (a nil a).
func (s *Server) appChanged(id string, a *config.App) {
	if a == nil {
		s.webhooks.RemoveApp(id)
		return
	}
	s.webhooks.SetApp(a)
}

// startWebhooks starts the webhooks' intake, with the cluster's shared
// record of delayed events when there is a cluster.
func (s *Server) startWebhooks() {
	s.webhooks.Start(s.pending, s.outbox)
}

// closeWebhooks sends what the webhooks hold within ctx. In a cluster it
// runs before the node leaves Redis: the node's last count changes are
// flushed first (reporting the channels its clients left), and the held
// events are decided in Redis, where another node may cancel them.
func (s *Server) closeWebhooks(ctx context.Context) {
	if s.cluster != nil {
		s.cluster.FlushCounts()
	}
	s.webhooks.Close(ctx)
}

// webhookMetrics adds the webhooks' counters to a scrape.
func (s *Server) webhookMetrics(snap *metrics.Snapshot) {
	for _, st := range s.webhooks.Stats() {
		m := metrics.Webhook{App: st.App, Sent: st.Sent, FailedAttempts: st.FailedAttempts, Retried: st.Retried,
			Queued: st.Queued, Outboxed: st.Outboxed, Adopted: st.Adopted, Dropped: make(map[string]int64), Buckets: make(map[float64]uint64),
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

// adopter takes over a dead node's undelivered webhook events, when this
// node keeps them in the cluster's outbox; nil when it does not.
func (s *Server) adopter() func(context.Context, []webhook.Entry) error {
	if !s.cfg.Webhooks.OutboxOn() {
		return nil
	}
	return s.webhooks.Adopt
}
