package bench

import (
	"testing"
	"time"
)

// TestAnswersCountOnly200sAsThroughput: the API figures count every answer's
// latency and status, but only the 200s as requests answered per second,
// and each window holds only what was answered since the last one.
func TestAnswersCountOnly200sAsThroughput(t *testing.T) {
	var a answers
	a.record(200, 2*time.Millisecond)
	a.record(429, time.Millisecond)
	if w := a.takeWindow(); w.Count() != 2 {
		t.Fatalf("first window holds %d answers, want 2", w.Count())
	}
	a.record(200, 3*time.Second)
	if w := a.takeWindow(); w.Count() != 1 || ms(w.Max()) < 2999 {
		t.Fatalf("second window: %d answers, max %.0f ms; want the one 3 s answer", w.Count(), ms(w.Max()))
	}
	s := a.summary(2 * time.Second)
	if s.PerSecond != 1 || s.Statuses[200] != 2 || s.Statuses[429] != 1 || s.Latency.Count != 3 {
		t.Fatalf("summary %+v: want 1 request/s answered 200, statuses 200 x2 and 429 x1, 3 latencies", s)
	}
}
