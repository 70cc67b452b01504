package wheel

import (
	"math"
	"math/bits"
	"time"
)

const (
	// none ends a list.
	none int32 = -1
	// unscheduled is the prev value of an id that is in no list. Any other
	// negative prev marks the head of list l as -1-l (see headMark).
	unscheduled int32 = math.MinInt32
)

// Wheel is a hashed timing wheel keyed by small non-negative int32 ids.
//
// Lists 0..slots-1 are the wheel's slots; list expired holds ids scheduled
// at or before the last Advance (they are due at once); list firing holds the
// ids Advance has found due and not yet handed to its callback.
type Wheel struct {
	tick    int64    // slot width in nanoseconds
	mask    int64    // slots-1; the number of slots is a power of two
	heads   []int32  // first id of each list, or none
	busy    []uint64 // bit s set when slot s is non-empty
	next    []int32  // per id: the next id in its list, or none
	prev    []int32  // per id: the previous id, a head mark, or unscheduled
	at      []int64  // per id: the deadline, valid while scheduled
	pos     int64    // first tick whose slot may hold ids not yet due
	now     int64    // the time of the last Advance (or of New)
	count   int      // ids scheduled
	expired int      // list index of ids due at the next Advance
	firing  int      // list index of ids being fired by Advance
}

// New returns an empty wheel whose slots are tick wide. slots is rounded up
// to a power of two (at least 1); tick*slots is the span one rotation covers,
// and deadlines past it cost one skipped visit per rotation. now is the
// current time in Unix nanoseconds. New panics if tick is not positive.
func New(tick time.Duration, slots int, now int64) *Wheel {
	if tick <= 0 {
		panic("wheel: tick must be positive")
	}
	n := 1 << bits.Len(uint(max(slots, 1)-1))
	w := &Wheel{
		tick:    int64(tick),
		mask:    int64(n - 1),
		heads:   make([]int32, n+2),
		busy:    make([]uint64, (n+63)/64),
		pos:     floorDiv(now, int64(tick)) + 1,
		now:     now,
		expired: n,
		firing:  n + 1,
	}
	for i := range w.heads {
		w.heads[i] = none
	}
	return w
}

// Len returns the number of scheduled ids.
func (w *Wheel) Len() int { return w.count }

// Scheduled reports the deadline of id and whether id is scheduled.
func (w *Wheel) Scheduled(id int32) (at int64, ok bool) {
	if !w.isScheduled(id) {
		return 0, false
	}
	return w.at[id], true
}

// Schedule sets the deadline of id to at (Unix nanoseconds), replacing any
// earlier deadline. It is O(1); the per-id arrays grow when id is new and
// larger than any seen, and never otherwise. Schedule panics if id < 0.
func (w *Wheel) Schedule(id int32, at int64) {
	if id < 0 {
		panic("wheel: negative id")
	}
	if int(id) >= len(w.prev) {
		w.grow(int(id) + 1)
	}
	if w.prev[id] != unscheduled {
		w.unlink(id)
	}
	w.at[id] = at
	w.link(id, w.listFor(at))
}

// Cancel unschedules id in O(1). It does nothing if id is not scheduled.
func (w *Wheel) Cancel(id int32) {
	if w.isScheduled(id) {
		w.unlink(id)
	}
}

// isScheduled reports whether id is in some list.
func (w *Wheel) isScheduled(id int32) bool {
	return id >= 0 && int(id) < len(w.prev) && w.prev[id] != unscheduled
}

// listFor returns the list an id due at at belongs in. A deadline at or
// before the last Advance is due at once. A later one goes to the slot of
// the first tick that starts at or after it, so that when the wheel reaches
// that tick's start every id of the slot's current rotation is due: an id
// fires at most one tick late and never early.
func (w *Wheel) listFor(at int64) int {
	if at <= w.now {
		return w.expired
	}
	return int(ceilDiv(at, w.tick) & w.mask)
}

// grow extends the per-id arrays to hold at least n ids, by a quarter so
// that a rising id costs amortised O(1) while the arrays, 16 bytes per id
// and one id per connection of a loop, stay at most a quarter larger than
// needed (doubling left them half empty after the step past a power of two).
func (w *Wheel) grow(n int) {
	n = max(n, len(w.prev)+len(w.prev)/4, 64)
	old := len(w.prev)
	w.next = append(w.next, make([]int32, n-old)...)
	w.prev = append(w.prev, make([]int32, n-old)...)
	w.at = append(w.at, make([]int64, n-old)...)
	for i := old; i < n; i++ {
		w.prev[i] = unscheduled
	}
}

// headMark is the prev value of the first id of list l.
func headMark(l int) int32 { return -1 - int32(l) }

// listOfMark inverts headMark.
func listOfMark(p int32) int { return int(-1 - p) }

// link pushes id onto the front of list l.
func (w *Wheel) link(id int32, l int) {
	h := w.heads[l]
	w.next[id] = h
	w.prev[id] = headMark(l)
	if h != none {
		w.prev[h] = id
	} else if l < w.expired {
		w.busy[l/64] |= 1 << (l % 64)
	}
	w.heads[l] = id
	w.count++
}

// unlink removes id from its list and marks it unscheduled.
func (w *Wheel) unlink(id int32) {
	p, nx := w.prev[id], w.next[id]
	if p >= 0 {
		w.next[p] = nx
	} else {
		l := listOfMark(p)
		w.heads[l] = nx
		if nx == none && l < w.expired {
			w.busy[l/64] &^= 1 << (l % 64)
		}
	}
	if nx != none {
		w.prev[nx] = p
	}
	w.prev[id] = unscheduled
	w.count--
}

// floorDiv is a/b rounded towards minus infinity, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// ceilDiv is a/b rounded towards plus infinity, for b > 0, without the
// overflow of (a+b-1)/b near math.MaxInt64.
func ceilDiv(a, b int64) int64 {
	q := floorDiv(a, b)
	if q*b < a {
		q++
	}
	return q
}
