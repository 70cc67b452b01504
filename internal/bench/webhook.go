package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
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
	// Backend, when not empty, are the `roost serve` flags of a cluster
	// backend that every server joins (a one-node cluster): each round then
	// runs webhooks on twice, with the durable outbox off and then on (its
	// default), so that the two are measured against the same run without
	// webhooks.
	Backend []string
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
	// Outbox: the run kept its events in the cluster's outbox.
	Outbox bool `json:"outbox"`
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
	// Outbox holds the same figures for the runs with the durable outbox
	// on (with a Backend only), against the same runs without webhooks.
	Outbox *HookFigures `json:"outbox,omitempty"`
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
		for _, m := range o.modes() {
			run, err := webhookRun(ctx, &o, recv, m, pr)
			if err != nil {
				return nil, err
			}
			r.Runs = append(r.Runs, *run)
			r.Transport = run.Window[1].Transport
		}
	}
	r.BadRequests = recv.bad.Load()
	r.compute(len(o.modes()))
	return r, nil
}

// modes are the runs of one round: webhooks off, then on, and with a
// Backend on with the outbox too.
func (o *WebhookOptions) modes() []WebhookRun {
	if len(o.Backend) == 0 {
		return []WebhookRun{{}, {Webhooks: true}}
	}
	return []WebhookRun{{}, {Webhooks: true}, {Webhooks: true, Outbox: true}}
}

// webhookRun starts a server, loads it and measures one window (and, with
// webhooks, the queue).
func webhookRun(ctx context.Context, o *WebhookOptions, recv *receiver, mode WebhookRun, pr *Progress) (*WebhookRun, error) {
	env := []string{"ROOST_APP_CLIENT_EVENTS=true"}
	if len(o.Backend) > 0 { // only then: a build from before the outbox may refuse the variable
		env = append(env, "ROOST_WEBHOOK_OUTBOX="+strconv.FormatBool(mode.Outbox))
	}
	if mode.Webhooks {
		env = append(env, "ROOST_APP_WEBHOOK_URL="+recv.URL())
	}
	srv, err := StartServer(ctx, ServerOptions{Transport: o.Transport, ActivityTimeout: o.ActivityTimeout,
		Spawn: o.ServerSpawn, Stderr: o.Stderr, Env: env, Args: o.Backend})
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
	run := &mode
	if err := measureHooks(ctx, o, NewProbe(srv.Target), recv, load, run, pr); err != nil {
		return nil, err
	}
	run.LoadErrors, run.LoadError = load.errs.Load(), load.lastError()
	return run, nil
}

// measureHooks waits out the warm-up, measures the CPU window and, with
// webhooks, the queue.
func measureHooks(ctx context.Context, o *WebhookOptions, p *Probe, recv *receiver, load *presenceLoad, run *WebhookRun, pr *Progress) error {
	label := map[bool]string{false: "webhooks off", true: "webhooks on"}[run.Webhooks]
	if run.Outbox {
		label += ", outbox on"
	}
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

// HookFigures are the per-event figures of one kind of webhook run.
type HookFigures struct {
	CPUPerEvent float64   `json:"cpu_us_per_event"`
	PerRound    []float64 `json:"cpu_us_per_event_by_round"`
	LatencyP50  float64   `json:"latency_p50_ms"`
	LatencyP99  float64   `json:"latency_p99_ms"`
	OnCores     float64   `json:"on_cores"`
	p50, p99    []float64 // each run's, until finish
}

// compute derives the per-event figures from the runs, which come in
// rounds of size runs: off, on, then (with a Backend) on with the outbox.
func (r *WebhookResult) compute(size int) {
	var off, events, secs float64
	var pairs int
	plain, outbox := &HookFigures{}, &HookFigures{}
	for i := 0; i+size <= len(r.Runs); i += size {
		a, b := &r.Runs[i], &r.Runs[i+1]
		dt := b.Window[1].At.Sub(b.Window[0].At).Seconds()
		if dt <= 0 || b.Events == 0 {
			continue
		}
		pairs++
		off, events, secs = off+a.Cores, events+float64(b.Events), secs+dt
		for _, c := range r.Runs[i+1 : i+size] {
			f := plain
			if c.Outbox {
				f = outbox
			}
			f.add(a, &c)
		}
		if q := b.Queue; q != nil && q[1].HooksQueued > q[0].HooksQueued {
			n := q[1].HooksQueued - q[0].HooksQueued
			r.Queued, r.HeapPerQueued, r.RSSPerQueued = n, (q[1].HeapInuse-q[0].HeapInuse)/n, (q[1].RSS-q[0].RSS)/n
		}
	}
	if pairs == 0 {
		return
	}
	r.OffCores, r.EventsPerSecond = off/float64(pairs), events/secs
	plain.finish(pairs)
	r.OnCores, r.CPUPerEvent, r.PerRound, r.LatencyP50, r.LatencyP99 = plain.OnCores, plain.CPUPerEvent, plain.PerRound, plain.LatencyP50, plain.LatencyP99
	if len(outbox.PerRound) > 0 {
		outbox.finish(pairs)
		r.Outbox = outbox
	}
}

// add takes in run b's figures against the run without webhooks a of its
// round. Until finish, OnCores is a sum and the latencies lists.
func (f *HookFigures) add(a, b *WebhookRun) {
	dt := b.Window[1].At.Sub(b.Window[0].At).Seconds()
	if dt <= 0 || b.Events == 0 {
		return
	}
	f.OnCores += b.Cores
	f.PerRound = append(f.PerRound, (b.Cores-a.Cores)/(float64(b.Events)/dt)*1e6)
	if b.LatencyP50 > 0 {
		f.p50, f.p99 = append(f.p50, b.LatencyP50), append(f.p99, b.LatencyP99)
	}
}

// finish turns the sums of pairs rounds into the figures.
func (f *HookFigures) finish(pairs int) {
	f.OnCores /= float64(pairs)
	f.CPUPerEvent = median(f.PerRound)
	if len(f.p50) > 0 {
		f.LatencyP50, f.LatencyP99 = median(f.p50), median(f.p99)
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
		[2]string{"outbox", r.outboxLine()},
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

// outboxLine is the table's line for the runs with the outbox.
func (r *WebhookResult) outboxLine() string {
	o := r.Outbox
	if o == nil {
		return "not measured (no --backend)"
	}
	return fmt.Sprintf("on: %.3f cores, %.2f µs per delivered event, rounds %s (%s the CPU per event without it); latency %.1f ms median, %.1f ms p99",
		o.OnCores, o.CPUPerEvent, roundList(o.PerRound), ratio(o.CPUPerEvent, r.CPUPerEvent), o.LatencyP50, o.LatencyP99)
}
