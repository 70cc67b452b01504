package bench

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/ws"
)

// Worker commands, one per line on the worker's stdin:
//
//	open N RATE   hold N ready connections, dialling at most RATE per second
//	churn RATE    connect, subscribe and disconnect RATE times per second
//	              (0 stops; --churn-bare leaves out the subscription)
//	hist          answer with the latency histogram, then reset it
//	quit          close every connection and exit (so does end of input)
//
// The worker answers with JSON lines on stdout: a WorkerStatus every
// statusEvery, and {"hist": ...} after each hist command.
const statusEvery = 250 * time.Millisecond

// maxInflight bounds the handshakes one worker has in progress, so that a
// fast ramp queues in the worker instead of in the server's accept backlog.
const maxInflight = 256

// WorkerStatus is a worker's (or, summed, a fleet's) counters.
type WorkerStatus struct {
	Live        int64  `json:"live"`         // connections dialling or open
	Ready       int64  `json:"ready"`        // subscribed and past one ping exchange
	Failed      int64  `json:"failed"`       // connections that failed before ready
	Dropped     int64  `json:"dropped"`      // ready connections the server closed
	Received    int64  `json:"received"`     // published bench events received
	Pings       int64  `json:"pings"`        // pusher:ping sent (pusher-js behaviour)
	ServerPings int64  `json:"server_pings"` // pusher:ping received and answered
	Handshakes  int64  `json:"handshakes"`   // churn handshakes completed
	ChurnFailed int64  `json:"churn_failed"` // churn handshakes that failed
	Activity    int64  `json:"activity"`     // activity_timeout the server announced, seconds
	Err         string `json:"err,omitempty"`
}

// add sums o into s; Activity and Err keep the first non-zero value.
func (s *WorkerStatus) add(o WorkerStatus) {
	s.Live += o.Live
	s.Ready += o.Ready
	s.Failed += o.Failed
	s.Dropped += o.Dropped
	s.Received += o.Received
	s.Pings += o.Pings
	s.ServerPings += o.ServerPings
	s.Handshakes += o.Handshakes
	s.ChurnFailed += o.ChurnFailed
	s.Activity = cmp0(s.Activity, o.Activity)
	if s.Err == "" {
		s.Err = o.Err
	}
}

func cmp0(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// workerConfig is what a worker is started with.
type workerConfig struct {
	url        string
	source     string
	id         int
	channels   int
	pool       int
	poolPrefix string // starts the names of the pool's channels
	offset     int64  // added to connection numbers when drawing from the pool
	also       string // a channel every connection subscribes to besides its own
	ping       time.Duration
	deflate    bool
	// churnBare has churned connections close right after
	// connection_established instead of subscribing first.
	churnBare bool
	// noRead has ready connections stop reading: a client that never
	// reads, whose backlog the server must bound.
	noRead bool
	tls    *tls.Config // for a wss:// URL; nil means the system's roots
	// xhr holds pusher-js xhr_streaming sessions instead of WebSockets.
	xhr bool
}

// histShards spreads latency recording over several locks.
const histShards = 16

// worker is one load process's state.
type worker struct {
	cfg    workerConfig
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}

	live, ready, failed, dropped, received      atomic.Int64
	pings, serverPings, handshakes, churnFailed atomic.Int64
	activity, target, seq                       atomic.Int64
	churnRate                                   atomic.Uint64 // float64 bits
	openRate                                    atomic.Uint64 // float64 bits
	lastErr                                     atomic.Pointer[string]

	mu      sync.Mutex // guards clients
	clients map[*ws.Client]struct{}
	hists   [histShards]struct {
		sync.Mutex
		h Histogram
	}
	outMu sync.Mutex // serialises lines on out
	out   *json.Encoder

	senderOnce sync.Once
	httpc      *http.Client // xhr_send's, for every xhr_streaming session
}

// RunWorker is `roost bench worker`: it parses args, obeys the commands on
// stdin and reports on stdout until told to quit. It returns the exit code.
func RunWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseWorkerFlags(args, stderr)
	if err != nil {
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &worker{cfg: cfg, ctx: ctx, cancel: cancel, sem: make(chan struct{}, maxInflight),
		clients: make(map[*ws.Client]struct{}), out: json.NewEncoder(stdout)}
	go w.reportLoop()
	go w.openLoop()
	go w.churnLoop()
	w.commands(stdin)
	w.shutdown()
	return 0
}

