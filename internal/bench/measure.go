package bench

import (
	"context"
	"fmt"
	"math"
	"time"
)

// settleTolerance is how little RSS may move over the settle span for the
// server to count as settled.
const settleTolerance = 0.01

// settle waits at least minWait, then until RSS has moved by less than 1%
// over the last minWait (or maxWait has passed), and returns the last
// sample.
func settle(ctx context.Context, p *Probe, minWait, maxWait time.Duration, show func(Sample)) (Sample, error) {
	start := time.Now()
	var history []Sample
	for {
		s, err := p.Sample(ctx)
		if err != nil {
			return s, err
		}
		history = append(history, s)
		show(s)
		elapsed := time.Since(start)
		if elapsed >= maxWait || elapsed >= minWait && steady(history, minWait) {
			return s, nil
		}
		if err := sleep(ctx, min(minWait/2, 500*time.Millisecond)); err != nil {
			return s, err
		}
	}
}

// steady reports whether RSS moved less than settleTolerance over the
// last span of samples.
func steady(h []Sample, span time.Duration) bool {
	last := h[len(h)-1]
	for i := len(h) - 1; i >= 0; i-- {
		if last.At.Sub(h[i].At) >= span {
			return math.Abs(last.RSS-h[i].RSS) <= settleTolerance*last.RSS
		}
	}
	return false
}

// window samples the server at the start and the end of d, showing
// progress every second.
func window(ctx context.Context, p *Probe, d time.Duration, show func(Sample, time.Duration)) (Sample, Sample, error) {
	a, err := p.Sample(ctx)
	if err != nil {
		return a, a, err
	}
	end := a.At.Add(d)
	for {
		left := time.Until(end)
		if left <= 0 {
			break
		}
		if err := sleep(ctx, min(left, time.Second)); err != nil {
			return a, a, err
		}
		if time.Until(end) > 0 {
			if s, err := p.Sample(ctx); err == nil {
				show(s, time.Until(end))
			}
		}
	}
	b, err := p.Sample(ctx)
	return a, b, err
}

// cpuRate is the CPU the server used per wall second between a and b.
func cpuRate(a, b Sample) float64 {
	dt := b.At.Sub(a.At).Seconds()
	if dt <= 0 {
		return 0
	}
	return (b.CPUSeconds() - a.CPUSeconds()) / dt
}

// splitRate is cpuRate split into user and system time, from /proc; zeros
// when either sample lacks it.
func splitRate(a, b Sample) (user, system float64) {
	dt := b.At.Sub(a.At).Seconds()
	if a.Proc == nil || b.Proc == nil || dt <= 0 {
		return 0, 0
	}
	return (b.Proc.UserSeconds - a.Proc.UserSeconds) / dt, (b.Proc.SystemSeconds - a.Proc.SystemSeconds) / dt
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// gcSample forces a GC (when the server offers it) and samples; nil when
// the server has no debug endpoint.
func gcSample(ctx context.Context, p *Probe) (*Sample, error) {
	ok, err := p.ForceGC(ctx)
	if err != nil || !ok {
		return nil, err
	}
	// Let the freed pages leave RSS before reading it.
	if err := sleep(ctx, 200*time.Millisecond); err != nil {
		return nil, err
	}
	s, err := p.Sample(ctx)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// mb formats bytes as megabytes.
func mb(b float64) string { return fmt.Sprintf("%.1f MB", b/1e6) }
