package webhook

import (
	"sync"
	"time"
)

// Pending remembers the delayed events (channel_vacated, member_removed)
// that are waiting out the delay, by key. A comeback (channel_occupied,
// member_added) cancels the delayed event and is not sent itself: Cancel
// reports whether it found one. At the end of the delay Take reports whether
// the event is still due. In a cluster the store is shared, so that a
// channel vacated on one node and occupied again on another within the delay
// sends nothing.
//
// Each Hold has a token so that the Take of an older hold cannot take a
// newer one: vacated, occupied, vacated again must send one vacated, at the
// end of the second delay.
type Pending interface {
	// Hold marks key as pending with token, for at most ttl.
	Hold(key, token string, ttl time.Duration)
	// Cancel removes key's mark and reports whether there was one.
	Cancel(key string) bool
	// Take removes key's mark if it is still token's and reports whether it
	// was.
	Take(key, token string) bool
}

// memoryPending is the single-node Pending. Marks are removed by Take or
// Cancel, so ttl is not needed.
type memoryPending struct {
	mu    sync.Mutex
	marks map[string]string
}

var _ Pending = (*memoryPending)(nil)

func newMemoryPending() *memoryPending { return &memoryPending{marks: make(map[string]string)} }

// Hold implements Pending.
func (p *memoryPending) Hold(key, token string, ttl time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marks[key] = token
}

// Cancel implements Pending.
func (p *memoryPending) Cancel(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.marks[key]
	delete(p.marks, key)
	return ok
}

// Take implements Pending.
func (p *memoryPending) Take(key, token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.marks[key] != token {
		return false
	}
	delete(p.marks, key)
	return true
}