func parseWorkerFlags(args []string, stderr io.Writer) (workerConfig, error) {
	var c workerConfig
	fs := flag.NewFlagSet("bench worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "url", "", "WebSocket `URL` of the app endpoint")
	fs.StringVar(&c.source, "source", "", "source `IP` to dial from")
	fs.IntVar(&c.id, "id", 0, "worker number, for channel names")
	fs.IntVar(&c.channels, "channels", 1, "channels each connection subscribes to")
	fs.IntVar(&c.pool, "pool", 0, "draw channel names from this many shared channels (0: one per subscription)")
	fs.StringVar(&c.poolPrefix, "pool-prefix", PoolPrefix, "start the names of the pool's channels with this")
	fs.Int64Var(&c.offset, "offset", 0, "add this to connection numbers when drawing channels from the pool")
	fs.StringVar(&c.also, "also", "", "a `channel` every connection subscribes to as well")
	fs.DurationVar(&c.ping, "ping", 0, "send pusher:ping after this much silence (0: the server's activity_timeout)")
	fs.BoolVar(&c.deflate, "deflate", false, "offer permessage-deflate")
	fs.BoolVar(&c.churnBare, "churn-bare", false, "churn without subscribing: connect and close only")
	fs.BoolVar(&c.noRead, "no-read", false, "ready connections never read again")
	fs.BoolVar(&c.xhr, "xhr-streaming", false, "hold pusher-js xhr_streaming sessions instead of WebSockets")
	caFile := fs.String("ca", "", "PEM `file` of certificates to trust for a wss:// URL")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var err error
	if c.tls, err = clientTLS(*caFile); err != nil {
		return c, err
	}
	if c.url == "" {
		fmt.Fprintln(stderr, "bench worker: --url is required")
		return c, flag.ErrHelp
	}
	return c, nil
}

// commands reads command lines until quit or end of input.
func (w *worker) commands(stdin io.Reader) {
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if f[0] == "quit" {
			return
		}
		if err := w.command(f); err != nil {
			w.setErr(err)
		}
	}
}

func (w *worker) command(f []string) error {
	switch {
	case f[0] == "open" && len(f) == 3:
		n, err1 := strconv.ParseInt(f[1], 10, 64)
		rate, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad command %q", strings.Join(f, " "))
		}
		w.openRate.Store(math.Float64bits(rate))
		w.target.Store(n)
	case f[0] == "churn" && len(f) == 2:
		rate, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return fmt.Errorf("bad command %q", strings.Join(f, " "))
		}
		w.churnRate.Store(math.Float64bits(rate))
	case f[0] == "hist":
		w.sendHist()
	default:
		return fmt.Errorf("unknown command %q", strings.Join(f, " "))
	}
	return nil
}

// shutdown stops every loop and closes every connection.
func (w *worker) shutdown() {
	w.cancel()
	w.mu.Lock()
	for c := range w.clients {
		c.Close()
	}
	w.mu.Unlock()
	w.writeLine(w.status())
}

func (w *worker) setErr(err error) {
	s := err.Error()
	w.lastErr.Store(&s)
}

func (w *worker) status() WorkerStatus {
	s := WorkerStatus{
		Live: w.live.Load(), Ready: w.ready.Load(), Failed: w.failed.Load(), Dropped: w.dropped.Load(),
		Received: w.received.Load(), Pings: w.pings.Load(), ServerPings: w.serverPings.Load(),
		Handshakes: w.handshakes.Load(), ChurnFailed: w.churnFailed.Load(), Activity: w.activity.Load(),
	}
	if e := w.lastErr.Load(); e != nil {
		s.Err = *e
	}
	return s
}

func (w *worker) writeLine(v any) {
	w.outMu.Lock()
	defer w.outMu.Unlock()
	w.out.Encode(v)
}

func (w *worker) reportLoop() {
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
			w.writeLine(w.status())
		}
	}
}

// histLine is the reply to the hist command.
type histLine struct {
	Hist *Histogram `json:"hist"`
}

func (w *worker) sendHist() {
	var all Histogram
	for i := range w.hists {
		s := &w.hists[i]
		s.Lock()
		all.Merge(&s.h)
		s.h = Histogram{}
		s.Unlock()
	}
	w.writeLine(histLine{Hist: &all})
}

func (w *worker) record(shard int64, latency int64) {
	s := &w.hists[shard%histShards]
	s.Lock()
	s.h.Record(latency)
	s.Unlock()
}

// pace calls f rate times per second (read from rate on every tick) until
// the worker stops; ok is false when f should not run now.
func (w *worker) pace(rate *atomic.Uint64, f func() bool) {
	const tick = 10 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	credit := 0.0
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
		r := math.Float64frombits(rate.Load())
		credit = min(credit+r*tick.Seconds(), max(r*tick.Seconds(), 1)*2)
		for credit >= 1 && f() {
			credit--
		}
	}
}

// openLoop dials until target connections are live, at the open rate.
func (w *worker) openLoop() {
	w.pace(&w.openRate, func() bool {
		if w.live.Load() >= w.target.Load() {
			return false
		}
		select {
		case w.sem <- struct{}{}:
		default:
			return false
		}
		w.live.Add(1)
		if w.cfg.xhr {
			go w.runStream()
		} else {
			go w.runConn()
		}
		return true
	})
}

// churnLoop connects and disconnects at the churn rate.
func (w *worker) churnLoop() {
	w.pace(&w.churnRate, func() bool {
		select {
		case w.sem <- struct{}{}:
		default:
			return false
		}
		go w.churnOnce()
		return true
	})
}
