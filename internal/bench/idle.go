package bench

import (
	"context"
	"fmt"
	"time"
)

// DefaultActivityTimeout is roost's (and Pusher's) default activity_timeout,
// to which idle CPU figures measured with a shorter one are scaled.
const DefaultActivityTimeout = 120 * time.Second

// IdleOptions configures Idle.
type IdleOptions struct {
	Common
	// Connections to hold. Zero value means 1000.
	Connections int
	// Rate of new connections per second. Zero value means 2000.
	Rate float64
	// Channels each connection subscribes to. Zero value means 1.
	Channels int
	// SharedChannels, when positive, draws the channels from that many
	// shared ones (a dashboard's topics); zero gives every connection its
	// own channels (private-user-{id} notifications), the costlier shape.
	SharedChannels int
	// Hold is the measurement window once every connection is ready. Zero
	// value means 60 s.
	Hold time.Duration
	// Baseline is the window that measures the server's CPU before any
	// connection. Zero value means 10 s.
	Baseline time.Duration
	// Ping overrides the clients' ping interval; zero means the server's
	// activity_timeout, as pusher-js does.
	Ping time.Duration
}

func (o *IdleOptions) defaults() {
	o.Connections = cmpOr(o.Connections, 1000)
	o.Rate = cmpOr(o.Rate, 2000)
	o.Channels = cmpOr(o.Channels, 1)
	o.Hold = cmpOr(o.Hold, 60*time.Second)
	o.Baseline = cmpOr(o.Baseline, 10*time.Second)
}

// plan says, before anything starts, what Idle will do and how long it
// takes: the baseline, the ramp at its nominal rate, the settling (at least
// Settle, at most ten times as long while RSS still moves) and the hold.
func (o *IdleOptions) plan() string {
	ramp := time.Duration(float64(o.Connections) / o.Rate * float64(time.Second))
	fixed := o.Baseline + ramp + o.Hold
	return fmt.Sprintf("roost bench idle: %d connections; this takes about %s, at most %s "+
		"(baseline %s, ramp %s at %.0f/s, settle %s to %s, hold %s)",
		o.Connections, roundDuration(fixed+o.Settle), roundDuration(fixed+10*o.Settle),
		o.Baseline, roundDuration(ramp), o.Rate, o.Settle, 10*o.Settle, o.Hold)
}

// roundDuration rounds d for people: whole seconds, tenths below 10 s.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// cmpOr returns v, or def when v is zero.
func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// IdleResult is what holding N idle connections cost the server.
type IdleResult struct {
	Target    Target `json:"target"`
	Transport string `json:"transport"`
	// Client is what the clients held: "ws", or "xhr_streaming" for
	// pusher-js's HTTP fallback.
	Client      string `json:"client_transport"`
	Connections int    `json:"connections"`
	Channels    int    `json:"channels_per_connection"`
	// ActivityTimeout is the activity_timeout the server announced, s.
	ActivityTimeout float64 `json:"activity_timeout_s"`
	HoldSeconds     float64 `json:"hold_s"`

	Baseline [2]Sample `json:"baseline"` // before connecting: window start, end
	Hold     [2]Sample `json:"hold"`     // every connection ready: window start, end
	// BaselineGC and HoldGC are read after a forced GC, when the server
	// serves /debug/gc.
	BaselineGC *Sample `json:"baseline_gc,omitempty"`
	HoldGC     *Sample `json:"hold_gc,omitempty"`

	PerConn PerConn `json:"per_connection"`
	Pings   int64   `json:"client_pings"`
	Failed  int64   `json:"failed"`
	Dropped int64   `json:"dropped"`
}

// PerConn are the costs of one connection.
type PerConn struct {
	// RSS is the steady-state resident memory per connection, bytes.
	RSS float64 `json:"rss_bytes"`
	// ProcRSS is the same read from /proc/PID/status (0 when unknown).
	ProcRSS float64 `json:"proc_rss_bytes,omitempty"`
	// RSSAfterGC is measured after a forced GC (0 when unavailable).
	RSSAfterGC float64 `json:"rss_after_gc_bytes,omitempty"`
	// Heap and Stack are go_memstats heap_inuse and stack_inuse per
	// connection at steady state.
	Heap  float64 `json:"heap_inuse_bytes"`
	Stack float64 `json:"stack_inuse_bytes"`
	// CPU is µs of server CPU per second per connection at the measured
	// activity timeout; CPUDefault scales it to 120 s (every per-connection
	// cost of an idle connection recurs once per activity timeout).
	CPU        float64 `json:"cpu_us_per_s"`
	CPUDefault float64 `json:"cpu_us_per_s_at_120s"`
	// Exchange is the same cost per ping exchange, µs: a connection has
	// one (the client's ping, the server's pong, one timing-wheel visit)
	// per activity timeout, so it is CPU times the activity timeout.
	// ExchangeUser and ExchangeSystem split it into roost's own code with
	// the Go runtime and the kernel (zeros when /proc was not read).
	Exchange       float64 `json:"cpu_us_per_exchange"`
	ExchangeUser   float64 `json:"cpu_us_per_exchange_user,omitempty"`
	ExchangeSystem float64 `json:"cpu_us_per_exchange_system,omitempty"`
	// CPUBelowNoise is set when the server used no more CPU while holding
	// the connections than before them: the cost is below what the windows
	// resolve, and CPU and CPUDefault are reported as 0, never negative.
	CPUBelowNoise bool `json:"cpu_below_noise,omitempty"`
}

