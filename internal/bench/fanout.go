package bench

import (
	"context"
	"fmt"
	"time"
)

// FanoutOptions configures Fanout.
type FanoutOptions struct {
	Common
	// Subscribers on the one channel. Zero value means 15,000.
	Subscribers int
	// Rate of publishes per second. Zero value means 10.
	Rate float64
	// Duration of publishing. Zero value means 20 s.
	Duration time.Duration
	// RampRate is new connections per second. Zero value means 4,000.
	RampRate float64
	// Publishers is the number of concurrent HTTP publishers. Zero value
	// means 4.
	Publishers int
	// PublishURL, when set, is another node of the same cluster to publish
	// through ("http://host:port"), so that every event crosses Redis to
	// reach the subscribers. Zero value means the subscribers' server.
	PublishURL string
	// DataBytes pads each event's data to about this many bytes with a
	// JSON list of records, as a real event's data would be, so that
	// compression (Common.Deflate) has something to work on. Zero value
	// means only the timestamp (19 bytes).
	DataBytes int
}

func (o *FanoutOptions) defaults() {
	o.Subscribers = cmpOr(o.Subscribers, 15000)
	o.Rate = cmpOr(o.Rate, 10)
	o.Duration = cmpOr(o.Duration, 20*time.Second)
	o.RampRate = cmpOr(o.RampRate, 4000)
	o.Publishers = cmpOr(o.Publishers, 4)
}

// fanoutChannel is the channel every subscriber shares (pool of one).
const fanoutChannel = "bench-p0"

// FanoutResult is what delivering events to one large channel cost.
type FanoutResult struct {
	Target      Target  `json:"target"`
	Transport   string  `json:"transport"`
	Subscribers int     `json:"subscribers"`
	Rate        float64 `json:"publish_rate"`
	Seconds     float64 `json:"seconds"`

	Published     int64  `json:"published"`
	PublishErrors int64  `json:"publish_errors"`
	PublishError  string `json:"publish_error,omitempty"`
	// Delivered counts bench events the clients received; Expected is
	// Published x Subscribers.
	Delivered int64 `json:"delivered"`
	Expected  int64 `json:"expected"`
	// DeliveredPerSecond is Delivered over the publishing window.
	DeliveredPerSecond float64 `json:"delivered_per_s"`
	// IdleCores and BusyCores are the server's CPU before and while
	// publishing, in cores.
	IdleCores float64 `json:"idle_cores"`
	BusyCores float64 `json:"busy_cores"`
	// CPUPerMessage is server CPU per delivered message, µs, with the idle
	// CPU taken out.
	CPUPerMessage float64 `json:"cpu_us_per_message"`
	// UserPerMessage and SystemPerMessage split CPUPerMessage into roost's
	// own code and the kernel's work for it (mostly write(2) and TCP), from
	// /proc; zero when the server's pid is unknown. The idle CPU is not
	// taken out of either.
	UserPerMessage   float64 `json:"user_us_per_message,omitempty"`
	SystemPerMessage float64 `json:"system_us_per_message,omitempty"`
	// BytesPerMessage is bytes written per frame while publishing.
	BytesPerMessage float64 `json:"bytes_per_message"`
	// Latency from just before the publish request to the client's read,
	// in milliseconds.
	P50  float64 `json:"p50_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`

	Window [2]Sample `json:"window"`
}

// Fanout subscribes S connections to one channel, publishes through the
// HTTP API and reports server CPU per delivered message and
// publish-to-receive latency.
func Fanout(ctx context.Context, o FanoutOptions) (*FanoutResult, error) {
	o.defaults()
	t, f, done, err := o.open(ctx, o.fleet)
	if err != nil {
		return nil, err
	}
	defer done()
	return runFanout(ctx, &o, t, f)
}

// fleet is the subscribers on the one channel of t.
func (o *FanoutOptions) fleet(t Target) FleetConfig { return o.load(t, o.Subscribers, 1, 1, 0) }

// runFanout measures on a ready target with a started fleet.
func runFanout(ctx context.Context, o *FanoutOptions, t Target, f *Fleet) (*FanoutResult, error) {
	p := NewProbe(t)
	pr := NewProgress(o.Progress)
	defer pr.Done()
	if err := ramp(ctx, f, pr, o.Subscribers, o.RampRate); err != nil {
		return nil, err
	}
	if _, err := settle(ctx, p, o.Settle, 10*o.Settle, func(s Sample) { pr.Printf("settling: rss %s", mb(s.RSS)) }); err != nil {
		return nil, err
	}
	i0, i1, err := window(ctx, p, o.Settle, func(Sample, time.Duration) { pr.Printf("idle CPU window") })
	if err != nil {
		return nil, err
	}
	r := &FanoutResult{Target: t, Transport: i1.Transport, Subscribers: o.Subscribers, Rate: o.Rate, IdleCores: cpuRate(i0, i1)}
	if err := publishWindow(ctx, o, p, f, pr, r); err != nil {
		return nil, err
	}
	h, err := f.Histogram(ctx)
	if err != nil {
		return nil, err
	}
	r.P50, r.P99, r.P999, r.Max = ms(h.Percentile(50)), ms(h.Percentile(99)), ms(h.Percentile(99.9)), ms(h.Max())
	return r, nil
}

