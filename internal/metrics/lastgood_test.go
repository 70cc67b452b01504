package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// flaky sends both of its metrics on the first scrape and only the first
// on later ones, as the process collector does when /proc cannot be opened.
type flaky struct {
	a, b   *prometheus.Desc
	scrape int
}

func (f *flaky) Describe(ch chan<- *prometheus.Desc) { ch <- f.a; ch <- f.b }
func (f *flaky) Collect(ch chan<- prometheus.Metric) {
	f.scrape++
	ch <- prometheus.MustNewConstMetric(f.a, prometheus.GaugeValue, float64(f.scrape))
	if f.scrape == 1 {
		ch <- prometheus.MustNewConstMetric(f.b, prometheus.GaugeValue, 42)
	}
}

// TestLastGoodKeepsMissingMetrics: a metric the collector could not read
// is served with its last value, never dropped (which reads as 0).
func TestLastGoodKeepsMissingMetrics(t *testing.T) {
	f := &flaky{a: prometheus.NewDesc("a", "a", nil, nil), b: prometheus.NewDesc("process_open_fds", "b", nil, nil)}
	reg := prometheus.NewRegistry()
	reg.MustRegister(&lastGood{inner: f})
	for scrape := 1; scrape <= 3; scrape++ {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, mf := range mfs {
			got = append(got, fmt.Sprintf("%s=%g", mf.GetName(), mf.GetMetric()[0].GetGauge().GetValue()))
		}
		want := fmt.Sprintf("a=%d process_open_fds=42", scrape)
		if strings.Join(got, " ") != want {
			t.Fatalf("scrape %d: %q, want %q", scrape, got, want)
		}
	}
}
