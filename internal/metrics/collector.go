package metrics

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roostproject/roost/internal/connstats"
)

// descs are the descriptions of roost's own metrics. Their names are part
// of roost's interface (dashboards and `roost bench` read them): a rename is
// a breaking change, which metrics_test.go guards.
type descs struct {
	build, connections, handshakes, closed     *prometheus.Desc
	subscriptions, channels                    *prometheus.Desc
	messagesIn, messagesOut, bytesIn, bytesOut *prometheus.Desc
	clusterUp, clusterDropped, clusterDupes    *prometheus.Desc
	refused, maxConnections, timeouts          *prometheus.Desc
	backlog, backlogLimit                      *prometheus.Desc
	configOK, configTime                       *prometheus.Desc
	webhooks                                   *webhookDescs
}

func newDescs(version string) *descs {
	t := []string{"transport"}
	return &descs{
		build: prometheus.NewDesc("roost_build_info", "Always 1; the label says which roost version runs.",
			nil, prometheus.Labels{"version": version}),
		connections: prometheus.NewDesc("roost_connections", "Connections served now, by transport (epoll, portable; xhr_streaming, xhr_polling: HTTP fallback sessions).", t, nil),
		handshakes: prometheus.NewDesc("roost_handshakes_total",
			"WebSocket handshakes since start: accepted (handed to a transport) or refused (HTTP error, unknown app, bad protocol).",
			[]string{"result"}, nil),
		closed: prometheus.NewDesc("roost_connections_closed_total",
			"Connections ended since start, by transport and reason ("+reasons()+").",
			[]string{"transport", "reason"}, nil),
		subscriptions: prometheus.NewDesc("roost_subscriptions", "Channel subscriptions held by local connections.", nil, nil),
		channels:      prometheus.NewDesc("roost_channels", "Channels with at least one local subscriber.", nil, nil),
		messagesIn:    prometheus.NewDesc("roost_messages_received_total", "Complete WebSocket messages received from clients.", t, nil),
		messagesOut: prometheus.NewDesc("roost_messages_delivered_total",
			"WebSocket frames written or queued to clients: published events, protocol replies and pings.", t, nil),
		bytesIn:  prometheus.NewDesc("roost_received_bytes_total", "Bytes read from client sockets.", t, nil),
		bytesOut: prometheus.NewDesc("roost_sent_bytes_total", "Bytes written or queued to client sockets.", t, nil),
		refused: prometheus.NewDesc("roost_handshakes_refused_total",
			"Sessions refused since start (WebSocket handshakes, and HTTP fallback sessions), by transport and reason: over a cap (connections, ip_connections, rate, ip_rate, memory, descriptors: HTTP 503), origin (403), invalid (4xx), app (a Pusher error code).",
			[]string{"transport", "reason"}, nil),
		maxConnections: prometheus.NewDesc("roost_connections_limit",
			"The node's cap on WebSocket connections (limits.max_connections, or the one derived from the file limit); 0 means none.", nil, nil),
		timeouts: prometheus.NewDesc("roost_handshake_timeouts_total",
			"Connections closed because their first HTTP request (a WebSocket handshake or an API call), or their TLS handshake, did not arrive within limits.handshake_timeout.",
			nil, nil),
		backlog: prometheus.NewDesc("roost_write_backlog_bytes",
			"Bytes queued for slow clients over every connection, against roost_write_backlog_limit_bytes.", nil, nil),
		backlogLimit: prometheus.NewDesc("roost_write_backlog_limit_bytes",
			"The node's budget for bytes queued for slow clients (limits.write_backlog_total); past it the largest backlogs are closed with 4100. 0: unbounded.", nil, nil),
		clusterUp: prometheus.NewDesc("roost_cluster_up",
			"1 while this cluster node reaches Redis, 0 while it serves local connections only.", nil, nil),
		clusterDropped: prometheus.NewDesc("roost_cluster_dropped_total",
			"Messages not sent to the other nodes because the outbox was full while Redis was slow or away.", nil, nil),
		clusterDupes: prometheus.NewDesc("roost_cluster_duplicates_total",
			"Messages from other nodes received a second time (a publish retried after a timeout) and not delivered again.", nil, nil),
		configOK: prometheus.NewDesc("roost_config_last_reload_successful",
			"1 if the last load of the configuration file and ROOST_* variables (at start or on SIGHUP) was applied, 0 if it was refused and the running configuration kept.",
			nil, nil),
		configTime: prometheus.NewDesc("roost_config_last_reload_success_timestamp_seconds",
			"When the configuration was last loaded and applied (the start, or a SIGHUP), in Unix seconds.", nil, nil),
		webhooks: newWebhookDescs(),
	}
}

// reasons lists the reason label values, for the help text.
func reasons() string {
	names := make([]string, 0, connstats.NumReasons)
	for r := connstats.Reason(0); r < connstats.NumReasons; r++ {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ")
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
		d.channels, d.messagesIn, d.messagesOut, d.bytesIn, d.bytesOut, d.clusterUp, d.clusterDropped, d.clusterDupes,
		d.refused, d.maxConnections, d.timeouts, d.backlog, d.backlogLimit, d.configOK, d.configTime} {
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
	for _, r := range s.Refused {
		ch <- prometheus.MustNewConstMetric(d.refused, prometheus.CounterValue, float64(r.Count), r.Transport, r.Reason)
	}
	ch <- prometheus.MustNewConstMetric(d.maxConnections, prometheus.GaugeValue, float64(s.MaxConnections))
	ch <- prometheus.MustNewConstMetric(d.timeouts, prometheus.CounterValue, float64(s.HandshakeTimeouts))
	ch <- prometheus.MustNewConstMetric(d.backlog, prometheus.GaugeValue, float64(s.WriteBacklog))
	ch <- prometheus.MustNewConstMetric(d.backlogLimit, prometheus.GaugeValue, float64(s.WriteBacklogLimit))
	if s.Cluster != nil {
		up := 0.0
		if s.Cluster.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(d.clusterUp, prometheus.GaugeValue, up)
		ch <- prometheus.MustNewConstMetric(d.clusterDropped, prometheus.CounterValue, float64(s.Cluster.Dropped))
		ch <- prometheus.MustNewConstMetric(d.clusterDupes, prometheus.CounterValue, float64(s.Cluster.Duplicates))
	}
	for i := range s.Webhooks {
		d.webhooks.collect(ch, &s.Webhooks[i])
	}
	c.collectConfig(ch, s.Config)
}

// collectConfig sends when the configuration was last loaded, as
// Prometheus reports its own (prometheus_config_last_reload_*).
func (c *collector) collectConfig(ch chan<- prometheus.Metric, l ConfigLoad) {
	if l.LastSuccess.IsZero() {
		return
	}
	ok := 1.0
	if l.Failed {
		ok = 0
	}
	ch <- prometheus.MustNewConstMetric(c.d.configOK, prometheus.GaugeValue, ok)
	ch <- prometheus.MustNewConstMetric(c.d.configTime, prometheus.GaugeValue, float64(l.LastSuccess.UnixMilli())/1000)
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
	for r := connstats.Reason(0); r < connstats.NumReasons; r++ {
		ch <- prometheus.MustNewConstMetric(d.closed, prometheus.CounterValue, float64(t.Closed[r]), t.Name, r.String())
	}
}

// NewRegistry returns a registry with the process collector, the Go runtime
// collector and roost's own metrics read from src. Each server builds its
// own registry: nothing is registered globally.
func NewRegistry(src Source, version string) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		&lastGood{inner: collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})},
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
