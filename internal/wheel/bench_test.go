package wheel

import (
	"runtime"
	"testing"
	"time"
)

const benchIDs = 100_000

// loaded returns a wheel with benchIDs ids spread over 150 s, as an epoll
// loop's activity deadlines would be.
func loaded() *Wheel {
	w := New(time.Second, 256, 0)
	for id := int32(0); id < benchIDs; id++ {
		w.Schedule(id, int64(id%150+1)*sec)
	}
	return w
}

func BenchmarkSchedule(b *testing.B) {
	w := loaded()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		w.Schedule(int32(i%benchIDs), int64(i%150+1)*sec)
	}
}

func BenchmarkCancel(b *testing.B) {
	w := loaded()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		id := int32(i % benchIDs)
		w.Cancel(id)
		w.Schedule(id, int64(i%150+1)*sec)
	}
}

// BenchmarkAdvance fires one second's worth of deadlines (about 667 ids)
// per iteration and schedules each fired id 150 s later, the steady state of
// a loop with 100k connections and a 150 s activity deadline.
func BenchmarkAdvance(b *testing.B) {
	w := loaded()
	now := int64(0)
	resched := func(id int32) { w.Schedule(id, now+150*sec) }
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		now += sec
		w.Advance(now, resched)
		_ = w.NextTimeout(now)
	}
}

// BenchmarkIDBytes reports the heap bytes per id of a wheel whose ids rise
// from 0, as a loop's connection slots do: the mean over 5,000 to 20,000
// ids, so that it does not depend on where one count falls among the steps
// of growth.
func BenchmarkIDBytes(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var sum float64
		var steps int
		for n := 5000; n <= 20000; n += 500 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			w := New(time.Second, 512, 0)
			for id := int32(0); id < int32(n); id++ {
				w.Schedule(id, int64(id%150+1)*sec)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			sum += float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
			steps++
			runtime.KeepAlive(w)
		}
		b.ReportMetric(sum/float64(steps), "B/id")
	}
}
