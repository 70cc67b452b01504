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
