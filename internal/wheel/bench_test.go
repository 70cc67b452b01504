package wheel

import (
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
