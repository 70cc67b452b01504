package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/server"
	"github.com/roostproject/roost/internal/testutil"
)

// reexecEnv marks a child process of these tests: the bench re-executes its
// own binary (this test binary) as `roost serve` and `roost bench worker`,
// and TestMain turns such a child into the real command. The name lacks
// the ROOST_ prefix, which the config loader reserves.
const reexecEnv = "ROOSTBENCH_TEST_REEXEC"

func TestMain(m *testing.M) {
	if os.Getenv(reexecEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Setenv(reexecEnv, "1")
	os.Exit(m.Run())
}

// runBench runs `roost bench args...` with --json and decodes the result.
func runBench(t *testing.T, v any, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"bench"}, append(args, "--json")...), &stdout, &stderr); code != 0 {
		t.Fatalf("roost bench %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("roost bench %s: bad JSON %q: %v", strings.Join(args, " "), stdout.String(), err)
	}
}

// servedByDefault is the transport `roost serve` serves here with no
// --transport: "epoll+uring" where the kernel allows io_uring, else "epoll"
// (or "portable" off Linux). It asks the server itself, never a copy of
// its rule.
func servedByDefault(t *testing.T) string {
	t.Helper()
	cfg, err := config.Parse([]byte("addr: 127.0.0.1:0\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	return srv.Transport()
}

// TestBenchIdleSmoke holds 50 connections against a child roost for a
// second and checks that the figures exist and are sane (never how fast),
// and that it measured the transport `roost serve` serves by default,
// recorded by the name the server gave it, not as "auto".
func TestBenchIdleSmoke(t *testing.T) {
	t.Parallel()
	var r struct {
		Transport   string `json:"transport"`
		Connections int    `json:"connections"`
		Hold        [2]struct {
			Connections float64 `json:"connections"`
			RSS         float64 `json:"rss"`
			Proc        *struct {
				RSS float64 `json:"RSS"`
			} `json:"proc"`
		} `json:"hold"`
		Failed  int64 `json:"failed"`
		PerConn struct {
			RSS float64 `json:"rss_bytes"`
		} `json:"per_connection"`
	}
	runBench(t, &r, "idle", "-n", "50", "--hold", "1s", "--baseline", "500ms", "--activity-timeout", "2s", "--settle", "200ms")
	if want := servedByDefault(t); r.Transport != want {
		t.Errorf("recorded transport %q, want %q (what roost serve serves by default)", r.Transport, want)
	}
	if r.Connections != 50 || r.Hold[1].Connections != 50 || r.Failed != 0 {
		t.Fatalf("unexpected result %+v", r)
	}
	if r.Hold[1].RSS <= 0 || r.Hold[1].Proc == nil || r.Hold[1].Proc.RSS <= 0 {
		t.Fatalf("no RSS figures: %+v", r.Hold[1])
	}
	if r.PerConn.RSS > 10<<20 || r.PerConn.RSS < -10<<20 {
		t.Fatalf("per-connection RSS %v bytes is not a plausible figure", r.PerConn.RSS)
	}
}

// TestBenchIdleXHRStreamingSmoke holds 30 pusher-js xhr_streaming sessions
// for a second: they are counted under their transport and none fails.
func TestBenchIdleXHRStreamingSmoke(t *testing.T) {
	t.Parallel()
	var r struct {
		Client      string `json:"client_transport"`
		Connections int    `json:"connections"`
		Hold        [2]struct {
			Connections float64 `json:"connections"`
		} `json:"hold"`
		Failed int64 `json:"failed"`
	}
	runBench(t, &r, "idle", "-n", "30", "--hold", "1s", "--baseline", "500ms", "--activity-timeout", "2s", "--settle", "200ms",
		"--client-transport", "xhr_streaming")
	if r.Client != "xhr_streaming" || r.Hold[1].Connections != 30 || r.Failed != 0 {
		t.Fatalf("unexpected result %+v", r)
	}
}

// TestBenchFanoutSmoke publishes to 30 subscribers for a second, on the
// transport asked for.
func TestBenchFanoutSmoke(t *testing.T) {
	t.Parallel()
	var r struct {
		Transport                      string
		Published, Delivered, Expected int64
		P99                            float64 `json:"p99_ms"`
		BytesPerMessage                float64 `json:"bytes_per_message"`
	}
	runBench(t, &r, "fanout", "--transport", "epoll", "--subscribers", "30", "--rate", "5", "--duration", "1s", "--settle", "200ms")
	if r.Transport != "epoll" {
		t.Errorf("asked for --transport epoll, recorded %q", r.Transport)
	}
	if r.Published == 0 || r.Delivered == 0 || r.Delivered > r.Expected || r.P99 <= 0 || r.BytesPerMessage <= 0 {
		t.Fatalf("implausible fan-out result %+v", r)
	}
}

// TestBenchNonReadersSmoke feeds 20 clients that never read until the
// server sheds them, on a per-connection cap small enough to pass at once.
func TestBenchNonReadersSmoke(t *testing.T) {
	t.Parallel()
	var r struct {
		Published  int64   `json:"published"`
		Shed       float64 `json:"shed"`
		CanaryLoad struct {
			Count uint64 `json:"count"`
		} `json:"canary_load"`
	}
	runBench(t, &r, "nonreaders", "--transport", "epoll", "-n", "20", "--workers", "2", "--rate", "500", "--data-bytes", "9000",
		"--duration", "3s", "--after", "2s", "--settle", "200ms", "--canaries", "1",
		"--server-env", "ROOST_WRITE_BACKLOG=64KiB ROOST_SEND_BUFFER=16KiB ROOST_HANDSHAKE_TIMEOUT=1s")
	if r.Published == 0 || r.Shed != 20 || r.CanaryLoad.Count == 0 {
		t.Fatalf("implausible non-reader result %+v: want all 20 shed and the canary served", r)
	}
}

// TestBenchListingSmoke lists 300 channels 20 times while the canary runs.
func TestBenchListingSmoke(t *testing.T) {
	t.Parallel()
	var r struct {
		Answered  int64   `json:"answered"`
		Errors    int64   `json:"errors"`
		Bytes     float64 `json:"bytes_per_listing"`
		CanaryIdl struct {
			Count uint64 `json:"count"`
		} `json:"canary_idle"`
	}
	runBench(t, &r, "listing", "--transport", "epoll", "--channels", "300", "--requests", "20", "--concurrency", "4",
		"--baseline", "500ms", "--canaries", "1")
	if r.Answered != 20 || r.Errors != 0 || r.Bytes < 300*10 || r.CanaryIdl.Count == 0 {
		t.Fatalf("implausible listing result %+v", r)
	}
}

// TestBenchChurnSmoke connects and disconnects for a second, on the
// transport asked for.
func TestBenchChurnSmoke(t *testing.T) {
	t.Parallel()
	var r struct {
		Transport  string  `json:"transport"`
		Handshakes float64 `json:"handshakes"`
		PerSecond  float64 `json:"handshakes_per_s"`
		Before     struct{ RSS float64 }
		After      struct{ RSS float64 }
	}
	runBench(t, &r, "churn", "--transport", "portable", "--rate", "100", "--duration", "1s", "--settle", "200ms", "--workers", "1")
	if r.Transport != "portable" {
		t.Errorf("asked for --transport portable, recorded %q", r.Transport)
	}
	if r.Handshakes <= 0 || r.PerSecond <= 0 || r.Before.RSS <= 0 || r.After.RSS <= 0 {
		t.Fatalf("implausible churn result %+v", r)
	}
}

// TestBenchReportSmoke runs the whole report with tiny steps over both
// transports and checks the three files it writes; the first transport is
// the one `roost serve` serves by default, named as the server names it.
func TestBenchReportSmoke(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "report", "--out", out, "--steps", "0,30", "--activity-timeout", "1s",
		"--window", "500ms", "--settle", "200ms", "--subscribers", "20", "--fanout-rate", "5",
		"--fanout-duration", "1s", "--churn-rate", "50", "--churn-duration", "1s"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr.String())
	}
	var rep struct {
		Transports []struct {
			Transport string
			Steps     []struct{ N int }
			Fanout    struct{ Delivered int64 }
			Churn     struct{ Handshakes float64 }
		}
	}
	raw, err := os.ReadFile(out + "/bench/report.json")
	if err != nil || json.Unmarshal(raw, &rep) != nil {
		t.Fatalf("report.json: %v %s", err, raw)
	}
	if len(rep.Transports) != 2 || rep.Transports[0].Transport != servedByDefault(t) || rep.Transports[1].Transport != "portable" {
		t.Fatalf("transports %+v", rep.Transports)
	}
	for _, tr := range rep.Transports {
		if len(tr.Steps) != 2 || tr.Fanout.Delivered == 0 || tr.Churn.Handshakes == 0 {
			t.Errorf("%s: incomplete %+v", tr.Transport, tr)
		}
	}
	for _, f := range []string{"results.md", "rss.svg"} {
		if b, err := os.ReadFile(out + "/bench/" + f); err != nil || len(b) < 100 {
			t.Errorf("%s: %v (%d bytes)", f, err, len(b))
		}
	}
	if !strings.Contains(stdout.String(), "## Targets") {
		t.Errorf("stdout lacks the targets table:\n%s", stdout.String())
	}
	again := t.TempDir()
	if code := run([]string{"bench", "report", "--from", out + "/bench/report.json", "--out", again}, &stdout, &stderr); code != 0 {
		t.Fatalf("report --from: exit %d\n%s", code, stderr.String())
	}
	if _, err := os.Stat(again + "/bench/rss.svg"); err != nil {
		t.Errorf("report --from wrote no chart: %v", err)
	}
}

