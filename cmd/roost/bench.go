package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/roostproject/roost/internal/bench"
)

const benchUsage = `usage: roost bench <mode> [flags]

modes:
  idle     hold N subscribed idle connections; report RSS and CPU per connection
  fanout   S subscribers on one channel; report CPU per delivered message and latency
  churn    connect, subscribe, close at a rate; report cycles per second per core
  webhook  presence load with webhooks off, then on (to a receiver run here); report
           CPU per delivered webhook event and memory per queued event
  cluster  K nodes on one backend (--backend: server flags, Redis by default); report
           RSS per node, a publish all connections share, steady cross-node latency
  nonreaders
           N subscribers that never read, fed events; report RSS, heap, kernel TCP
           memory, connections shed as slow (4100) and a reading canary's latency
  listing  K channels, then C signed GET /channels at a time; report a reading
           canary's latency before and while listing
  report   run everything on the default transport, then the portable one, and write
           docs/bench (takes ~9 minutes)

Without --url each mode starts its own roost (a child process). Run
'roost bench <mode> -h' for a mode's flags.
`

// benchCmd runs `roost bench`.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, benchUsage)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "worker":
		return bench.RunWorker(args[1:], os.Stdin, stdout, stderr)
	case "idle":
		return benchIdle(ctx, args[1:], stdout, stderr)
	case "fanout":
		return benchFanout(ctx, args[1:], stdout, stderr)
	case "churn":
		return benchChurn(ctx, args[1:], stdout, stderr)
	case "webhook":
		return benchWebhook(ctx, args[1:], stdout, stderr)
	case "cluster":
		return benchCluster(ctx, args[1:], stdout, stderr)
	case "nonreaders":
		return benchNonReaders(ctx, args[1:], stdout, stderr)
	case "listing":
		return benchListing(ctx, args[1:], stdout, stderr)
	case "report":
		return benchReport(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, benchUsage)
		return 0
	}
	fmt.Fprintf(stderr, "roost bench: unknown mode %q\n%s", args[0], benchUsage)
	return 2
}

// modeFlags makes the flag set of `roost bench mode` with the flags every
// mode shares; the bool is --json.
func modeFlags(mode string, c *bench.Common) (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet("bench "+mode, flag.ContinueOnError)
	fs.StringVar(&c.Target.URL, "url", "", "server `URL` (http://host:port); empty starts a roost child process")
	fs.StringVar(&c.Target.AppID, "app-id", "app-id", "app id (for publishing)")
	fs.StringVar(&c.Target.Key, "key", "app-key", "app key")
	fs.StringVar(&c.Target.Secret, "secret", "app-secret", "app secret (for publishing)")
	fs.IntVar(&c.Target.PID, "pid", 0, "server process id for the /proc cross-check (default: found when local)")
	fs.StringVar(&c.Transport, "transport", bench.DefaultTransport, "transport of the child server: auto (what roost serve picks), epoll, epoll+uring or portable")
	fs.BoolVar(&c.TLS, "tls", false, "the child server serves wss:// itself, with a self-signed certificate")
	fs.DurationVar(&c.ActivityTimeout, "activity-timeout", 0, "activity timeout of the child server (default 120s)")
	fs.DurationVar(&c.Settle, "settle", 3*time.Second, "least time to let the server settle before measuring")
	fs.BoolVar(&c.Deflate, "deflate", false, "clients offer permessage-deflate; a child server's app accepts it")
	return fs, fs.Bool("json", false, "print the result as JSON")
}

// parseMode parses a mode's flags and prepares the shared options.
func parseMode(fs *flag.FlagSet, args []string, c *bench.Common, stderr io.Writer) bool {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return false
	}
	c.Progress, c.Stderr = stderr, stderr
	return true
}

// finish ends a mode's run: its error, under the mode's name, or its
// result, as JSON or as its table.
func finish[R interface{ Table() string }](mode string, r R, err error, asJSON bool, stdout, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "roost bench %s: %v\n", mode, err)
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(r)
		return 0
	}
	fmt.Fprint(stdout, r.Table())
	return 0
}

