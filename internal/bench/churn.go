package bench

import (
	"context"
	"fmt"
	"math"
	"time"
)

// ChurnOptions configures Churn.
type ChurnOptions struct {
	Common
	// Rate of churn cycles per second. Zero value means
	// 2,000.
	Rate float64
	// Duration of the churn. Zero value means 20 s.
	Duration time.Duration
	// Workers is the number of load processes. Zero value means 2.
	Workers int
	// Bare churns without subscribing: connect, read
	// connection_established and close. The zero value subscribes each
	// connection to a public channel of its own and waits for
	// pusher_internal:subscription_succeeded before closing.
	Bare bool
}

func (o *ChurnOptions) defaults() {
	o.Rate = cmpOr(o.Rate, 2000)
	o.Duration = cmpOr(o.Duration, 20*time.Second)
	o.Workers = cmpOr(o.Workers, 2)
}

// ChurnResult is what opening and closing connections cost the server.
type ChurnResult struct {
	Target    Target  `json:"target"`
	Transport string  `json:"transport"`
	Rate      float64 `json:"rate"`
	Seconds   float64 `json:"seconds"`
	// Subscribe says whether each cycle subscribed (connect + subscribe +
	// close) or not (connect + close, Bare).
	Subscribe bool `json:"subscribe"`
	// Handshakes is the server's count of accepted handshakes in the
	// window (each one a whole cycle); ClientFailed counts the clients' failed attempts.
	Handshakes   float64 `json:"handshakes"`
	ClientFailed int64   `json:"client_failed"`
	ClientError  string  `json:"client_error,omitempty"`
	PerSecond    float64 `json:"handshakes_per_s"`
	Cores        float64 `json:"cores"`
	// PerCore is handshakes per second of server CPU: the rate one fully
	// used core would sustain.
	PerCore float64 `json:"handshakes_per_core_s"`
	// CPUPerHandshake is µs of server CPU per cycle.
	CPUPerHandshake float64 `json:"cpu_us_per_handshake"`
	// UserPerHandshake and SystemPerHandshake split it into roost's code
	// and the kernel's (from /proc; zero when the pid is unknown).
	UserPerHandshake   float64 `json:"user_us_per_handshake,omitempty"`
	SystemPerHandshake float64 `json:"system_us_per_handshake,omitempty"`
	// Before and After are the server's memory before and after the churn
	// (after a forced GC when the server serves /debug/gc).
	Before Sample `json:"before"`
	After  Sample `json:"after"`
	// RSSGrowth is After.RSS - Before.RSS; Returned says whether memory
	// came back to within 1 MB + 5% of its baseline.
	RSSGrowth float64   `json:"rss_growth"`
	Returned  bool      `json:"returned"`
	Window    [2]Sample `json:"window"`
}

// Churn connects, subscribes and disconnects (or only connects and
// disconnects, Bare) at a rate and reports cycles per second per core, and
// whether memory returns to its baseline.
func Churn(ctx context.Context, o ChurnOptions) (*ChurnResult, error) {
	o.defaults()
	t, f, done, err := o.open(ctx, o.fleet)
	if err != nil {
		return nil, err
	}
	defer done()
	return runChurn(ctx, &o, t, f)
}

// fleet is the load that churns against t.
func (o *ChurnOptions) fleet(t Target) FleetConfig {
	return FleetConfig{URL: t.WebSocketURL(), CAFile: t.CAFile, Workers: o.Workers, ChurnBare: o.Bare, Spawn: o.Spawn, Stderr: o.Stderr}
}

// cycle names what one churn cycle does.
func (r *ChurnResult) cycle() string {
	if r.Subscribe {
		return "connect + subscribe + close"
	}
	return "connect + close"
}