// TestBenchWebhookSmoke runs the webhook mode briefly: the run without
// webhooks delivers nothing, the run with them delivers signed events to
// the bench's receiver, and the paused receiver makes events queue.
func TestBenchWebhookSmoke(t *testing.T) {
	t.Parallel()
	var r struct {
		Runs []struct {
			Webhooks bool
			Cycles   int64
			Events   int64
			Queue    *[2]struct {
				Queued float64 `json:"webhooks_queued"`
			}
		}
		BadRequests int64   `json:"bad_requests"`
		Queued      float64 `json:"queued"`
	}
	runBench(t, &r, "webhook", "--rate", "20", "--warmup", "3500ms", "--duration", "1s", "--queue-for", "1s")
	if len(r.Runs) != 2 || r.Runs[0].Webhooks || !r.Runs[1].Webhooks {
		t.Fatalf("want a run without webhooks, then one with: %+v", r.Runs)
	}
	off, on := r.Runs[0], r.Runs[1]
	if off.Cycles == 0 || on.Cycles == 0 || off.Events != 0 || on.Events == 0 || r.BadRequests != 0 {
		t.Fatalf("implausible runs %+v, %d bad requests", r.Runs, r.BadRequests)
	}
	if on.Queue == nil || r.Queued <= 0 {
		t.Fatalf("no events queued while the receiver was paused: %+v", r)
	}
}

