package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// ClusterOptions configures Cluster.
type ClusterOptions struct {
	Common
	// Nodes is how many roost processes to start. Zero value means 3.
	Nodes int
	// PerNode is the subscribed connections each node holds (at most
	// ~19,000 under the 20,000-file limit). Zero value means 1,000.
	PerNode int
	// Backend are the `roost serve` flags every node gets, naming the
	// cluster's backend ("--redis-url redis://127.0.0.1:6379 --redis-prefix
	// x"); they are passed through, so any backend roost serves plugs in.
	// Empty is an error: K nodes without a backend are K separate servers.
	Backend []string
	// RampRate is new connections per second, over all nodes. Zero value
	// means 4,000.
	RampRate float64
	// Broadcasts is how many single publishes go to the channel every
	// connection shares. Zero value means 5.
	Broadcasts int
	// Channels is how many channels the steady publishing spreads over;
	// each connection also subscribes to one of them. Zero value means
	// 10,000.
	Channels int
	// Rate and Duration are the steady publishing. Zero values mean 1,000
	// per second for 20 s.
	Rate     float64
	Duration time.Duration
	// Publishers is the number of concurrent HTTP publishers. Zero value
	// means 64.
	Publishers int
	// Store is what the backend keeps under the cluster's prefix. When it
	// holds nothing before the run, the run removes what its nodes left
	// there once they have stopped; when it held something, another
	// cluster may be using the prefix, and it is left alone. Nil means no
	// cleanup.
	Store BackendStore
	// Cache makes the steady publishing's channels cache channels, whose
	// last event the backend stores (docs/cluster.md, "What a 200 means").
	// Zero value means plain public channels.
	Cache bool
}

// BackendStore is the shared state a cluster's backend keeps under the
// cluster's prefix: Redis keys, NATS buckets.
type BackendStore interface {
	// Kept names what is there now.
	Kept(ctx context.Context) ([]string, error)
	// Purge deletes it; called only once every node has stopped.
	Purge(ctx context.Context) error
}

// poolPrefix starts the names of the steady publishing's channels.
func (o *ClusterOptions) poolPrefix() string {
	if o.Cache {
		return "cache-" + PoolPrefix
	}
	return PoolPrefix
}

func (o *ClusterOptions) defaults() {
	o.Nodes = cmpOr(o.Nodes, 3)
	o.PerNode = cmpOr(o.PerNode, 1000)
	o.RampRate = cmpOr(o.RampRate, 4000)
	o.Broadcasts = cmpOr(o.Broadcasts, 5)
	o.Channels = cmpOr(o.Channels, 10000)
	o.Rate = cmpOr(o.Rate, 1000)
	o.Duration = cmpOr(o.Duration, 20*time.Second)
	o.Publishers = cmpOr(o.Publishers, 64)
}

// sharedChannel is the channel every connection of the cluster subscribes
// to, for the broadcast.
const sharedChannel = "bench-all"

// ClusterNode is one node's figures.
type ClusterNode struct {
	Target      Target `json:"target"`
	Connections int    `json:"connections"`
	// Before is the node before its connections, After once they are all
	// subscribed and settled; RSSPerConn is the slope between them, bytes.
	Before     Sample  `json:"before"`
	After      Sample  `json:"after"`
	RSSPerConn float64 `json:"rss_bytes_per_connection"`
	// Broadcast is the latency of the node's clients for the single
	// publishes, Steady for the steady publishing, in milliseconds.
	Broadcast Latency `json:"broadcast"`
	Steady    Latency `json:"steady"`
	// SteadyCores is the node's CPU while publishing steadily.
	SteadyCores float64 `json:"steady_cores"`
}

