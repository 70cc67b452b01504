package bench

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// NonReadersOptions configures NonReaders.
type NonReadersOptions struct {
	Common
	// NonReaders is how many connections subscribe to one channel and then
	// never read. Zero value means 200.
	NonReaders int
	// Workers is the least number of worker processes (and source
	// addresses 127.0.0.2 on) they come from. Zero value means 4.
	Workers int
	// Rate is events per second published to the non-readers' channel.
	// Zero value means 500.
	Rate float64
	// DataBytes pads each event's data to about this many bytes. Zero
	// value means 500.
	DataBytes int
	// Duration of publishing. Zero value means 30 s.
	Duration time.Duration
	// After is how long to keep sampling once publishing stops. Zero value
	// means 10 s.
	After time.Duration
	// Canaries is how many reading connections the canary has. Zero value
	// means 4 (on a 2-core machine, some on each event loop).
	Canaries int
}

func (o *NonReadersOptions) defaults() {
	o.NonReaders = cmpOr(o.NonReaders, 200)
	o.Workers = max(cmpOr(o.Workers, 4), WorkersFor(o.NonReaders))
	o.Rate = cmpOr(o.Rate, 500)
	o.DataBytes = cmpOr(o.DataBytes, 500)
	o.Duration = cmpOr(o.Duration, 30*time.Second)
	o.After = cmpOr(o.After, 10*time.Second)
	o.Canaries = cmpOr(o.Canaries, 4)
}

// Peaks are the highest figures seen over a stretch of samples, in bytes.
type Peaks struct {
	RSS       float64 `json:"rss"`
	HeapInuse float64 `json:"heap_inuse"`
	// TCPMemory is the kernel's memory for every TCP socket of the
	// machine (ReadTCPMemory); the non-readers' own receive buffers are
	// part of it.
	TCPMemory float64 `json:"tcp_memory"`
	// Backlog is what the server said it held queued for slow clients
	// (roost_write_backlog_bytes; zero when it does not say).
	Backlog float64 `json:"write_backlog"`
}

// NonReadersResult is what clients that never read cost the server, and
// what they did to a healthy subscriber.
type NonReadersResult struct {
	Target     Target  `json:"target"`
	Transport  string  `json:"transport"`
	NonReaders int     `json:"non_readers"`
	Workers    int     `json:"workers"`
	Rate       float64 `json:"publish_rate"`
	DataBytes  int     `json:"data_bytes"`
	Seconds    float64 `json:"seconds"`
	Published  int64   `json:"published"`
	PublishErr int64   `json:"publish_errors"`
	// Idle is the state with every non-reader subscribed, before
	// publishing; Load the peaks while publishing; After the peaks in the
	// After window that follows it, End its last sample.
	Idle  Peaks `json:"idle"`
	Load  Peaks `json:"load"`
	After Peaks `json:"after"`
	End   Peaks `json:"end"`
	// Shed counts connections the server closed as slow (4100) while
	// publishing and after, counted when released: a client that does not
	// read is released at the close deadline (limits.handshake_timeout)
	// after its 4100. FirstShed is when the first was seen, from the start
	// of publishing (zero: none).
	Shed      float64 `json:"shed"`
	FirstShed float64 `json:"first_shed_s"`
	// Canary latency before publishing and while publishing.
	CanaryIdle Latency `json:"canary_idle"`
	CanaryLoad Latency `json:"canary_load"`
}

// NonReaders subscribes connections that never read to one channel,
// publishes to it at a rate, and reports the server's memory (RSS, heap,
// the kernel's TCP memory), how many it shed as slow, and the latency of a
// canary that reads, on a channel of its own.
func NonReaders(ctx context.Context, o NonReadersOptions) (*NonReadersResult, error) {
	o.defaults()
	t, f, done, err := o.open(ctx, o.fleet)
	if err != nil {
		return nil, err
	}
	defer done()
	if o.Stderr != nil {
		fmt.Fprintf(o.Stderr, "bench nonreaders: server %s, pid %d\n", t.URL, t.PID)
	}
	cy, err := startCanary(ctx, &o.Common, t, o.Canaries)
	if err != nil {
		return nil, err
	}
	defer cy.stop()
	return runNonReaders(ctx, &o, t, f, cy)
}

// fleet is the non-readers on the one channel of t.
func (o *NonReadersOptions) fleet(t Target) FleetConfig {
	cfg := o.fleetBase(t)
	cfg.Workers, cfg.ChannelPool, cfg.NoRead = o.Workers, 1, true
	return cfg
}

