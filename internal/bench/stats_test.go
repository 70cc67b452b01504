package bench

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

func TestFitLine(t *testing.T) {
	tests := []struct {
		name         string
		x, y         []float64
		slope, inter float64
		r2           float64
	}{
		{"two points", []float64{0, 10}, []float64{5, 25}, 2, 5, 1},
		{"exact line", []float64{0, 5000, 10000, 15000, 19000}, []float64{1e7, 1.2e7, 1.4e7, 1.6e7, 1.76e7}, 400, 1e7, 1},
		{"flat", []float64{1, 2, 3}, []float64{7, 7, 7}, 0, 7, 0},
		// Worked by hand: sxx = 5, sxy = 3, syy = 5.
		{"noisy", []float64{0, 1, 2, 3}, []float64{2, 1, 4, 3}, 0.6, 1.6, 0.36},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := FitLine(tt.x, tt.y)
			if err != nil {
				t.Fatal(err)
			}
			if !near(f.Slope, tt.slope) || !near(f.Intercept, tt.inter) || !near(f.R2, tt.r2) {
				t.Fatalf("got %+v, want slope %v intercept %v r2 %v", f, tt.slope, tt.inter, tt.r2)
			}
		})
	}
}

func TestFitLineErrors(t *testing.T) {
	for _, xy := range [][2][]float64{
		{{1}, {1}}, {{1, 2}, {1}}, {{3, 3, 3}, {1, 2, 3}}, {nil, nil},
	} {
		if _, err := FitLine(xy[0], xy[1]); err == nil {
			t.Errorf("FitLine(%v, %v): no error", xy[0], xy[1])
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestPercentile(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i) // 100..1, unsorted
	}
	tests := []struct {
		samples []float64
		p, want float64
	}{
		{nil, 50, 0},
		{[]float64{7}, 99.9, 7},
		{[]float64{3, 1, 2}, 50, 2},
		{hundred, 50, 50},
		{hundred, 99, 99},
		{hundred, 99.9, 100},
		{hundred, 1, 1},
		{hundred, 0, 1},
	}
	for _, tt := range tests {
		if got := Percentile(tt.samples, tt.p); got != tt.want {
			t.Errorf("Percentile(%d samples, %v) = %v, want %v", len(tt.samples), tt.p, got, tt.want)
		}
	}
	if hundred[0] != 100 {
		t.Error("Percentile sorted its input")
	}
}

// TestHistogramMatchesExact compares the histogram's percentiles with exact
// ones over random latencies: they must agree within the bucket width.
func TestHistogramMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	exact := make([]float64, 0, 100000)
	for range 100000 {
		v := int64(r.ExpFloat64() * 2e6) // ~2 ms mean, long tail
		h.Record(v)
		exact = append(exact, float64(v))
	}
	for _, p := range []float64{1, 50, 90, 99, 99.9, 100} {
		want := Percentile(exact, p)
		got := float64(h.Percentile(p))
		if math.Abs(got-want) > want/histSub+1 {
			t.Errorf("p%v: histogram %v, exact %v", p, got, want)
		}
	}
	if h.Count() != 100000 || float64(h.Max()) != Percentile(exact, 100) {
		t.Errorf("count %d max %d", h.Count(), h.Max())
	}
}

func TestHistogramSmallValuesExact(t *testing.T) {
	var h Histogram
	for v := int64(0); v < 200; v++ {
		h.Record(v)
	}
	h.Record(-5) // counts as 0
	if got := h.Percentile(50); got != 99 {
		t.Errorf("p50 = %d, want 99", got)
	}
	if got := h.Percentile(100); got != 199 {
		t.Errorf("p100 = %d, want 199", got)
	}
}

func TestHistogramMergeAndJSON(t *testing.T) {
	var a, b Histogram
	for v := int64(1); v <= 1000; v++ {
		a.Record(v * 1000)
		b.Record(v*1000 + 1e6)
	}
	raw, err := json.Marshal(&b)
	if err != nil {
		t.Fatal(err)
	}
	var back Histogram
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	a.Merge(&back)
	if a.Count() != 2000 || a.Max() != 2e6 {
		t.Fatalf("merged count %d max %d", a.Count(), a.Max())
	}
	if p := a.Percentile(50); math.Abs(float64(p)-1e6) > 1e6/histSub {
		t.Errorf("merged p50 = %d, want ~1e6", p)
	}
	var empty Histogram
	if empty.Percentile(99) != 0 {
		t.Error("empty histogram p99 is not 0")
	}
}

func TestHistogramRejectsBadBucket(t *testing.T) {
	var h Histogram
	if err := json.Unmarshal([]byte(`{"buckets":[[999999999,1]],"max":1}`), &h); err == nil {
		t.Fatal("no error for an out-of-range bucket")
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	var h Histogram
	h.Record(1 << 40)
	b.ReportAllocs()
	v := int64(12345)
	for b.Loop() {
		h.Record(v)
		v = v*7 + 13&(1<<30-1)
	}
}

func TestNiceCeil(t *testing.T) {
	for v, want := range map[float64]float64{514: 600, 42.5: 50, 19000: 20000, 1: 1, 0.7: 0.8, 2300: 2400} {
		if got := niceCeil(v); !near(got, want) {
			t.Errorf("niceCeil(%v) = %v, want %v", v, got, want)
		}
	}
}
