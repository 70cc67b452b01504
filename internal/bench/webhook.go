package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// WebhookOptions configures Webhook.
type WebhookOptions struct {
	Common
	// Rate of presence cycles per second (each makes EventsPerCycle webhook
	// events). Zero value means 200.
	Rate float64
	// Warmup is how long the load runs before the CPU window, so that the
	// delayed events (3 s) flow as steadily as the others. Zero value means
	// 5 s.
	Warmup time.Duration
	// Duration is the CPU window. Zero value means 20 s.
	Duration time.Duration
	// QueueFor is how long the receiver stops answering, with the load
	// running, to measure the memory of queued events. Zero value means
	// 10 s.
	QueueFor time.Duration
	// Rounds is how many times the pair of runs (webhooks off, then on) is
	// measured. Zero value means 1.
	Rounds int
}

func (o *WebhookOptions) defaults() {
	o.Rate = cmpOr(o.Rate, 200)
	o.Warmup = cmpOr(o.Warmup, 5*time.Second)
	o.Duration = cmpOr(o.Duration, 20*time.Second)
	o.QueueFor = cmpOr(o.QueueFor, 10*time.Second)
	o.Rounds = cmpOr(o.Rounds, 1)
}

// WebhookRun is one server run under the presence load.
type WebhookRun struct {
	Webhooks bool `json:"webhooks"`
	// Cycles are the presence cycles made in the window, Events the webhook
	// events the receiver got in it (signature checked).
	Cycles int64   `json:"cycles"`
	Events int64   `json:"events"`
	Cores  float64 `json:"cores"`
	// LatencyP50 and LatencyP99 are the median and 99th percentile of the
	// time, ms, from a client event's sending to its webhook's arrival, over
	// the window (webhook runs only).
	LatencyP50 float64 `json:"latency_p50_ms,omitempty"`
	LatencyP99 float64 `json:"latency_p99_ms,omitempty"`
	// LoadErrors counts cycles that failed (LoadError is the last).
	LoadErrors int64     `json:"load_errors"`
	LoadError  string    `json:"load_error,omitempty"`
	Window     [2]Sample `json:"window"`
	// Queue is the server after a forced GC when the receiver stopped
	// answering and QueueFor later (webhook runs only).
	Queue *[2]Sample `json:"queue,omitempty"`
}

// WebhookResult is what an app's webhooks cost the server: CPU per
// delivered event, against the same load with webhooks off in the same
// run, and memory per queued event.
type WebhookResult struct {
	Transport string       `json:"transport"`
	Rate      float64      `json:"cycles_per_s"`
	Runs      []WebhookRun `json:"runs"`
	// BadRequests counts requests whose signature or body the receiver
	// refused: a correct server has none.
	BadRequests int64 `json:"bad_requests"`
	// OffCores and OnCores are the mean server CPU of the runs without and
	// with webhooks, in cores; EventsPerSecond is the events delivered per
	// second with webhooks on.
	OffCores        float64 `json:"off_cores"`
	OnCores         float64 `json:"on_cores"`
	EventsPerSecond float64 `json:"events_per_s"`
	// CPUPerEvent is the extra server CPU per delivered webhook event, µs:
	// the median of PerRound, each round's on run against its off run
	// (measured back to back, so that the machine's other load drifts
	// less between them). A negative figure is noise larger than the cost.
	CPUPerEvent float64 `json:"cpu_us_per_event"`
	// LatencyP50 and LatencyP99 are the medians over the webhook runs of
	// theirs, ms.
	LatencyP50 float64   `json:"latency_p50_ms"`
	LatencyP99 float64   `json:"latency_p99_ms"`
	PerRound   []float64 `json:"cpu_us_per_event_by_round"`
	// Queued is how many events the queue grew by while the receiver did
	// not answer; HeapPerQueued and RSSPerQueued are the heap in use and
	// RSS per queued event, bytes.
	Queued        float64 `json:"queued"`
	HeapPerQueued float64 `json:"heap_bytes_per_queued_event"`
	RSSPerQueued  float64 `json:"rss_bytes_per_queued_event"`
}