func benchIdle(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.IdleOptions
	fs, asJSON := modeFlags("idle", &o.Common)
	fs.IntVar(&o.Connections, "n", 1000, "connections to hold")
	fs.Float64Var(&o.Rate, "rate", 2000, "new connections per second during the ramp")
	fs.IntVar(&o.Channels, "channels", 1, "channels each connection subscribes to")
	fs.IntVar(&o.SharedChannels, "shared-channels", 0, "draw the channels from this many shared ones (0: each connection its own)")
	fs.DurationVar(&o.Hold, "hold", 60*time.Second, "measurement window once all connections are ready")
	fs.DurationVar(&o.Baseline, "baseline", 10*time.Second, "CPU window before connecting")
	fs.DurationVar(&o.Ping, "ping", 0, "client ping interval (default: the server's activity_timeout)")
	client := fs.String("client-transport", "ws", "what the clients hold: ws, or xhr_streaming (pusher-js's HTTP fallback)")
	if !parseMode(fs, args, &o.Common, stderr) {
		return 2
	}
	switch *client {
	case "ws":
	case "xhr_streaming":
		o.XHRStreaming = true
	default:
		fmt.Fprintf(stderr, "roost bench idle: --client-transport %q: want ws or xhr_streaming\n", *client)
		return 2
	}
	r, err := bench.Idle(ctx, o)
	return finish("idle", r, err, *asJSON, stdout, stderr)
}

func benchFanout(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.FanoutOptions
	fs, asJSON := modeFlags("fanout", &o.Common)
	fs.IntVar(&o.Subscribers, "subscribers", 15000, "subscribers on the one channel")
	fs.Float64Var(&o.Rate, "rate", 10, "publishes per second")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "how long to publish")
	fs.Float64Var(&o.RampRate, "ramp", 4000, "new connections per second while subscribing")
	fs.IntVar(&o.Publishers, "publishers", 4, "concurrent HTTP publishers")
	fs.StringVar(&o.PublishURL, "publish-url", "", "publish through this other cluster node (http://host:port) instead of --url")
	fs.IntVar(&o.DataBytes, "data-bytes", 0, "pad each event's data to about this many bytes (0: a 19-byte timestamp)")
	if !parseMode(fs, args, &o.Common, stderr) {
		return 2
	}
	r, err := bench.Fanout(ctx, o)
	return finish("fanout", r, err, *asJSON, stdout, stderr)
}

func benchChurn(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.ChurnOptions
	fs, asJSON := modeFlags("churn", &o.Common)
	fs.Float64Var(&o.Rate, "rate", 2000, "connect + subscribe + close cycles per second")
	fs.BoolVar(&o.Bare, "bare", false, "connect and close without subscribing (the older measurement)")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "how long to churn")
	fs.IntVar(&o.Workers, "workers", 2, "load processes")
	if !parseMode(fs, args, &o.Common, stderr) {
		return 2
	}
	r, err := bench.Churn(ctx, o)
	return finish("churn", r, err, *asJSON, stdout, stderr)
}

func benchWebhook(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.WebhookOptions
	fs, asJSON := modeFlags("webhook", &o.Common)
	fs.Float64Var(&o.Rate, "rate", 200, "presence cycles per second (subscribe, client event, unsubscribe: 5 webhook events each)")
	fs.DurationVar(&o.Warmup, "warmup", 5*time.Second, "load before the CPU window")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "CPU window of each run")
	fs.DurationVar(&o.QueueFor, "queue-for", 10*time.Second, "how long the receiver stops answering, to measure queued events")
	fs.IntVar(&o.Rounds, "rounds", 1, "pairs of runs (webhooks off, then on)")
	serverBin := fs.String("server-bin", "", "run the servers from this roost `binary` (another build) instead of this one")
	backend := fs.String("backend", "", "`flags` of `roost serve` naming a cluster backend each server joins (--redis-url ...); each round then runs webhooks on with the durable outbox off and on")
	if !parseMode(fs, args, &o.Common, stderr) {
		return 2
	}
	serverBinary(&o.Common, *serverBin)
	o.Backend = strings.Fields(*backend)
	r, err := bench.Webhook(ctx, o)
	return finish("webhook", r, err, *asJSON, stdout, stderr)
}