// TestBenchClusterSmoke runs two nodes on a private Redis: every
// connection gets each broadcast, and the second node's clients get events
// published through the first, across Redis.
func TestBenchClusterSmoke(t *testing.T) {
	t.Parallel()
	redis := testutil.StartRedis(t)
	var r struct {
		Nodes []struct {
			After struct {
				Connections float64 `json:"connections"`
			} `json:"after"`
			Broadcast struct {
				Count uint64 `json:"count"`
			} `json:"broadcast"`
		} `json:"nodes"`
		LastClient []float64 `json:"last_client_ms"`
		Published  int64     `json:"published"`
		CrossNode  struct {
			Count uint64 `json:"count"`
		} `json:"cross_node"`
		Failed int64 `json:"failed"`
	}
	runBench(t, &r, "cluster", "--backend", "--redis-url "+redis.URL(), "--nodes", "2", "--per-node", "20",
		"--broadcasts", "2", "--channels", "5", "--rate", "20", "--duration", "1s", "--settle", "200ms")
	if len(r.Nodes) != 2 || len(r.LastClient) != 2 || r.Failed != 0 {
		t.Fatalf("implausible result %+v", r)
	}
	for i, n := range r.Nodes {
		if n.After.Connections != 20 || n.Broadcast.Count != 2*20 {
			t.Errorf("node %d: %v connections, %d broadcast deliveries; want 20 and 40", i+1, n.After.Connections, n.Broadcast.Count)
		}
	}
	if r.Published == 0 || r.CrossNode.Count == 0 {
		t.Errorf("%d published, %d delivered on the second node: nothing crossed Redis", r.Published, r.CrossNode.Count)
	}
}