// Webhook runs the same presence load against a server without webhooks
// and one whose app sends every event to a receiver run here, and reports
// the server CPU per delivered event and the memory per queued event. It
// starts its own servers: their app's webhook must point at the receiver.
func Webhook(ctx context.Context, o WebhookOptions) (*WebhookResult, error) {
	o.defaults()
	o.prepare()
	if o.Target.URL != "" {
		return nil, fmt.Errorf("bench: webhook starts its own servers (their webhook URL is the bench's receiver); --url is not supported")
	}
	recv, err := startReceiver(benchAppKey, benchAppSecret)
	if err != nil {
		return nil, fmt.Errorf("bench: webhook receiver: %w", err)
	}
	defer recv.Close()
	pr := NewProgress(o.Progress)
	defer pr.Done()
	r := &WebhookResult{Rate: o.Rate}
	for range o.Rounds {
		for _, hooks := range []bool{false, true} {
			run, err := webhookRun(ctx, &o, recv, hooks, pr)
			if err != nil {
				return nil, err
			}
			r.Runs = append(r.Runs, *run)
			r.Transport = run.Window[1].Transport
		}
	}
	r.BadRequests = recv.bad.Load()
	r.compute()
	return r, nil
}

// webhookRun starts a server, loads it and measures one window (and, with
// webhooks, the queue).
func webhookRun(ctx context.Context, o *WebhookOptions, recv *receiver, hooks bool, pr *Progress) (*WebhookRun, error) {
	env := []string{"ROOST_APP_CLIENT_EVENTS=true"}
	if hooks {
		env = append(env, "ROOST_APP_WEBHOOK_URL="+recv.URL())
	}
	srv, err := StartServer(ctx, ServerOptions{Transport: o.Transport, ActivityTimeout: o.ActivityTimeout,
		Spawn: o.ServerSpawn, Stderr: o.Stderr, Env: env})
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	load, err := dialLoad(ctx, srv.Target, connsFor(o.Rate))
	if err != nil {
		return nil, err
	}
	defer load.close()
	lctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); load.run(lctx, o.Rate) }()
	defer func() { stop(); <-done }()
	run := &WebhookRun{Webhooks: hooks}
	if err := measureHooks(ctx, o, NewProbe(srv.Target), recv, load, run, pr); err != nil {
		return nil, err
	}
	run.LoadErrors = load.errs.Load()
	if e := load.last.Load(); e != nil {
		run.LoadError = *e
	}
	return run, nil
}

// measureHooks waits out the warm-up, measures the CPU window and, with
// webhooks, the queue.
func measureHooks(ctx context.Context, o *WebhookOptions, p *Probe, recv *receiver, load *presenceLoad, run *WebhookRun, pr *Progress) error {
	label := map[bool]string{false: "webhooks off", true: "webhooks on"}[run.Webhooks]
	if err := sleep(ctx, o.Warmup); err != nil {
		return err
	}
	e0, c0 := recv.events.Load(), load.cycles.Load()
	recv.lat.take()
	a, b, err := window(ctx, p, o.Duration, func(s Sample, left time.Duration) {
		pr.Printf("%s: %d cycles, %d events delivered, %.0fs left", label, load.cycles.Load()-c0, recv.events.Load()-e0, left.Seconds())
	})
	if err != nil {
		return err
	}
	run.Window, run.Cycles, run.Events = [2]Sample{a, b}, load.cycles.Load()-c0, recv.events.Load()-e0
	run.Cores = cpuRate(a, b)
	if lat := recv.lat.take(); len(lat) > 0 {
		run.LatencyP50, run.LatencyP99 = quantile(lat, 0.5)*1e3, quantile(lat, 0.99)*1e3
	}
	if !run.Webhooks || o.QueueFor <= 0 {
		return nil
	}
	return measureQueue(ctx, o, p, recv, run, pr)
}