func benchCluster(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.ClusterOptions
	fs, asJSON := modeFlags("cluster", &o.Common)
	backend := fs.String("backend", bench.DefaultBackend(), "`flags` of `roost serve` that every node gets, naming the shared backend")
	fs.IntVar(&o.Nodes, "nodes", 3, "roost processes to start")
	fs.IntVar(&o.PerNode, "per-node", 1000, "subscribed connections per node (at most ~19,000 under the 20,000-file limit)")
	fs.Float64Var(&o.RampRate, "ramp", 4000, "new connections per second, all nodes together")
	fs.IntVar(&o.Broadcasts, "broadcasts", 5, "single publishes to the channel every connection shares")
	fs.IntVar(&o.Channels, "channels", 10000, "channels of the steady publishing (each connection subscribes to one)")
	fs.Float64Var(&o.Rate, "rate", 1000, "steady publishes per second, through node 1")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "how long to publish steadily")
	fs.IntVar(&o.Publishers, "publishers", 64, "concurrent HTTP publishers")
	fs.BoolVar(&o.Cache, "cache", false, "publish steadily to cache channels, whose last event the backend stores")
	serverBin := fs.String("server-bin", "", "run the nodes from this roost `binary` (another build) instead of this one")
	if !parseMode(fs, args, &o.Common, stderr) {
		return 2
	}
	serverBinary(&o.Common, *serverBin)
	o.Backend = strings.Fields(*backend)
	store, err := backendStore(o.Backend)
	if err != nil {
		fmt.Fprintln(stderr, "roost bench cluster:", err)
		return 2
	}
	o.Store = store
	r, err := bench.Cluster(ctx, o)
	return finish("cluster", r, err, *asJSON, stdout, stderr)
}

func benchNonReaders(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.NonReadersOptions
	fs, asJSON := modeFlags("nonreaders", &o.Common)
	fs.IntVar(&o.NonReaders, "n", 200, "subscribers that never read, all on one channel")
	fs.IntVar(&o.Workers, "workers", 4, "least worker processes (and source addresses from 127.0.0.2) they come from")
	fs.Float64Var(&o.Rate, "rate", 500, "events per second to their channel")
	fs.IntVar(&o.DataBytes, "data-bytes", 500, "pad each event's data to about this many bytes")
	fs.DurationVar(&o.Duration, "duration", 30*time.Second, "how long to publish")
	fs.DurationVar(&o.After, "after", 10*time.Second, "how long to keep sampling after publishing")
	setServer := canaryFlags(fs, &o.Common, &o.Canaries)
	if !parseMode(fs, args, &o.Common, stderr) {
		return 2
	}
	setServer()
	r, err := bench.NonReaders(ctx, o)
	return finish("nonreaders", r, err, *asJSON, stdout, stderr)
}

func benchListing(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.ListingOptions
	fs, asJSON := modeFlags("listing", &o.Common)
	fs.IntVar(&o.Channels, "channels", 10000, "channels on the server, one subscriber each")
	fs.IntVar(&o.PerConnection, "per-connection", 100, "channels per connection (at most limits.max_subscriptions_per_connection)")
	fs.IntVar(&o.Requests, "requests", 200, "listings to make")
	fs.IntVar(&o.Concurrency, "concurrency", 10, "listings at a time")
	fs.StringVar(&o.Query, "query", "", "the listing's `query`, less the signature (filter_by_prefix=...&info=subscription_count)")
	fs.DurationVar(&o.Baseline, "baseline", 10*time.Second, "the canary's window before listing")
	setServer := canaryFlags(fs, &o.Common, &o.Canaries)
	if !parseMode(fs, args, &o.Common, stderr) {
		return 2
	}
	setServer()
	r, err := bench.Listing(ctx, o)
	return finish("listing", r, err, *asJSON, stdout, stderr)
}

