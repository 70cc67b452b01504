package metrics

import (
	"bufio"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/connstats"
)

// scrape serves one scrape of src and returns the exposition text.
func scrape(t *testing.T, src Source) string {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler(NewRegistry(src, "1.2.3")).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// types returns every "# TYPE name type" line of an exposition as a map.
func types(text string) map[string]string {
	out := make(map[string]string)
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[1] == "TYPE" {
			out[f[2]] = f[3]
		}
	}
	return out
}

func fakeSource(s *Snapshot) {
	s.Channels, s.Subscriptions, s.HandshakesRefused = 3, 7, 2
	ep := Transport{Name: "epoll", Counts: connstats.Counts{Open: 5, Accepted: 9, MessagesIn: 11, BytesIn: 400, FramesOut: 13, BytesOut: 900}}
	ep.Closed[connstats.Slow] = 4
	s.Transports = append(s.Transports, ep, Transport{Name: "portable", Counts: connstats.Counts{Open: 1, Accepted: 1}})
	s.Cluster = &Cluster{Up: true, Dropped: 6, Duplicates: 5}
	s.Refused = []Refusal{{"epoll", "connections", 1}, {"xhr_streaming", "origin", 1}}
	s.MaxConnections = 960
	s.HandshakeTimeouts = 8
	s.WriteBacklog, s.WriteBacklogLimit = 4096, 1<<20
	s.Config = ConfigLoad{LastSuccess: time.Unix(1700000000, 500_000_000), Failed: true}
	s.Webhooks = []Webhook{{App: "a", Sent: 8, FailedAttempts: 3, Retried: 2, Queued: 1, OldestSeconds: 1.5,
		Dropped: map[string]int64{"queue_full": 4}, Buckets: map[float64]uint64{0.1: 5, 1: 11}, Requests: 11, Seconds: 2.5}}
}

// TestNames pins the names and types of roost's own metrics: dashboards,
// alerts and `roost bench` depend on them.
func TestNames(t *testing.T) {
	want := map[string]string{
		"roost_build_info":                "gauge",
		"roost_connections":               "gauge",
		"roost_handshakes_total":          "counter",
		"roost_connections_closed_total":  "counter",
		"roost_subscriptions":             "gauge",
		"roost_channels":                  "gauge",
		"roost_messages_received_total":   "counter",
		"roost_messages_delivered_total":  "counter",
		"roost_received_bytes_total":      "counter",
		"roost_sent_bytes_total":          "counter",
		"roost_cluster_up":                "gauge",
		"roost_cluster_dropped_total":     "counter",
		"roost_cluster_duplicates_total":  "counter",
		"roost_handshakes_refused_total":  "counter",
		"roost_connections_limit":         "gauge",
		"roost_handshake_timeouts_total":  "counter",
		"roost_write_backlog_bytes":       "gauge",
		"roost_write_backlog_limit_bytes": "gauge",

		"roost_config_last_reload_successful":                "gauge",
		"roost_config_last_reload_success_timestamp_seconds": "gauge",

		"roost_webhook_sent_total":               "counter",
		"roost_webhook_failed_attempts_total":    "counter",
		"roost_webhook_retried_total":            "counter",
		"roost_webhook_dropped_total":            "counter",
		"roost_webhook_queue_depth":              "gauge",
		"roost_webhook_oldest_event_age_seconds": "gauge",
		"roost_webhook_send_seconds":             "histogram",
		"roost_webhook_outbox_depth":             "gauge",
		"roost_webhook_adopted_total":            "counter",
	}
	got := types(scrape(t, SourceFunc(fakeSource)))
	for name, typ := range want {
		if got[name] != typ {
			t.Errorf("%s: type %q, want %q", name, got[name], typ)
		}
	}
	for name := range got {
		if strings.HasPrefix(name, "roost_") && want[name] == "" {
			t.Errorf("unexpected metric %s: add it to this test and to docs/capacity.md", name)
		}
	}
}

// TestRuntimeMetrics checks the process and Go collector metrics that
// `roost bench` reads are exposed.
func TestRuntimeMetrics(t *testing.T) {
	got := types(scrape(t, SourceFunc(func(*Snapshot) {})))
	for _, name := range []string{
		"process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds",
		"go_goroutines", "go_memstats_heap_inuse_bytes", "go_memstats_stack_inuse_bytes",
	} {
		if got[name] == "" {
			t.Errorf("%s is not exposed", name)
		}
	}
}

// TestValues checks that snapshot fields land in the right series.
func TestValues(t *testing.T) {
	text := scrape(t, SourceFunc(fakeSource))
	for _, line := range []string{
		`roost_build_info{version="1.2.3"} 1`,
		`roost_connections{transport="epoll"} 5`,
		`roost_connections{transport="portable"} 1`,
		`roost_handshakes_total{result="accepted"} 10`,
		`roost_handshakes_total{result="refused"} 2`,
		`roost_connections_closed_total{reason="slow_consumer",transport="epoll"} 4`,
		`roost_connections_closed_total{reason="client",transport="portable"} 0`,
		`roost_subscriptions 7`,
		`roost_channels 3`,
		`roost_messages_received_total{transport="epoll"} 11`,
		`roost_messages_delivered_total{transport="epoll"} 13`,
		`roost_received_bytes_total{transport="epoll"} 400`,
		`roost_sent_bytes_total{transport="epoll"} 900`,
		`roost_cluster_up 1`,
		`roost_cluster_dropped_total 6`,
		`roost_cluster_duplicates_total 5`,
		`roost_handshakes_refused_total{reason="connections",transport="epoll"} 1`,
		`roost_handshakes_refused_total{reason="origin",transport="xhr_streaming"} 1`,
		`roost_connections_limit 960`,
		`roost_handshake_timeouts_total 8`,
		`roost_write_backlog_bytes 4096`,
		`roost_write_backlog_limit_bytes 1.048576e+06`,
		`roost_config_last_reload_successful 0`,
		`roost_config_last_reload_success_timestamp_seconds 1.7000000005e+09`,
		`roost_webhook_sent_total{app="a"} 8`,
		`roost_webhook_failed_attempts_total{app="a"} 3`,
		`roost_webhook_retried_total{app="a"} 2`,
		`roost_webhook_dropped_total{app="a",reason="queue_full"} 4`,
		`roost_webhook_queue_depth{app="a"} 1`,
		`roost_webhook_oldest_event_age_seconds{app="a"} 1.5`,
		`roost_webhook_send_seconds_bucket{app="a",le="0.1"} 5`,
		`roost_webhook_send_seconds_count{app="a"} 11`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("missing %q", line)
		}
	}
}

// BenchmarkScrape measures one full scrape (runtime collectors included):
// the cost a Prometheus server adds every scrape interval.
func BenchmarkScrape(b *testing.B) {
	h := Handler(NewRegistry(SourceFunc(fakeSource), "bench"))
	req := httptest.NewRequest("GET", "/metrics", nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}
