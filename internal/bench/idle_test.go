package bench

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// idleResult builds a result whose baseline used baseCPU and whose hold
// used holdCPU seconds of CPU over 10 s windows, with 1,000 connections.
func idleResult(baseCPU, holdCPU float64) *IdleResult {
	t0 := time.Unix(0, 0)
	win := func(start time.Time, cpu float64) [2]Sample {
		return [2]Sample{{At: start, RSS: 1 << 20}, {At: start.Add(10 * time.Second), RSS: 2 << 20, CPU: cpu}}
	}
	return &IdleResult{Connections: 1000, ActivityTimeout: 10,
		Baseline: win(t0, baseCPU), Hold: win(t0.Add(time.Minute), holdCPU)}
}

// TestIdleCPUNeverNegative checks that a hold that used less CPU than the
// baseline (noise) is reported as below the noise, not as a negative cost.
func TestIdleCPUNeverNegative(t *testing.T) {
	tests := []struct {
		name           string
		base, hold     float64
		wantCPU        float64 // µs/s per connection
		wantBelowNoise bool
	}{
		{"measurable", 0.01, 0.03, 2, false},
		{"hold below baseline", 0.05, 0.02, 0, true},
		{"equal", 0.02, 0.02, 0, true},
	}
	negative := regexp.MustCompile(`-\d`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := idleResult(tt.base, tt.hold)
			r.compute()
			pc := r.PerConn
			if diff := pc.CPU - tt.wantCPU; diff > 1e-9 || diff < -1e-9 || pc.CPUBelowNoise != tt.wantBelowNoise {
				t.Fatalf("CPU %v µs/s, below noise %v; want %v, %v", pc.CPU, pc.CPUBelowNoise, tt.wantCPU, tt.wantBelowNoise)
			}
			if pc.CPU < 0 || pc.CPUDefault < 0 {
				t.Fatalf("negative CPU figure: %+v", pc)
			}
			table := r.Table()
			if negative.MatchString(table) {
				t.Fatalf("table shows a negative figure:\n%s", table)
			}
			if tt.wantBelowNoise && !strings.Contains(table, "below the noise") {
				t.Fatalf("table does not say the CPU is below the noise:\n%s", table)
			}
		})
	}
}

// TestIdlePlanSaysHowLong checks the duration announced before a run.
func TestIdlePlanSaysHowLong(t *testing.T) {
	o := IdleOptions{Connections: 15000}
	o.defaults()
	o.prepare()
	// 10 s baseline + 7.5 s ramp + 60 s hold, plus 3 s to 30 s settling:
	// 80.5 s (rounded to whole seconds) to 107.5 s.
	want := "roost bench idle: 15000 connections; this takes about 1m21s, at most 1m48s " +
		"(baseline 10s, ramp 7.5s at 2000/s, settle 3s to 30s, hold 1m0s)"
	if got := o.plan(); got != want {
		t.Fatalf("plan:\n%s\nwant\n%s", got, want)
	}
}

// TestIdleCPUPerExchange: every connection has one ping exchange per
// activity timeout, so the CPU of one is the CPU per connection times the
// timeout, split as /proc splits the process's time.
func TestIdleCPUPerExchange(t *testing.T) {
	r := idleResult(0.01, 0.03) // 2 µs/s per connection at 10 s
	proc := func(w *[2]Sample, user, system float64) {
		w[0].Proc = &ProcStat{}
		w[1].Proc = &ProcStat{UserSeconds: user, SystemSeconds: system, CPUSeconds: user + system}
	}
	proc(&r.Baseline, 0.005, 0.005)
	proc(&r.Hold, 0.01, 0.02)
	r.compute()
	pc := r.PerConn
	near := func(got, want float64) bool { return got-want < 1e-9 && want-got < 1e-9 }
	if !near(pc.Exchange, 20) || !near(pc.ExchangeUser, 5) || !near(pc.ExchangeSystem, 15) {
		t.Fatalf("per exchange %v µs (%v user, %v system); want 20 (5, 15)", pc.Exchange, pc.ExchangeUser, pc.ExchangeSystem)
	}
	if table := r.Table(); !strings.Contains(table, "20.0 µs (5.0 µs user, 15.0 µs system)") {
		t.Fatalf("table lacks the exchange:\n%s", table)
	}
}