func runChurn(ctx context.Context, o *ChurnOptions, t Target, f *Fleet) (*ChurnResult, error) {
	p := NewProbe(t)
	pr := NewProgress(o.Progress)
	defer pr.Done()
	r := &ChurnResult{Target: t, Rate: o.Rate, Seconds: o.Duration.Seconds(), Subscribe: !o.Bare}
	before, err := memory(ctx, p, o.Settle, pr)
	if err != nil {
		return nil, err
	}
	r.Before = before
	if err := f.Churn(o.Rate); err != nil {
		return nil, err
	}
	a, b, err := window(ctx, p, o.Duration, func(s Sample, left time.Duration) {
		st := f.Status()
		pr.Printf("churn: %d handshakes, %d failed, %.0fs left", st.Handshakes, st.ChurnFailed, left.Seconds())
	})
	f.Churn(0)
	if err != nil {
		return nil, err
	}
	r.Window = [2]Sample{a, b}
	r.Transport = b.Transport
	st := f.Status()
	r.ClientFailed, r.ClientError = st.ChurnFailed, st.Err
	if err := waitConnections(ctx, p, before.Connections); err != nil {
		return nil, err
	}
	if r.After, err = memory(ctx, p, o.Settle, pr); err != nil {
		return nil, err
	}
	r.compute()
	return r, nil
}

// memory settles and returns the server's memory, after a forced GC when
// the server offers one.
func memory(ctx context.Context, p *Probe, settleFor time.Duration, pr *Progress) (Sample, error) {
	s, err := settle(ctx, p, settleFor, 10*settleFor, func(s Sample) { pr.Printf("settling: rss %s", mb(s.RSS)) })
	if err != nil {
		return s, err
	}
	gc, err := gcSample(ctx, p)
	if err != nil || gc == nil {
		return s, err
	}
	return *gc, nil
}

// waitConnections polls until the server is back to n connections (30 s at
// most: closing handshakes may still be finishing).
func waitConnections(ctx context.Context, p *Probe, n float64) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := p.Sample(ctx)
		if err != nil || s.Connections <= n || time.Now().After(deadline) {
			return err
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func (r *ChurnResult) compute() {
	a, b := r.Window[0], r.Window[1]
	r.Handshakes = b.Accepted - a.Accepted
	dt := b.At.Sub(a.At).Seconds()
	cpu := b.CPUSeconds() - a.CPUSeconds()
	r.PerSecond = r.Handshakes / dt
	r.Cores = cpu / dt
	if cpu > 0 {
		r.PerCore = r.Handshakes / cpu
	}
	if r.Handshakes > 0 {
		r.CPUPerHandshake = cpu / r.Handshakes * 1e6
		if a.Proc != nil && b.Proc != nil {
			r.UserPerHandshake = (b.Proc.UserSeconds - a.Proc.UserSeconds) / r.Handshakes * 1e6
			r.SystemPerHandshake = (b.Proc.SystemSeconds - a.Proc.SystemSeconds) / r.Handshakes * 1e6
		}
	}
	r.RSSGrowth = r.After.RSS - r.Before.RSS
	r.Returned = math.Abs(r.RSSGrowth) <= 1e6+0.05*r.Before.RSS
}

// Table renders the result for people.
func (r *ChurnResult) Table() string {
	return table([][2]string{
		{"server", fmt.Sprintf("%s (transport %s, pid %d)", r.Target.URL, r.Transport, r.Target.PID)},
		{"churn", fmt.Sprintf("%.0f cycles of %s in %.0f s (%.0f/s asked), %d client failures %s", r.Handshakes, r.cycle(), r.Seconds, r.Rate, r.ClientFailed, r.ClientError)},
		{"server CPU", fmt.Sprintf("%.3f cores, %.1f µs per %s (user %.1f, kernel %.1f)", r.Cores, r.CPUPerHandshake, r.cycle(), r.UserPerHandshake, r.SystemPerHandshake)},
		{"handshakes per core", fmt.Sprintf("%.0f %s per CPU-second", r.PerCore, r.cycle())},
		{"memory", fmt.Sprintf("%s before, %s after (%+.1f MB), returned to baseline: %v", mb(r.Before.RSS), mb(r.After.RSS), r.RSSGrowth/1e6, r.Returned)},
	})
}
