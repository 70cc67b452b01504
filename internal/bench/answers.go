package bench

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// answers records what the HTTP API answered a publisher: how long each
// request took, and its status. It is safe for concurrent use.
type answers struct {
	mu       sync.Mutex // guards the fields below
	all      Histogram  // every answered request, ns
	window   Histogram  // those since the last takeWindow, ns
	statuses map[int]int64
}

// record counts one answered request.
func (a *answers) record(status int, took time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.statuses == nil {
		a.statuses = make(map[int]int64)
	}
	a.statuses[status]++
	a.all.Record(int64(took))
	a.window.Record(int64(took))
}

// takeWindow returns the requests answered since the last call and starts
// a new window.
func (a *answers) takeWindow() Histogram {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.window
	a.window = Histogram{}
	return w
}

// APIAnswers is what the HTTP API answered a run of publishes.
type APIAnswers struct {
	// PerSecond is the requests answered 200 per second of the run.
	PerSecond float64 `json:"requests_per_second"`
	// Latency is from sending a request to reading its answer, whatever
	// its status, in milliseconds.
	Latency Latency `json:"latency"`
	// Statuses counts the answers by HTTP status.
	Statuses map[int]int64 `json:"statuses"`
	// Seconds is the latency of the requests answered in each second of
	// the run, in order (a store's pause shows here).
	Seconds []Latency `json:"seconds,omitempty"`
}

// summary sums up the answers of a run that lasted d.
func (a *answers) summary(d time.Duration) APIAnswers {
	a.mu.Lock()
	defer a.mu.Unlock()
	return APIAnswers{PerSecond: float64(a.statuses[200]) / d.Seconds(), Latency: latency(&a.all), Statuses: maps.Clone(a.statuses)}
}

// String renders the answers on one line.
func (s APIAnswers) String() string {
	var codes []string
	for _, c := range slices.Sorted(maps.Keys(s.Statuses)) {
		codes = append(codes, fmt.Sprintf("%d x%d", c, s.Statuses[c]))
	}
	seconds := make([]string, len(s.Seconds))
	for i, l := range s.Seconds {
		seconds[i] = fmt.Sprintf("%d@%.0f", l.Count, l.Max)
	}
	return fmt.Sprintf("%.0f requests/s answered 200; p50 %.1f / p99 %.1f / max %.1f ms; statuses %s; each second's answers@max ms: %s",
		s.PerSecond, s.Latency.P50, s.Latency.P99, s.Latency.Max, strings.Join(codes, ", "), strings.Join(seconds, " "))
}