// TestBenchClusterNeedsABackend: nodes without a shared backend are not a
// cluster, and the mode says so instead of measuring them.
func TestBenchClusterNeedsABackend(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bench", "cluster", "--backend", ""}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "--backend") {
		t.Fatalf("exit %d, stderr %q; want 1 and a word about --backend", code, stderr.String())
	}
}

// TestBenchClusterCleansUpItsBackend runs two nodes on the machine's Redis
// and on its NATS under a fresh prefix: once the run is over, nothing is
// left under that prefix (Redis keeps the node list and NATS the buckets
// when nobody removes them).
func TestBenchClusterCleansUpItsBackend(t *testing.T) {
	for _, name := range []string{"redis", "nats"} {
		t.Run(name, func(t *testing.T) {
			reach := machineBackend(t, name)
			prefix := "roost-bench-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			r := runSmallCluster(t, reach.NodeFlags(prefix))
			if r.Cleanup != "removed" {
				t.Errorf("backend_cleanup %q, want removed", r.Cleanup)
			}
			if left := leftUnder(t, reach, prefix); len(left) > 0 {
				t.Errorf("left under %s: %v", prefix, left)
			}
		})
	}
}

// TestBenchClusterLeavesAPrefixInUse: a prefix that held keys before the
// run may be another cluster's, and the bench removes nothing under it.
func TestBenchClusterLeavesAPrefixInUse(t *testing.T) {
	reach := machineBackend(t, "redis")
	prefix := "roost-bench-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	rdb := redisClient(t, reach.URL)
	foreign := prefix + ":someone-else"
	if err := rdb.Set(context.Background(), foreign, "1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, _ := backendStore(reach.NodeFlags(prefix)); b != nil {
			b.Purge(context.Background())
		}
	})
	r := runSmallCluster(t, reach.NodeFlags(prefix))
	if !strings.HasPrefix(r.Cleanup, "left alone") {
		t.Errorf("backend_cleanup %q, want left alone", r.Cleanup)
	}
	left := leftUnder(t, reach, prefix)
	if !slices.Contains(left, foreign) || len(left) < 2 {
		t.Errorf("left under %s: %v; want %s and what the nodes wrote", prefix, left, foreign)
	}
}

// machineBackend reaches the machine's Redis or NATS (the rows of
// testutil.Backends that use them).
func machineBackend(t *testing.T, name string) testutil.Reach {
	t.Helper()
	i := slices.IndexFunc(testutil.Backends, func(b testutil.Backend) bool { return b.Name == name })
	if i < 0 {
		t.Fatalf("no backend %q in testutil.Backends", name)
	}
	return testutil.Backends[i].Start(t)
}

type clusterCleanup struct {
	Cleanup string `json:"backend_cleanup"`
	Failed  int64  `json:"failed"`
}

// runSmallCluster runs `roost bench cluster` with two nodes of ten
// connections on the backend the flags name.
func runSmallCluster(t *testing.T, backend []string) clusterCleanup {
	t.Helper()
	var r clusterCleanup
	runBench(t, &r, "cluster", "--backend", strings.Join(backend, " "), "--nodes", "2", "--per-node", "10",
		"--broadcasts", "1", "--channels", "5", "--rate", "20", "--duration", "1s", "--settle", "200ms")
	return r
}

// leftUnder lists, straight from the backend, the Redis keys or NATS
// key-value streams whose names start with the prefix.
func leftUnder(t *testing.T, reach testutil.Reach, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if reach.PrefixFlag == "--redis-prefix" {
		keys, err := redisClient(t, reach.URL).Keys(ctx, prefix+":*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	nc, err := nats.Connect(reach.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	names := js.StreamNames(ctx)
	for name := range names.Name() {
		if strings.HasPrefix(name, "KV_"+prefix+"_") {
			left = append(left, name)
		}
	}
	if err := names.Err(); err != nil {
		t.Fatal(err)
	}
	return left
}

func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}
