package wheel

import (
	"math/bits"
	"time"
)

// Advance moves the wheel to now and calls fire for every id whose deadline
// is at or before now, in no guaranteed order, unscheduling each just before
// its call. Ids whose deadline lies beyond now stay scheduled, including
// those a rotation or more away that share a visited slot.
//
// fire may Schedule or Cancel any id, the fired one included: cancelling an
// id that is due but not yet fired stops it firing; an id scheduled from
// fire with a deadline at or before now fires on the next Advance (and
// NextTimeout reports 0), so a callback that reschedules itself cannot spin.
//
// now should not go backwards; if it does, nothing fires that is not due.
func (w *Wheel) Advance(now int64, fire func(id int32)) {
	w.collect(w.expired, now)
	last := floorDiv(now, w.tick) + 1
	from := max(w.pos, last-w.mask)
	for t := from; t <= last; t++ {
		w.collect(int(t&w.mask), now)
	}
	w.pos = max(w.pos, last)
	w.now = max(w.now, now)
	for w.heads[w.firing] != none {
		id := w.heads[w.firing]
		w.unlink(id)
		fire(id)
	}
}

// collect moves the ids of list l that are due at now to the firing list. No
// callback runs during the walk, so the list cannot change under it.
func (w *Wheel) collect(l int, now int64) {
	for id := w.heads[l]; id != none; {
		nx := w.next[id]
		if w.at[id] <= now {
			w.unlink(id)
			w.link(id, w.firing)
		}
		id = nx
	}
}

// NextTimeout returns how long the loop may sleep before it must call
// Advance: until the start of the next non-empty slot, 0 if some id is due
// already, or -1 if nothing is scheduled (sleep until woken). Call it after
// Advance with the same now; the answer is then never 0 unless a fire
// callback scheduled an id that is already due. An id is found at most one
// tick after its deadline.
func (w *Wheel) NextTimeout(now int64) time.Duration {
	if w.count == 0 {
		return -1
	}
	if w.heads[w.expired] != none || w.heads[w.firing] != none {
		return 0
	}
	d, ok := w.nextBusy(w.pos & w.mask)
	if !ok {
		return -1 // unreachable: count > 0 with every list empty
	}
	return time.Duration(max((w.pos+d)*w.tick-now, 0))
}

// nextBusy returns the distance in slots from slot s, wrapping round, to the
// first non-empty slot, scanning the occupancy bitmap a word at a time.
func (w *Wheel) nextBusy(s int64) (int64, bool) {
	n := w.mask + 1
	word := s / 64
	bitsLeft := w.busy[word] &^ (1<<(s%64) - 1)
	for i := int64(0); i <= int64(len(w.busy)); i++ {
		if bitsLeft != 0 {
			slot := word*64 + int64(bits.TrailingZeros64(bitsLeft))
			return (slot - s + n) % n, true
		}
		word = (word + 1) % int64(len(w.busy))
		bitsLeft = w.busy[word]
	}
	return 0, false
}