// publishWindow publishes for the duration, waits for the deliveries to
// arrive, and fills r's counts and CPU figures.
func publishWindow(ctx context.Context, o *FanoutOptions, p *Probe, f *Fleet, pr *Progress, r *FanoutResult) error {
	if _, err := f.Histogram(ctx); err != nil { // drop anything recorded so far
		return err
	}
	recv0 := f.Status().Received
	a, err := p.Sample(ctx)
	if err != nil {
		return err
	}
	via := p.Target
	if o.PublishURL != "" {
		via.URL = o.PublishURL
	}
	pub := newPublisher(via, fanoutChannel, o.Publishers)
	pub.pad = padding(o.DataBytes)
	done := make(chan struct{})
	go func() { defer close(done); pub.run(ctx, o.Rate, o.Duration, o.Publishers) }()
	showPublishing(pr, f, pub, done, recv0)
	r.Published, r.PublishErrors, r.PublishError = pub.sent.Load(), pub.errs.Load(), pub.lastError()
	r.Expected = r.Published * int64(o.Subscribers)
	drain(ctx, f, recv0, r.Expected)
	b, err := p.Sample(ctx)
	if err != nil {
		return err
	}
	r.Window = [2]Sample{a, b}
	r.Delivered = f.Status().Received - recv0
	r.Seconds = o.Duration.Seconds()
	r.compute()
	return nil
}

// showPublishing prints progress until the publisher is done.
func showPublishing(pr *Progress, f *Fleet, pub *publisher, done <-chan struct{}, recv0 int64) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			pr.Printf("fanout: %d published, %d delivered, %d errors", pub.sent.Load(), f.Status().Received-recv0, pub.errs.Load())
		}
	}
}

// drain waits up to 10 s for the expected deliveries to arrive.
func drain(ctx context.Context, f *Fleet, recv0, expected int64) {
	deadline := time.Now().Add(10 * time.Second)
	for f.Status().Received-recv0 < expected && time.Now().Before(deadline) {
		if sleep(ctx, 100*time.Millisecond) != nil {
			return
		}
	}
	// One more status period, so every worker has reported its last count.
	sleep(ctx, 2*statusEvery)
}

func (r *FanoutResult) compute() {
	a, b := r.Window[0], r.Window[1]
	dt := b.At.Sub(a.At).Seconds()
	r.BusyCores = cpuRate(a, b)
	r.DeliveredPerSecond = float64(r.Delivered) / r.Seconds
	if r.Delivered > 0 {
		r.CPUPerMessage = (b.CPUSeconds() - a.CPUSeconds() - r.IdleCores*dt) / float64(r.Delivered) * 1e6
	}
	if a.Proc != nil && b.Proc != nil && r.Delivered > 0 {
		n := float64(r.Delivered)
		r.UserPerMessage = (b.Proc.UserSeconds - a.Proc.UserSeconds) / n * 1e6
		r.SystemPerMessage = (b.Proc.SystemSeconds - a.Proc.SystemSeconds) / n * 1e6
	}
	if frames := b.Delivered - a.Delivered; frames > 0 {
		r.BytesPerMessage = (b.SentBytes - a.SentBytes) / frames
	}
}

// ms converts nanoseconds to milliseconds.
func ms(ns int64) float64 { return float64(ns) / 1e6 }

// Table renders the result for people.
func (r *FanoutResult) Table() string {
	return table([][2]string{
		{"server", fmt.Sprintf("%s (transport %s, pid %d)", r.Target.URL, r.Transport, r.Target.PID)},
		{"subscribers", fmt.Sprintf("%d on one channel", r.Subscribers)},
		{"published", fmt.Sprintf("%d events at %.0f/s over %.0f s, %d errors %s", r.Published, r.Rate, r.Seconds, r.PublishErrors, r.PublishError)},
		{"delivered", fmt.Sprintf("%d of %d (%.0f messages/s)", r.Delivered, r.Expected, r.DeliveredPerSecond)},
		{"server CPU", fmt.Sprintf("%.3f cores idle, %.3f cores publishing", r.IdleCores, r.BusyCores)},
		{"CPU per delivered message", fmt.Sprintf("%.3f µs (user %.3f, kernel %.3f)", r.CPUPerMessage, r.UserPerMessage, r.SystemPerMessage)},
		{"bytes per message", fmt.Sprintf("%.0f", r.BytesPerMessage)},
		{"publish-to-receive latency", fmt.Sprintf("p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms", r.P50, r.P99, r.P999, r.Max)},
	})
}