// Latency summarises a histogram, in milliseconds.
type Latency struct {
	Count uint64  `json:"count"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

func latency(h *Histogram) Latency {
	return Latency{Count: h.Count(), P50: ms(h.Percentile(50)), P99: ms(h.Percentile(99)), Max: ms(h.Max())}
}

// ClusterResult is what a cluster of nodes on one backend did.
type ClusterResult struct {
	Backend  string        `json:"backend"`
	Nodes    []ClusterNode `json:"nodes"`
	Channels int           `json:"channels"`
	// LastClient is, for each broadcast, the time until the last of all
	// the cluster's connections had it, ms.
	LastClient []float64 `json:"last_client_ms"`
	// Broadcast merges every node's broadcast latency.
	Broadcast Latency `json:"broadcast"`
	// Steady publishing: through node 1, so that the other nodes' clients
	// get every event across the backend (CrossNode merges them).
	Rate          float64 `json:"publish_rate"`
	Published     int64   `json:"published"`
	PublishErrors int64   `json:"publish_errors"`
	PublishError  string  `json:"publish_error,omitempty"`
	CrossNode     Latency `json:"cross_node"`
	// API is what node 1's HTTP API answered the steady publishes.
	API     APIAnswers `json:"api"`
	Failed  int64      `json:"failed"`
	Dropped int64      `json:"dropped"`
	// Cleanup says what became of the backend state the nodes left under
	// the prefix ("removed", or why it stays); empty without a Store.
	Cleanup string `json:"backend_cleanup,omitempty"`
}

// cluster is the running nodes and their fleets.
type cluster struct {
	servers []*Server
	fleets  []*Fleet
}

func (c *cluster) close() {
	for _, f := range c.fleets {
		f.Close()
	}
	for _, s := range c.servers {
		s.Stop()
	}
}

// Cluster starts K nodes on one backend, spreads subscribed connections
// over them (each node's from its own worker processes and source
// addresses), and measures each node's memory, a publish every connection
// shares, and steady publishing over many channels across the nodes. With
// a Store, it then removes what its nodes left in the backend.
func Cluster(ctx context.Context, o ClusterOptions) (*ClusterResult, error) {
	o.defaults()
	o.prepare()
	if len(o.Backend) == 0 {
		return nil, errors.New("bench: cluster needs --backend, the server flags of a shared backend (--redis-url ...)")
	}
	if o.Target.URL != "" {
		return nil, errors.New("bench: cluster starts its own nodes; --url is not supported")
	}
	r := &ClusterResult{Backend: strings.Join(o.Backend, " "), Channels: o.Channels, Rate: o.Rate}
	clean, err := checkStore(ctx, o.Store, r)
	if err != nil {
		return nil, err
	}
	err = runCluster(ctx, &o, r)
	if clean {
		r.Cleanup = cleanStore(o.Store)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// runCluster runs the nodes and their load, and stops them.
func runCluster(ctx context.Context, o *ClusterOptions, r *ClusterResult) error {
	c := &cluster{}
	defer c.close()
	pr := NewProgress(o.Progress)
	defer pr.Done()
	for _, step := range []func(context.Context, *ClusterOptions, *ClusterResult, *Progress) error{
		c.start, c.hold, c.broadcast, c.steady,
	} {
		if err := step(ctx, o, r, pr); err != nil {
			return err
		}
	}
	for _, f := range c.fleets {
		st := f.Status()
		r.Failed, r.Dropped = r.Failed+st.Failed, r.Dropped+st.Dropped
	}
	return nil
}

// checkStore reports whether the run may remove what it leaves under the
// prefix: only when nothing was there before it.
func checkStore(ctx context.Context, s BackendStore, r *ClusterResult) (bool, error) {
	if s == nil {
		return false, nil
	}
	kept, err := s.Kept(ctx)
	if err != nil {
		return false, fmt.Errorf("bench: backend: %w", err)
	}
	if len(kept) > 0 {
		r.Cleanup = fmt.Sprintf("left alone: %d keys or buckets (%s) were under the prefix before the run", len(kept), kept[0])
		return false, nil
	}
	return true, nil
}

// cleanStore removes what the stopped nodes left, even after a cancelled
// run, and says what it did.
func cleanStore(s BackendStore) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Purge(ctx); err != nil {
		return "not removed: " + err.Error()
	}
	return "removed"
}

// start starts the nodes and samples them before any connection.
func (c *cluster) start(ctx context.Context, o *ClusterOptions, r *ClusterResult, _ *Progress) error {
	for range o.Nodes {
		srv, err := StartServer(ctx, ServerOptions{Transport: o.Transport, ActivityTimeout: o.ActivityTimeout,
			Spawn: o.ServerSpawn, Stderr: o.Stderr, Args: o.Backend})
		if err != nil {
			return err
		}
		c.servers = append(c.servers, srv)
	}
	if err := sleep(ctx, o.Settle); err != nil {
		return err
	}
	for _, srv := range c.servers {
		s, err := NewProbe(srv.Target).Sample(ctx)
		if err != nil {
			return err
		}
		r.Nodes = append(r.Nodes, ClusterNode{Target: srv.Target, Connections: o.PerNode, Before: s})
	}
	return nil
}

// hold connects every node's clients, waits for them, and samples the
// nodes once they settle.
func (c *cluster) hold(ctx context.Context, o *ClusterOptions, r *ClusterResult, pr *Progress) error {
	workers := WorkersFor(o.PerNode)
	for i, srv := range c.servers {
		f, err := StartFleet(FleetConfig{URL: srv.WebSocketURL(), Workers: workers, FirstSource: 2 + i*workers,
			ChannelPool: o.Channels, PoolPrefix: o.poolPrefix(), ChannelOffset: i * o.PerNode, SpreadPool: true, Also: sharedChannel,
			Spawn: o.Spawn, Stderr: o.Stderr})
		if err != nil {
			return err
		}
		c.fleets = append(c.fleets, f)
		if err := f.Open(o.PerNode, o.RampRate/float64(o.Nodes)); err != nil {
			return err
		}
	}
	for i, f := range c.fleets {
		if err := ramp(ctx, f, pr, o.PerNode, o.RampRate/float64(o.Nodes)); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	if err := sleep(ctx, o.Settle); err != nil {
		return err
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		s, err := settle(ctx, NewProbe(n.Target), o.Settle, 10*o.Settle, func(s Sample) {
			pr.Printf("node %d settling: rss %s, %.0f connections", i+1, mb(s.RSS), s.Connections)
		})
		if err != nil {
			return err
		}
		n.After, n.RSSPerConn = s, (s.RSS-n.Before.RSS)/float64(o.PerNode)
	}
	return nil
}

// broadcast publishes single events to the channel every connection
// shares, one at a time, and records when each node's clients got them.
func (c *cluster) broadcast(ctx context.Context, o *ClusterOptions, r *ClusterResult, pr *Progress) error {
	if err := c.resetHistograms(ctx); err != nil {
		return err
	}
	all := make([]Histogram, len(c.fleets))
	var merged Histogram
	pub := newPublisher(c.servers[0].Target, sharedChannel, 1)
	for b := range o.Broadcasts {
		recv0 := c.received()
		pub.publish(ctx)
		if e := pub.lastErr.Load(); e != nil {
			return fmt.Errorf("bench: broadcast: %s", *e)
		}
		c.waitReceived(ctx, recv0+int64(o.Nodes*o.PerNode))
		var last Histogram
		for i, f := range c.fleets {
			h, err := f.Histogram(ctx)
			if err != nil {
				return err
			}
			all[i].Merge(h)
			last.Merge(h)
		}
		merged.Merge(&last)
		r.LastClient = append(r.LastClient, ms(last.Max()))
		pr.Printf("broadcast %d/%d: last client after %.1f ms", b+1, o.Broadcasts, ms(last.Max()))
	}
	for i := range r.Nodes {
		r.Nodes[i].Broadcast = latency(&all[i])
	}
	r.Broadcast = latency(&merged)
	return nil
}

// steady publishes at the rate to random channels of the pool through node
// 1, and records each node's latency and CPU.
func (c *cluster) steady(ctx context.Context, o *ClusterOptions, r *ClusterResult, pr *Progress) error {
	if err := c.resetHistograms(ctx); err != nil {
		return err
	}
	pub := newPublisher(c.servers[0].Target, "", o.Publishers)
	prefix := o.poolPrefix()
	pub.pick = func() string { return prefix + strconv.Itoa(rand.IntN(o.Channels)) }
	before := c.samples(ctx)
	recv0, start := c.received(), time.Now()
	var seconds []Latency
	done := make(chan struct{})
	go func() { defer close(done); pub.run(ctx, o.Rate, o.Duration, o.Publishers) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(time.Second):
			w := pub.answers.takeWindow()
			seconds = append(seconds, latency(&w))
			pr.Printf("steady %.0fs: %d published, %d delivered, %d errors; api p50 %.1f / max %.1f ms", time.Since(start).Seconds(),
				pub.sent.Load(), c.received()-recv0, pub.errs.Load(), ms(w.Percentile(50)), ms(w.Max()))
		}
	}
	r.API = pub.answers.summary(time.Since(start))
	r.API.Seconds = seconds
	after := c.samples(ctx)
	sleep(ctx, time.Second+2*statusEvery) // the last deliveries and worker reports
	r.Published, r.PublishErrors, r.PublishError = pub.sent.Load(), pub.errs.Load(), pub.lastError()
	var cross Histogram
	for i, f := range c.fleets {
		h, err := f.Histogram(ctx)
		if err != nil {
			return err
		}
		r.Nodes[i].Steady = latency(h)
		if before[i] != nil && after[i] != nil {
			r.Nodes[i].SteadyCores = cpuRate(*before[i], *after[i])
		}
		if i > 0 {
			cross.Merge(h)
		}
	}
	r.CrossNode = latency(&cross)
	return nil
}

// samples samples every node; nil where one failed.
func (c *cluster) samples(ctx context.Context) []*Sample {
	out := make([]*Sample, len(c.servers))
	for i, srv := range c.servers {
		if s, err := NewProbe(srv.Target).Sample(ctx); err == nil {
			out[i] = &s
		}
	}
	return out
}

// resetHistograms drops what the workers recorded so far.
func (c *cluster) resetHistograms(ctx context.Context) error {
	for _, f := range c.fleets {
		if _, err := f.Histogram(ctx); err != nil {
			return err
		}
	}
	return nil
}

// received sums the bench events every fleet received.
func (c *cluster) received() int64 {
	var n int64
	for _, f := range c.fleets {
		n += f.Status().Received
	}
	return n
}

// waitReceived waits up to 10 s for the fleets to report n events, then
// one more status period so every worker has reported.
func (c *cluster) waitReceived(ctx context.Context, n int64) {
	deadline := time.Now().Add(10 * time.Second)
	for c.received() < n && time.Now().Before(deadline) {
		if sleep(ctx, 50*time.Millisecond) != nil {
			return
		}
	}
	sleep(ctx, 2*statusEvery)
}

// DefaultBackend is the backend Cluster's command uses unless told
// otherwise: the local Redis, with a prefix of this process's own so that
// the bench never touches anyone else's keys.
func DefaultBackend() string {
	return "--redis-url redis://127.0.0.1:6379 --redis-prefix roost-bench-" + strconv.Itoa(os.Getpid())
}

// Table renders the result for people.
func (r *ClusterResult) Table() string {
	rows := [][2]string{{"backend", r.Backend}}
	for i, n := range r.Nodes {
		rows = append(rows, [2]string{fmt.Sprintf("node %d", i+1), fmt.Sprintf(
			"%.0f connections, rss %s -> %s (%s per connection); broadcast p50 %.1f / p99 %.1f ms; steady p50 %.1f / p99 %.1f ms, %.2f cores",
			n.After.Connections, mb(n.Before.RSS), mb(n.After.RSS), kb(n.RSSPerConn), n.Broadcast.P50, n.Broadcast.P99,
			n.Steady.P50, n.Steady.P99, n.SteadyCores)})
	}
	rows = append(rows,
		[2]string{"broadcast", fmt.Sprintf("%d publishes to all; last client after %s ms; all clients p50 %.1f / p99 %.1f ms",
			len(r.LastClient), floats(r.LastClient), r.Broadcast.P50, r.Broadcast.P99)},
		[2]string{"steady", fmt.Sprintf("%d published at %.0f/s over %d channels through node 1, %d errors %s",
			r.Published, r.Rate, r.Channels, r.PublishErrors, r.PublishError)},
		[2]string{"api", r.API.String()},
		[2]string{"cross-node", fmt.Sprintf("%d deliveries on nodes 2-%d: p50 %.1f / p99 %.1f / max %.1f ms",
			r.CrossNode.Count, len(r.Nodes), r.CrossNode.P50, r.CrossNode.P99, r.CrossNode.Max)},
		[2]string{"connections", fmt.Sprintf("%d failed, %d dropped", r.Failed, r.Dropped)},
	)
	if r.Cleanup != "" {
		rows = append(rows, [2]string{"backend state", r.Cleanup})
	}
	return table(rows)
}

// floats formats a list of milliseconds.
func floats(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.1f", x)
	}
	return strings.Join(parts, ", ")
}