// Idle opens N connections, subscribes each, holds them while they ping
// like pusher-js, and reports the server's RSS and CPU per connection.
func Idle(ctx context.Context, o IdleOptions) (*IdleResult, error) {
	o.defaults()
	o.prepare()
	if o.Progress != nil {
		fmt.Fprintln(o.Progress, o.plan())
	}
	t, stop, err := o.start(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	p := NewProbe(t)
	pr := NewProgress(o.Progress)
	defer pr.Done()
	r := &IdleResult{Target: t, Client: "ws", Connections: o.Connections, Channels: o.Channels, HoldSeconds: o.Hold.Seconds()}
	if o.XHRStreaming {
		r.Client = "xhr_streaming"
	}
	if err := idleBaseline(ctx, p, pr, o.Baseline, r); err != nil {
		return nil, err
	}
	f, err := StartFleet(o.load(t, o.Connections, o.Channels, o.SharedChannels, o.Ping))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := ramp(ctx, f, pr, o.Connections, o.Rate); err != nil {
		return nil, err
	}
	if err := idleHold(ctx, p, pr, f, o.Settle, o.Hold, r); err != nil {
		return nil, err
	}
	r.compute()
	return r, nil
}

// idleBaseline measures the server before the load: CPU over a window,
// then RSS after a forced GC.
func idleBaseline(ctx context.Context, p *Probe, pr *Progress, d time.Duration, r *IdleResult) error {
	a, b, err := window(ctx, p, d, func(s Sample, left time.Duration) {
		pr.Printf("baseline: rss %s, %.0fs left", mb(s.RSS), left.Seconds())
	})
	if err != nil {
		return err
	}
	r.Baseline = [2]Sample{a, b}
	r.BaselineGC, err = gcSample(ctx, p)
	return err
}

// ramp opens n connections and waits until they are all ready.
func ramp(ctx context.Context, f *Fleet, pr *Progress, n int, rate float64) error {
	if err := f.Open(n, rate); err != nil {
		return err
	}
	start := time.Now()
	timeout := time.Duration(float64(n)/rate*float64(time.Second))*3 + 60*time.Second
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return f.WaitReady(rctx, n, maxFailures(n), func(s WorkerStatus) {
		pr.Printf("ramp: %d/%d ready, %d failed, %.0f/s", s.Ready, n, s.Failed, float64(s.Ready)/time.Since(start).Seconds())
	})
}

// idleHold lets the server settle, measures over the hold window, then
// forces a GC.
func idleHold(ctx context.Context, p *Probe, pr *Progress, f *Fleet, settleFor, d time.Duration, r *IdleResult) error {
	_, err := settle(ctx, p, settleFor, 10*settleFor, func(s Sample) {
		pr.Printf("settling: rss %s, %.0f connections", mb(s.RSS), s.Connections)
	})
	if err != nil {
		return err
	}
	pings := f.Status().Pings
	a, b, err := window(ctx, p, d, func(s Sample, left time.Duration) {
		pr.Printf("hold: %.0f connections, rss %s, %.0fs left", s.Connections, mb(s.RSS), left.Seconds())
	})
	if err != nil {
		return err
	}
	r.Hold = [2]Sample{a, b}
	st := f.Status()
	r.Pings, r.Failed, r.Dropped = st.Pings-pings, st.Failed, st.Dropped
	r.ActivityTimeout = float64(st.Activity)
	r.Transport = b.Transport
	r.HoldGC, err = gcSample(ctx, p)
	return err
}

// compute derives the per-connection figures from the samples.
func (r *IdleResult) compute() {
	n := float64(r.Connections)
	base, hold := r.Baseline[1], r.Hold[1]
	r.PerConn.RSS = (hold.RSS - base.RSS) / n
	if base.Proc != nil && hold.Proc != nil {
		r.PerConn.ProcRSS = (hold.Proc.RSS - base.Proc.RSS) / n
	}
	if r.BaselineGC != nil && r.HoldGC != nil {
		r.PerConn.RSSAfterGC = (r.HoldGC.RSS - r.BaselineGC.RSS) / n
	}
	r.PerConn.Heap = (hold.HeapInuse - base.HeapInuse) / n
	r.PerConn.Stack = (hold.StackInuse - base.StackInuse) / n
	extra := cpuRate(r.Hold[0], r.Hold[1]) - cpuRate(r.Baseline[0], r.Baseline[1])
	if extra <= 0 {
		r.PerConn.CPU, r.PerConn.CPUDefault, r.PerConn.CPUBelowNoise = 0, 0, true
		return
	}
	r.PerConn.CPU = extra / n * 1e6
	r.PerConn.CPUDefault = scaleCPU(r.PerConn.CPU, r.ActivityTimeout)
	r.PerConn.Exchange = r.PerConn.CPU * r.ActivityTimeout
	hu, hs := splitRate(r.Hold[0], r.Hold[1])
	bu, bs := splitRate(r.Baseline[0], r.Baseline[1])
	if hu+hs > 0 && bu+bs > 0 {
		perExchange := r.ActivityTimeout / n * 1e6
		r.PerConn.ExchangeUser = (hu - bu) * perExchange
		r.PerConn.ExchangeSystem = (hs - bs) * perExchange
	}
}

// scaleCPU converts µs/s per connection measured at activity timeout t
// seconds to the default timeout.
func scaleCPU(cpu, t float64) float64 {
	if t <= 0 {
		return cpu
	}
	return cpu * t / DefaultActivityTimeout.Seconds()
}

// Table renders the result for people.
func (r *IdleResult) Table() string {
	pc := r.PerConn
	rows := [][2]string{
		{"server", fmt.Sprintf("%s (transport %s, pid %d)", r.Target.URL, r.Transport, r.Target.PID)},
		{"connections", fmt.Sprintf("%d %s, %d channel(s) each, activity_timeout %.0f s", r.Connections, r.Client, r.Channels, r.ActivityTimeout)},
		{"hold window", fmt.Sprintf("%.0f s, %d client pings, %d failed, %d dropped", r.HoldSeconds, r.Pings, r.Failed, r.Dropped)},
		{"server RSS", fmt.Sprintf("%s -> %s", mb(r.Baseline[1].RSS), mb(r.Hold[1].RSS))},
		{"RSS per connection", fmt.Sprintf("%s (steady state)", kb(pc.RSS))},
	}
	if pc.ProcRSS != 0 {
		rows = append(rows, [2]string{"  /proc cross-check", kb(pc.ProcRSS)})
	}
	if pc.RSSAfterGC != 0 {
		rows = append(rows, [2]string{"  after forced GC", kb(pc.RSSAfterGC)})
	}
	rows = append(rows, [2]string{"  heap / stack in use", kb(pc.Heap) + " / " + kb(pc.Stack)})
	if pc.CPUBelowNoise {
		rows = append(rows, [2]string{"CPU per connection", "below the noise: the server used no more CPU " +
			"holding them than before; measure longer (--hold) or more connections (-n)"})
		return table(rows)
	}
	rows = append(rows,
		[2]string{"CPU per connection", fmt.Sprintf("%.3f µs/s at activity_timeout %.0f s", pc.CPU, r.ActivityTimeout)},
		[2]string{"  at 120 s (derived)", fmt.Sprintf("%.3f µs/s", pc.CPUDefault)},
		[2]string{"CPU per ping exchange", exchange(pc)},
	)
	return table(rows)
}

// exchange formats the CPU of one ping exchange, split into user and
// system time when /proc was read.
func exchange(pc PerConn) string {
	s := fmt.Sprintf("%.1f µs", pc.Exchange)
	if pc.ExchangeUser != 0 || pc.ExchangeSystem != 0 {
		s += fmt.Sprintf(" (%.1f µs user, %.1f µs system)", pc.ExchangeUser, pc.ExchangeSystem)
	}
	return s
}

// kb formats bytes as KB of 1,024 bytes, the unit RSS targets use.
func kb(b float64) string { return fmt.Sprintf("%.2f KB", b/1024) }

// table aligns label/value rows.
func table(rows [][2]string) string {
	w := 0
	for _, r := range rows {
		w = max(w, len(r[0]))
	}
	out := ""
	for _, r := range rows {
		out += fmt.Sprintf("%-*s  %s\n", w, r[0], r[1])
	}
	return out
}
