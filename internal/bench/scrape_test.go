package bench

import (
	"strings"
	"testing"
)

// exposition is a trimmed real scrape of `roost serve`.
const exposition = `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1.142784e+07
process_cpu_seconds_total 0.25
roost_build_info{version="0.1.0-dev"} 1
roost_connections{transport="epoll"} 5
roost_connections{transport="portable"} 2
roost_connections_closed_total{reason="client",transport="epoll"} 3
odd{label="with } brace and \" quote"} 4 1700000000000
go_gc_duration_seconds{quantile="0.5"} NaN
`

func TestParseMetrics(t *testing.T) {
	m, err := ParseMetrics(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		series string
		want   float64
	}{
		{"process_resident_memory_bytes", 11427840},
		{"process_cpu_seconds_total", 0.25},
		{`roost_connections{transport="epoll"}`, 5},
		{`odd{label="with } brace and \" quote"}`, 4},
	}
	for _, tt := range tests {
		if got, ok := m[tt.series]; !ok || got != tt.want {
			t.Errorf("%s = %v (present %v), want %v", tt.series, got, ok, tt.want)
		}
	}
	if sum, ok := m.Sum("roost_connections"); !ok || sum != 7 {
		t.Errorf("Sum(roost_connections) = %v %v, want 7", sum, ok)
	}
	if _, ok := m.Sum("roost_missing"); ok {
		t.Error("Sum of a missing metric reports found")
	}
}

func TestParseMetricsErrors(t *testing.T) {
	for _, bad := range []string{
		"novalue",
		`x{a="b" 1`,
		"x 1 2 3",
		"x one",
		`x{a="b"}`,
	} {
		if _, err := ParseMetrics(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseMetrics(%q): no error", bad)
		}
	}
}

// FuzzParseMetrics feeds the metrics parser arbitrary text seeded with a
// real exposition: it must never panic, and every series it returns must
// be a prefix of some input line.
func FuzzParseMetrics(f *testing.F) {
	f.Add(exposition)
	f.Add("roost_subscriptions 19000\n")
	f.Add(`a{b="\\"} 1` + "\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseMetrics(strings.NewReader(text))
		if err != nil {
			return
		}
		for series := range m {
			if !strings.Contains(text, series) {
				t.Fatalf("series %q not in input", series)
			}
		}
	})
}
