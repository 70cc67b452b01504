package metrics

import "github.com/prometheus/client_golang/prometheus"

// Webhook is one app's webhook counters at the moment of a scrape.
type Webhook struct {
	// App is the app id, the app label value.
	App string
	// Sent counts events delivered (answered 2xx).
	Sent int64
	// FailedAttempts counts requests that failed; Retried those tried again.
	FailedAttempts, Retried int64
	// Dropped counts events given up on, by reason label value.
	Dropped map[string]int64
	// Queued is the number of events waiting now, not yet in a request.
	Queued int64
	// OldestSeconds is the age of the oldest event not yet delivered or
	// dropped (waiting, or in a request being retried); 0 when there is none.
	OldestSeconds float64
	// Outboxed is the number of the node's records in the cluster's
	// webhook outbox; Adopted counts events taken over from dead nodes.
	Outboxed, Adopted int64
	// Buckets maps each latency bucket's upper bound, in seconds, to the
	// requests that took at most that long; Requests and Seconds are their
	// count and sum.
	Buckets  map[float64]uint64
	Requests uint64
	Seconds  float64
}

// webhookDescs describe the per-app webhook metrics.
type webhookDescs struct {
	sent, failed, retried, dropped, queued, oldest, latency, outboxed, adopted *prometheus.Desc
}

func newWebhookDescs() *webhookDescs {
	a := []string{"app"}
	return &webhookDescs{
		sent: prometheus.NewDesc("roost_webhook_sent_total", "Webhook events delivered (answered 2xx), by app.", a, nil),
		failed: prometheus.NewDesc("roost_webhook_failed_attempts_total",
			"Webhook requests that failed (error, timeout or non-2xx answer), by app.", a, nil),
		retried: prometheus.NewDesc("roost_webhook_retried_total", "Webhook requests sent again after a failure, by app.", a, nil),
		dropped: prometheus.NewDesc("roost_webhook_dropped_total",
			"Webhook events given up on, by app and reason (queue_full, retry_expired, intake_full, shutdown).",
			[]string{"app", "reason"}, nil),
		queued: prometheus.NewDesc("roost_webhook_queue_depth", "Webhook events waiting to be sent, by app.", a, nil),
		oldest: prometheus.NewDesc("roost_webhook_oldest_event_age_seconds",
			"Age of the oldest webhook event not yet delivered or dropped, by app; 0 when there is none.", a, nil),
		outboxed: prometheus.NewDesc("roost_webhook_outbox_depth",
			"Webhook events of this node the cluster's outbox has taken (queued or held, not yet delivered or dropped), by app.", a, nil),
		adopted: prometheus.NewDesc("roost_webhook_adopted_total",
			"Webhook events taken over from dead nodes' outboxes, by app; each may arrive twice.", a, nil),
		latency: prometheus.NewDesc("roost_webhook_send_seconds", "Time of each webhook request until its answer, by app.", a, nil),
	}
}

func (d *webhookDescs) describe(ch chan<- *prometheus.Desc) {
	for _, x := range []*prometheus.Desc{d.sent, d.failed, d.retried, d.dropped, d.queued, d.oldest, d.latency, d.outboxed, d.adopted} {
		ch <- x
	}
}

// collect sends one app's webhook metrics.
func (d *webhookDescs) collect(ch chan<- prometheus.Metric, w *Webhook) {
	counter := func(desc *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), w.App)
	}
	counter(d.sent, w.Sent)
	counter(d.failed, w.FailedAttempts)
	counter(d.retried, w.Retried)
	counter(d.adopted, w.Adopted)
	ch <- prometheus.MustNewConstMetric(d.outboxed, prometheus.GaugeValue, float64(w.Outboxed), w.App)
	for reason, n := range w.Dropped {
		ch <- prometheus.MustNewConstMetric(d.dropped, prometheus.CounterValue, float64(n), w.App, reason)
	}
	ch <- prometheus.MustNewConstMetric(d.queued, prometheus.GaugeValue, float64(w.Queued), w.App)
	ch <- prometheus.MustNewConstMetric(d.oldest, prometheus.GaugeValue, w.OldestSeconds, w.App)
	ch <- prometheus.MustNewConstHistogram(d.latency, w.Requests, w.Seconds, w.Buckets, w.App)
}
