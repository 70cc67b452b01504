package wheel

import (
	"slices"
	"testing"
	"time"
)

const sec = int64(time.Second)

// fired advances w to now and returns the ids it fired, sorted.
func fired(w *Wheel, now int64) []int32 {
	var got []int32
	w.Advance(now, func(id int32) { got = append(got, id) })
	slices.Sort(got)
	return got
}

func TestNextTimeout(t *testing.T) {
	start := 1000 * sec
	tests := []struct {
		name  string
		sched map[int32]int64 // id -> deadline offset from start
		want  time.Duration
	}{
		{"empty", nil, -1},
		{"due now", map[int32]int64{1: 0}, 0},
		{"overdue", map[int32]int64{1: -5 * sec}, 0},
		{"inside next tick", map[int32]int64{1: sec / 2}, time.Second},
		{"on a tick boundary", map[int32]int64{1: 3 * sec}, 3 * time.Second},
		{"earliest wins", map[int32]int64{1: 7 * sec, 2: 4 * sec}, 4 * time.Second},
		{"beyond the span", map[int32]int64{1: 20 * sec}, 4 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New(time.Second, 8, start)
			for id, off := range tt.sched {
				w.Schedule(id, start+off)
			}
			if got := w.NextTimeout(start); got != tt.want {
				t.Errorf("NextTimeout = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAdvanceFiresOnlyDue(t *testing.T) {
	start := 50 * sec
	w := New(time.Second, 4, start)
	w.Schedule(1, start+sec)
	w.Schedule(2, start+sec+sec/2)
	w.Schedule(3, start+9*sec) // two rotations out, same slot as 1
	w.Schedule(4, start+2*sec)
	steps := []struct {
		now  int64
		want []int32
	}{
		{start + sec - 1, nil},
		{start + sec, []int32{1}},
		{start + sec + sec/2, []int32{2}},
		{start + 8*sec, []int32{4}},
		{start + 9*sec, []int32{3}},
	}
	for _, s := range steps {
		if got := fired(w, s.now); !slices.Equal(got, s.want) {
			t.Fatalf("Advance(%d): fired %v, want %v", s.now-start, got, s.want)
		}
	}
	if w.Len() != 0 {
		t.Fatalf("Len = %d after all fired", w.Len())
	}
}

func TestScheduleCancel(t *testing.T) {
	w := New(time.Second, 16, 0)
	w.Schedule(7, 5*sec)
	if at, ok := w.Scheduled(7); !ok || at != 5*sec {
		t.Fatalf("Scheduled(7) = %d, %v", at, ok)
	}
	w.Schedule(7, 9*sec) // reschedule moves it
	w.Schedule(300, 9*sec)
	w.Cancel(7)
	w.Cancel(7)    // twice is a no-op
	w.Cancel(1000) // never seen is a no-op
	w.Cancel(-1)
	if _, ok := w.Scheduled(7); ok || w.Len() != 1 {
		t.Fatalf("after Cancel: scheduled=%v len=%d", ok, w.Len())
	}
	if got := fired(w, 9*sec); !slices.Equal(got, []int32{300}) {
		t.Fatalf("fired %v, want [300]", got)
	}
}

func TestFireMayReschedule(t *testing.T) {
	w := New(time.Second, 8, 0)
	for id := int32(0); id < 4; id++ {
		w.Schedule(id, sec)
	}
	var order []int32
	fire := func(id int32) {
		order = append(order, id)
		switch id {
		case 0:
			w.Schedule(0, 3*sec) // itself, later
		case 1:
			w.Schedule(1, 0) // itself, already due: next Advance
		}
		for _, other := range []int32{2, 3} { // whichever of 2, 3 fires first cancels the other
			if other != id && id >= 2 {
				w.Cancel(other)
			}
		}
	}
	w.Advance(sec, fire)
	if len(order) != 3 || !slices.Contains(order, 0) || !slices.Contains(order, 1) {
		t.Fatalf("first Advance fired %v, want 0, 1 and one of 2, 3", order)
	}
	if d := w.NextTimeout(sec); d != 0 {
		t.Fatalf("NextTimeout = %v, want 0 for the id rescheduled as due", d)
	}
	if got := fired(w, sec); !slices.Equal(got, []int32{1}) {
		t.Fatalf("second Advance fired %v, want [1]", got)
	}
	if got := fired(w, 3*sec); !slices.Equal(got, []int32{0}) {
		t.Fatalf("third Advance fired %v, want [0]", got)
	}
}

func TestNegativeIDPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Schedule(-1) did not panic")
		}
	}()
	New(time.Second, 1, 0).Schedule(-1, 0)
}

func TestSlotsRoundUp(t *testing.T) {
	for _, tt := range []struct{ in, want int }{{0, 1}, {1, 1}, {3, 4}, {64, 64}, {65, 128}} {
		if got := int(New(time.Second, tt.in, 0).mask + 1); got != tt.want {
			t.Errorf("New(slots=%d) has %d slots, want %d", tt.in, got, tt.want)
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	w := New(time.Second, 256, 0)
	w.Schedule(1023, sec) // grow once
	now := int64(0)
	allocs := testing.AllocsPerRun(100, func() {
		for id := int32(0); id < 1024; id++ {
			w.Schedule(id, now+int64(id%300)*sec)
		}
		w.Cancel(5)
		now += sec
		w.Advance(now, func(int32) {})
		_ = w.NextTimeout(now)
	})
	if allocs != 0 {
		t.Fatalf("allocs per run = %v, want 0", allocs)
	}
}
