package wheel

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAgainstModel drives a wheel and a map of deadlines with the same random
// operations and checks that they agree after every step.
func TestAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		tick := time.Duration(1+rng.IntN(3)) * time.Second
		slots := 1 << rng.IntN(7)
		runModel(t, rng, tick, slots, 3000)
	}
}

func runModel(t *testing.T, rng *rand.Rand, tick time.Duration, slots, steps int) {
	t.Helper()
	now := rng.Int64N(1 << 40)
	w := New(tick, slots, now)
	model := map[int32]int64{}
	span := int64(tick) * int64(w.mask+1)
	for step := 0; step < steps; step++ {
		id := int32(rng.IntN(300))
		switch r := rng.IntN(10); {
		case r < 5:
			at := now + rng.Int64N(3*span+4*int64(tick)) - 2*int64(tick)
			w.Schedule(id, at)
			model[id] = at
		case r < 7:
			w.Cancel(id)
			delete(model, id)
		default:
			now += advanceBy(rng, tick, span)
			checkAdvance(t, w, model, now)
		}
		checkState(t, w, model)
	}
}

func advanceBy(rng *rand.Rand, tick time.Duration, span int64) int64 {
	if rng.IntN(20) == 0 {
		return rng.Int64N(3 * span)
	}
	return rng.Int64N(2 * int64(tick))
}

func checkAdvance(t *testing.T, w *Wheel, model map[int32]int64, now int64) {
	t.Helper()
	got := map[int32]bool{}
	w.Advance(now, func(id int32) {
		if got[id] {
			t.Fatalf("id %d fired twice", id)
		}
		got[id] = true
	})
	for id, at := range model {
		if due := at <= now; due != got[id] {
			t.Fatalf("now %d: id %d at %d fired=%v, want %v", now, id, at, got[id], due)
		}
		if at <= now {
			delete(model, id)
		}
	}
	checkTimeout(t, w, model, now, int64(w.tick))
}

// checkTimeout: -1 when empty; otherwise positive (nothing is due after an
// Advance) and never later than one tick past the earliest deadline.
func checkTimeout(t *testing.T, w *Wheel, model map[int32]int64, now, tick int64) {
	t.Helper()
	d := w.NextTimeout(now)
	if len(model) == 0 {
		if d != -1 {
			t.Fatalf("NextTimeout = %v on an empty wheel", d)
		}
		return
	}
	earliest := int64(1<<63 - 1)
	for _, at := range model {
		earliest = min(earliest, at)
	}
	if d <= 0 || int64(d) >= earliest-now+tick {
		t.Fatalf("NextTimeout = %v; earliest deadline in %v, tick %v", d, time.Duration(earliest-now), time.Duration(tick))
	}
}

func checkState(t *testing.T, w *Wheel, model map[int32]int64) {
	t.Helper()
	if w.Len() != len(model) {
		t.Fatalf("Len = %d, model has %d", w.Len(), len(model))
	}
	for id := int32(0); id < 300; id++ {
		at, ok := w.Scheduled(id)
		want, wantOK := model[id]
		if ok != wantOK || at != want {
			t.Fatalf("Scheduled(%d) = %d, %v; model %d, %v", id, at, ok, want, wantOK)
		}
	}
}