// measureQueue stops the receiver answering, with the load going on, and
// samples the server (after a forced GC) before and after QueueFor.
func measureQueue(ctx context.Context, o *WebhookOptions, p *Probe, recv *receiver, run *WebhookRun, pr *Progress) error {
	recv.pause()
	defer recv.resume()
	g1, err := gcSample(ctx, p)
	if err != nil || g1 == nil {
		return fmt.Errorf("bench: webhook queue: forced GC: %v (the server must serve /debug/gc)", err)
	}
	if _, _, err := window(ctx, p, o.QueueFor, func(s Sample, left time.Duration) {
		pr.Printf("receiver paused: %.0f events queued, heap %s, %.0fs left", s.HooksQueued, mb(s.HeapInuse), left.Seconds())
	}); err != nil {
		return err
	}
	g2, err := gcSample(ctx, p)
	if err != nil || g2 == nil {
		return fmt.Errorf("bench: webhook queue: forced GC: %v", err)
	}
	run.Queue = &[2]Sample{*g1, *g2}
	return nil
}

// compute derives the per-event figures from the runs, which come in
// pairs: off, then on.
func (r *WebhookResult) compute() {
	var off, on, events, secs float64
	var pairs int
	for i := 0; i+1 < len(r.Runs); i += 2 {
		a, b := &r.Runs[i], &r.Runs[i+1]
		dt := b.Window[1].At.Sub(b.Window[0].At).Seconds()
		if dt <= 0 || b.Events == 0 {
			continue
		}
		pairs++
		off, on, events, secs = off+a.Cores, on+b.Cores, events+float64(b.Events), secs+dt
		r.PerRound = append(r.PerRound, (b.Cores-a.Cores)/(float64(b.Events)/dt)*1e6)
		if q := b.Queue; q != nil && q[1].HooksQueued > q[0].HooksQueued {
			n := q[1].HooksQueued - q[0].HooksQueued
			r.Queued, r.HeapPerQueued, r.RSSPerQueued = n, (q[1].HeapInuse-q[0].HeapInuse)/n, (q[1].RSS-q[0].RSS)/n
		}
	}
	if pairs == 0 {
		return
	}
	r.OffCores, r.OnCores, r.EventsPerSecond = off/float64(pairs), on/float64(pairs), events/secs
	r.CPUPerEvent = median(r.PerRound)
	var p50, p99 []float64
	for _, run := range r.Runs {
		if run.LatencyP50 > 0 {
			p50, p99 = append(p50, run.LatencyP50), append(p99, run.LatencyP99)
		}
	}
	if len(p50) > 0 {
		r.LatencyP50, r.LatencyP99 = median(p50), median(p99)
	}
}

// quantile returns the q-quantile of v (nearest rank).
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// median returns the middle value (the mean of the two middle ones).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Table renders the result for people.
func (r *WebhookResult) Table() string {
	rows := [][2]string{{"load", fmt.Sprintf("%.0f presence cycles/s (subscribe, client event, unsubscribe): %.0f webhook events/s asked, transport %s",
		r.Rate, r.Rate*EventsPerCycle, r.Transport)}}
	for i, run := range r.Runs {
		what := "webhooks off"
		if run.Webhooks {
			what = fmt.Sprintf("webhooks on, %d events delivered", run.Events)
		}
		rows = append(rows, [2]string{fmt.Sprintf("run %d", i+1), fmt.Sprintf("%s: %d cycles, %.3f cores, %d failed cycles %s",
			what, run.Cycles, run.Cores, run.LoadErrors, run.LoadError)})
	}
	rows = append(rows,
		[2]string{"server CPU", fmt.Sprintf("%.3f cores without webhooks, %.3f with (%s)", r.OffCores, r.OnCores, ratio(r.OnCores, r.OffCores))},
		[2]string{"CPU per delivered event", fmt.Sprintf("%.2f µs, median of rounds %s (%.0f events/s delivered, %d refused by the receiver)",
			r.CPUPerEvent, roundList(r.PerRound), r.EventsPerSecond, r.BadRequests)},
		[2]string{"latency per event", fmt.Sprintf("%.1f ms median, %.1f ms p99, from a client event's sending to its webhook's arrival (median of the runs)",
			r.LatencyP50, r.LatencyP99)},
		[2]string{"memory per queued event", fmt.Sprintf("%.0f bytes of heap, %.0f bytes of RSS (%.0f events queued, receiver not answering)",
			r.HeapPerQueued, r.RSSPerQueued, r.Queued)},
	)
	return table(rows)
}

// roundList formats per-round figures.
func roundList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
