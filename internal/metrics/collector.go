package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// descs are the descriptions of roost's own metrics. Their names are part
// of roost's interface (dashboards and `roost bench` read them): a rename is
// a breaking change, which metrics_test.go guards.
type descs struct {
	build, connections, handshakes, closed     *prometheus.Desc
	subscriptions, channels                    *prometheus.Desc
	messagesIn, messagesOut, bytesIn, bytesOut *prometheus.Desc
	clusterUp, clusterDropped                  *prometheus.Desc
	webhooks                                   *webhookDescs
}

func newDescs(version string) *descs {
	t := []string{"transport"}
	return &descs{
		build: prometheus.NewDesc("roost_build_info", "Always 1; the label says which roost version runs.",
			nil, prometheus.Labels{"version": version}),
		connections: prometheus.NewDesc("roost_connections", "WebSocket connections served now, by transport.", t, nil),
		handshakes: prometheus.NewDesc("roost_handshakes_total",
			"WebSocket handshakes since start: accepted (handed to a transport) or refused (HTTP error, unknown app, bad protocol).",
			[]string{"result"}, nil),
		closed: prometheus.NewDesc("roost_connections_closed_total",
			"Connections ended since start, by transport and reason (client, timeout, slow_consumer, error, server).",
			[]string{"transport", "reason"}, nil),
		subscriptions: prometheus.NewDesc("roost_subscriptions", "Channel subscriptions held by local connections.", nil, nil),
		channels:      prometheus.NewDesc("roost_channels", "Channels with at least one local subscriber.", nil, nil),
		messagesIn:    prometheus.NewDesc("roost_messages_received_total", "Complete WebSocket messages received from clients.", t, nil),
		messagesOut: prometheus.NewDesc("roost_messages_delivered_total",
			"WebSocket frames written or queued to clients: published events, protocol replies and pings.", t, nil),
		bytesIn:  prometheus.NewDesc("roost_received_bytes_total", "Bytes read from client sockets.", t, nil),
		bytesOut: prometheus.NewDesc("roost_sent_bytes_total", "Bytes written or queued to client sockets.", t, nil),
		clusterUp: prometheus.NewDesc("roost_cluster_up",
			"1 while this cluster node reaches Redis, 0 while it serves local connections only.", nil, nil),
		clusterDropped: prometheus.NewDesc("roost_cluster_dropped_total",
			"Messages not sent to the other nodes because the outbox was full while Redis was slow or away.", nil, nil),
		webhooks: newWebhookDescs(),
	}
}

// collector turns a Source's snapshot into metrics at scrape time.
type collector struct {
	src Source
	d   *descs
}

var _ prometheus.Collector = (*collector)(nil)

// Describe sends every roost metric's description.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	d := c.d
	for _, x := range []*prometheus.Desc{d.build, d.connections, d.handshakes, d.closed, d.subscriptions,
		d.channels, d.messagesIn, d.messagesOut, d.bytesIn, d.bytesOut, d.clusterUp, d.clusterDropped} {
		ch <- x
	}
	d.webhooks.describe(ch)
}

// Collect reads one snapshot and sends it as constant metrics.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	var s Snapshot
	c.src.Snapshot(&s)
	d := c.d
	ch <- prometheus.MustNewConstMetric(d.build, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(d.subscriptions, prometheus.GaugeValue, float64(s.Subscriptions))
	ch <- prometheus.MustNewConstMetric(d.channels, prometheus.GaugeValue, float64(s.Channels))
	var accepted int64
	for i := range s.Transports {
		accepted += s.Transports[i].Accepted
		c.collectTransport(ch, &s.Transports[i])
	}
	ch <- prometheus.MustNewConstMetric(d.handshakes, prometheus.CounterValue, float64(accepted), "accepted")
	ch <- prometheus.MustNewConstMetric(d.handshakes, prometheus.CounterValue, float64(s.HandshakesRefused), "refused")
	if s.Cluster != nil {
		up := 0.0
		if s.Cluster.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(d.clusterUp, prometheus.GaugeValue, up)
		ch <- prometheus.MustNewConstMetric(d.clusterDropped, prometheus.CounterValue, float64(s.Cluster.Dropped))
	}
	for i := range s.Webhooks {
		d.webhooks.collect(ch, &s.Webhooks[i])
	}
}

func (c *collector) collectTransport(ch chan<- prometheus.Metric, t *Transport) {
	d := c.d
	counter := func(desc *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), t.Name)
	}
	ch <- prometheus.MustNewConstMetric(d.connections, prometheus.GaugeValue, float64(t.Open), t.Name)
	counter(d.messagesIn, t.MessagesIn)
	counter(d.messagesOut, t.FramesOut)
	counter(d.bytesIn, t.BytesIn)
	counter(d.bytesOut, t.BytesOut)
	for r := Reason(0); r < NumReasons; r++ {
		ch <- prometheus.MustNewConstMetric(d.closed, prometheus.CounterValue, float64(t.Closed[r]), t.Name, r.String())
	}
}

// NewRegistry returns a registry with the process collector, the Go runtime
// collector and roost's own metrics read from src. Each server builds its
// own registry: nothing is registered globally.
func NewRegistry(src Source, version string) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(),
		&collector{src: src, d: newDescs(version)},
	)
	return reg
}

// Handler serves reg in the Prometheus text format. A failing collector
// still leaves the others served (promhttp.ContinueOnError).
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
