package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// lastGood wraps a collector that may fail to produce some metrics, and
// sends the last value it did produce for each one it left out. The process
// collector reads /proc/self files: at the file limit it cannot open them
// and sends nothing for process_resident_memory_bytes, process_open_fds and
// the rest, which dashboards then read as 0, just when the figures matter.
// A last value, a scrape old, is the better answer.
type lastGood struct {
	inner prometheus.Collector

	mu   sync.Mutex
	last map[*prometheus.Desc]prometheus.Metric
}

var _ prometheus.Collector = (*lastGood)(nil)

// Describe implements prometheus.Collector.
func (c *lastGood) Describe(ch chan<- *prometheus.Desc) { c.inner.Describe(ch) }

// Collect implements prometheus.Collector: it forwards what the inner
// collector sends, then the last metric of every description it did not.
func (c *lastGood) Collect(ch chan<- prometheus.Metric) {
	got := make(chan prometheus.Metric)
	go func() {
		c.inner.Collect(got)
		close(got)
	}()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = make(map[*prometheus.Desc]prometheus.Metric)
	}
	seen := make(map[*prometheus.Desc]bool)
	for m := range got {
		ch <- m
		seen[m.Desc()] = true
		c.last[m.Desc()] = m
	}
	for d, m := range c.last {
		if !seen[d] {
			ch <- m
		}
	}
}
