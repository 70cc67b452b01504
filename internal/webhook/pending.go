package webhook

import (
	"sync"
	"time"
)

// Pending remembers the delayed events (channel_vacated, member_removed)
// that are waiting out the delay, by key. A comeback (channel_occupied,
// member_added) cancels the delayed event and is not sent itself. At the
// end of the delay an event is sent only if its mark is still there. In a
// cluster the store is shared, so that a channel vacated on one node and
// occupied again on another within the delay sends nothing.
//
// Each hold has a token so that the take of an older hold cannot take a
// newer one: vacated, occupied, vacated again must send one vacated, at the
// end of the second delay.
//
// Apply runs a batch of operations in order (one round trip for a shared
// store, however many facts arrived together) and sets each Op's Found.
type Pending interface {
	Apply(ops []Op)
}

// OpKind is what an Op does.
type OpKind uint8

// The operations on a Pending store.
const (
	// OpHold marks Key as pending with Token, for at most TTL.
	OpHold OpKind = iota
	// OpCancel removes Key's mark; Found reports there was one.
	OpCancel
	// OpTake removes Key's mark if it is still Token's; Found reports it
	// was.
	OpTake
)

// Op is one operation on a Pending store.
type Op struct {
	Kind       OpKind
	Key, Token string
	TTL        time.Duration
	Found      bool
}

// memoryPending is the single-node Pending. Marks are removed by a take or
// a cancel, so the TTL is not needed.
type memoryPending struct {
	mu    sync.Mutex
	marks map[string]string
}

var _ Pending = (*memoryPending)(nil)

func newMemoryPending() *memoryPending { return &memoryPending{marks: make(map[string]string)} }

// Apply implements Pending.
func (p *memoryPending) Apply(ops []Op) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range ops {
		op := &ops[i]
		token, ok := p.marks[op.Key]
		switch op.Kind {
		case OpHold:
			p.marks[op.Key] = op.Token
		case OpCancel:
			op.Found = ok
			delete(p.marks, op.Key)
		case OpTake:
			op.Found = ok && token == op.Token
			if op.Found {
				delete(p.marks, op.Key)
			}
		}
	}
}