// canaryFlags registers the flags the modes with a canary share: the
// canary's connections, and the binary and environment of the child
// server, which the function returned sets in c once the flags are parsed.
func canaryFlags(fs *flag.FlagSet, c *bench.Common, canaries *int) func() {
	fs.IntVar(canaries, "canaries", 4, "reading connections of the canary")
	bin := fs.String("server-bin", "", "run the server from this roost `binary` (another build) instead of this one")
	env := fs.String("server-env", "", "space-separated NAME=value `settings` for the child server (ROOST_WRITE_BACKLOG_TOTAL=32MiB)")
	return func() {
		serverBinary(c, *bin)
		c.ServerEnv = strings.Fields(*env)
	}
}

// serverBinary has c's child servers run from bin, a roost binary, when it
// is set.
func serverBinary(c *bench.Common, bin string) {
	if bin != "" {
		c.ServerSpawn = bench.BinaryServer(bin)
	}
}

func benchReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o bench.ReportOptions
	fs := flag.NewFlagSet("bench report", flag.ContinueOnError)
	fs.StringVar(&o.Out, "out", "docs", "write the results to `DIR`/bench")
	steps := fs.String("steps", "0,5000,10000,15000,19000", "idle connection counts")
	transports := fs.String("transports", bench.DefaultTransport+",portable", "transports, the first measured against the others")
	fs.DurationVar(&o.ActivityTimeout, "activity-timeout", 10*time.Second, "servers' activity timeout (CPU is scaled to 120s)")
	fs.DurationVar(&o.Window, "window", 0, "CPU window per step (default three activity timeouts)")
	fs.Float64Var(&o.RampRate, "ramp", 4000, "new connections per second")
	fs.DurationVar(&o.Settle, "settle", 3*time.Second, "least time to let a server settle before measuring")
	fs.IntVar(&o.Fanout.Subscribers, "subscribers", 15000, "fan-out subscribers on one channel")
	fs.Float64Var(&o.Fanout.Rate, "fanout-rate", 5, "fan-out publishes per second")
	fs.DurationVar(&o.Fanout.Duration, "fanout-duration", 20*time.Second, "fan-out publishing time")
	fs.Float64Var(&o.Churn.Rate, "churn-rate", 2000, "churn connect-and-disconnect cycles per second")
	fs.DurationVar(&o.Churn.Duration, "churn-duration", 15*time.Second, "churn time")
	from := fs.String("from", "", "render the tables and chart again from this `report.json`, measuring nothing")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *from != "" {
		return rerender(*from, o.Out, stdout, stderr)
	}
	var err error
	if o.Steps, err = parseInts(*steps); err != nil {
		fmt.Fprintln(stderr, "roost bench report: --steps:", err)
		return 2
	}
	o.Transports = strings.Split(*transports, ",")
	o.Command = "roost bench report " + strings.Join(args, " ")
	o.Progress, o.Stderr = stderr, stderr
	r, err := bench.RunReport(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "roost bench report:", err)
		return 1
	}
	fmt.Fprint(stdout, r.Markdown())
	return 0
}

// parseInts parses a comma-separated list of non-negative integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a connection count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// rerender writes the tables and chart of an existing report.json.
func rerender(from, out string, stdout, stderr io.Writer) int {
	r, err := bench.LoadReport(from)
	if err == nil {
		err = r.Write(filepath.Join(out, "bench"))
	}
	if err != nil {
		fmt.Fprintln(stderr, "roost bench report:", err)
		return 1
	}
	fmt.Fprint(stdout, r.Markdown())
	return 0
}