func runNonReaders(ctx context.Context, o *NonReadersOptions, t Target, f *Fleet, cy *canary) (*NonReadersResult, error) {
	p := NewProbe(t)
	pr := NewProgress(o.Progress)
	defer pr.Done()
	if err := ramp(ctx, f, pr, o.NonReaders, 2000); err != nil {
		return nil, err
	}
	r := &NonReadersResult{Target: t, NonReaders: o.NonReaders, Workers: o.Workers, Rate: o.Rate, DataBytes: o.DataBytes,
		Seconds: o.Duration.Seconds()}
	if _, err := cy.window(ctx); err != nil { // drop the ramp's
		return nil, err
	}
	w := &watch{p: p, pr: pr}
	if err := w.run(ctx, o.Settle, "idle", &r.Idle); err != nil {
		return nil, err
	}
	r.Transport = w.last.Transport
	var err error
	if r.CanaryIdle, err = cy.window(ctx); err != nil {
		return nil, err
	}
	if err := publishToNonReaders(ctx, o, t, w, r); err != nil {
		return nil, err
	}
	if r.CanaryLoad, err = cy.window(ctx); err != nil {
		return nil, err
	}
	if err := w.run(ctx, o.After, "after", &r.After); err != nil {
		return nil, err
	}
	r.Shed, r.End, r.FirstShed = w.shed-w.shed0, w.now, w.firstShed.Seconds()
	return r, nil
}

// publishToNonReaders publishes for the duration while watching the peaks.
func publishToNonReaders(ctx context.Context, o *NonReadersOptions, t Target, w *watch, r *NonReadersResult) error {
	pub := newPublisher(t, fanoutChannel, 4)
	pub.pad = padding(o.DataBytes)
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); pub.run(pctx, o.Rate, o.Duration, 4) }()
	w.start = time.Now()
	err := w.run(ctx, o.Duration, "publishing", &r.Load)
	cancel()
	<-done
	r.Published, r.PublishErr = pub.sent.Load(), pub.errs.Load()
	return err
}

// watch samples a server once a second and keeps the peaks and the count
// of connections closed as slow.
type watch struct {
	p  *Probe
	pr *Progress

	last         Sample
	now          Peaks   // the figures of the last sample
	shed0, shed  float64 // roost_connections_closed_total{reason="slow_consumer"}: first seen, latest
	started      bool
	start        time.Time     // when publishing began
	firstShed    time.Duration // from start to the first shed seen
	firstShedSet bool
}

// run samples for d into peaks.
func (w *watch) run(ctx context.Context, d time.Duration, phase string, peaks *Peaks) error {
	end := time.Now().Add(d)
	for {
		if err := w.sample(ctx, peaks); err != nil {
			return err
		}
		w.pr.Printf("%s: rss %s, heap %s, kernel TCP %s, backlog %s, %.0f shed, %.0f connections", phase,
			mb(w.last.RSS), mb(w.last.HeapInuse), mb(peaks.TCPMemory), mb(peaks.Backlog), w.shed-w.shed0, w.last.Connections)
		left := time.Until(end)
		if left <= 0 {
			return nil
		}
		if err := sleep(ctx, min(left, time.Second)); err != nil {
			return err
		}
	}
}

func (w *watch) sample(ctx context.Context, peaks *Peaks) error {
	s, err := w.p.Sample(ctx)
	if err != nil {
		return err
	}
	m, err := Scrape(ctx, w.p.Client, w.p.Target.URL+"/metrics")
	if err != nil {
		return err
	}
	w.last = s
	tcp, _ := ReadTCPMemory()
	backlog, _ := m.Sum("roost_write_backlog_bytes")
	w.now = Peaks{RSS: s.RSS, HeapInuse: s.HeapInuse, TCPMemory: tcp, Backlog: backlog}
	peaks.RSS = max(peaks.RSS, s.RSS)
	peaks.HeapInuse = max(peaks.HeapInuse, s.HeapInuse)
	peaks.TCPMemory = max(peaks.TCPMemory, tcp)
	peaks.Backlog = max(peaks.Backlog, backlog)
	w.countShed(m)
	return nil
}

// countShed reads the slow closes from m.
func (w *watch) countShed(m Metrics) {
	var slow float64
	for series, v := range m {
		if strings.HasPrefix(series, "roost_connections_closed_total{") && strings.Contains(series, `reason="slow_consumer"`) {
			slow += v
		}
	}
	if !w.started {
		w.shed0, w.started = slow, true
	}
	if slow > w.shed && !w.firstShedSet && !w.start.IsZero() {
		w.firstShed, w.firstShedSet = time.Since(w.start), true
	}
	w.shed = slow
}

// Table renders the result for people.
func (r *NonReadersResult) Table() string {
	peaks := func(p Peaks) string {
		return fmt.Sprintf("rss %s, heap %s, kernel TCP %s, backlog %s", mb(p.RSS), mb(p.HeapInuse), mb(p.TCPMemory), mb(p.Backlog))
	}
	return table([][2]string{
		{"server", fmt.Sprintf("%s (transport %s, pid %d)", r.Target.URL, r.Transport, r.Target.PID)},
		{"non-readers", fmt.Sprintf("%d on one channel, from %d worker processes", r.NonReaders, r.Workers)},
		{"published", fmt.Sprintf("%d events of ~%d B at %.0f/s over %.0f s, %d errors", r.Published, r.DataBytes, r.Rate, r.Seconds, r.PublishErr)},
		{"idle (peak)", peaks(r.Idle)},
		{"publishing (peak)", peaks(r.Load)},
		{"after (peak)", peaks(r.After)},
		{"at the end", peaks(r.End)},
		{"closed as slow (4100)", fmt.Sprintf("%.0f, the first released %.1f s into publishing", r.Shed, r.FirstShed)},
		{"canary before", r.CanaryIdle.String()},
		{"canary publishing", r.CanaryLoad.String()},
	})
}
