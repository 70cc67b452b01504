package hub

import (
	"hash/maphash"
	"iter"
)

// appChannels is one app's channels on this node. Every channel points to
// it, so the app id is stored once per app rather than once per channel,
// and releasing a channel finds its table without a lookup.
type appChannels struct {
	id    string
	table table
}

// table is a set of channels keyed by name: open addressing over a slice
// of pointers whose length is a power of two, at most three quarters full,
// probed linearly from the slot the name hashes to; removal shifts entries
// back, so no tombstones build up. A slot costs 8 bytes where a Go map
// entry costs 24 (a string header and a pointer) plus its control byte:
// with many single-subscriber channels (private-user-123) the index is a
// visible part of what each one costs. Guarded by Hub.mu.
type table struct {
	slots []*Channel
	n     int
}

// tableMin is the length of a table's first slice.
const tableMin = 8

// tableSeed keys the hash; drawn per process, so a client cannot choose
// channel names that all land in one slot.
var tableSeed = maphash.MakeSeed()

// home is the slot where name's probe starts.
func (t *table) home(name string) int {
	return int(maphash.String(tableSeed, name) & uint64(len(t.slots)-1))
}

// get returns the channel called name, or nil.
func (t *table) get(name string) *Channel {
	if t.n == 0 {
		return nil
	}
	mask := len(t.slots) - 1
	for i := t.home(name); t.slots[i] != nil; i = (i + 1) & mask {
		if t.slots[i].name == name {
			return t.slots[i]
		}
	}
	return nil
}

// put adds ch, whose name is not in the table.
func (t *table) put(ch *Channel) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.resize(max(tableMin, 2*len(t.slots)))
	}
	t.insert(ch)
	t.n++
}

// insert puts ch in the first free slot of its probe; there is one.
func (t *table) insert(ch *Channel) {
	mask := len(t.slots) - 1
	i := t.home(ch.name)
	for t.slots[i] != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = ch
}

// remove takes ch out of the table and reports whether it was there.
func (t *table) remove(ch *Channel) bool {
	i := t.index(ch)
	if i < 0 {
		return false
	}
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j] != nil; j = (j + 1) & mask {
		// The entry at j moves back into the hole unless its home lies
		// after the hole, on its way from home to j.
		if h := t.home(t.slots[j].name); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = nil
	t.n--
	if len(t.slots) > tableMin && 8*t.n < len(t.slots) {
		t.resize(len(t.slots) / 2)
	}
	return true
}

// index returns ch's slot, or -1.
func (t *table) index(ch *Channel) int {
	if t.n == 0 {
		return -1
	}
	mask := len(t.slots) - 1
	for i := t.home(ch.name); t.slots[i] != nil; i = (i + 1) & mask {
		if t.slots[i] == ch {
			return i
		}
	}
	return -1
}

// resize moves the channels into a slice of size slots.
func (t *table) resize(size int) {
	old := t.slots
	t.slots = make([]*Channel, size)
	for _, ch := range old {
		if ch != nil {
			t.insert(ch)
		}
	}
}

// all yields every channel in the table.
func (t *table) all() iter.Seq[*Channel] {
	return func(yield func(*Channel) bool) {
		for _, ch := range t.slots {
			if ch != nil && !yield(ch) {
				return
			}
		}
	}
}
