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

// The operations on a Pending store. A cancel or a take leaves a receipt
// in the mark's place (for the rest of its TTL) rather than removing it,
// so that one asked again after the store did not answer finds what it did
// the first time: a write that timed out may still have been made.
const (
	// OpHold marks Key as pending with Token, for at most TTL, in place of
	// whatever Key had.
	OpHold OpKind = iota
	// OpCancel cancels Key's mark, if it is pending, leaving Token (the
	// comeback's own) as its receipt; Found reports it was pending, or
	// already cancelled with Token.
	OpCancel
	// OpTake takes Key's mark if it is pending with Token; Found reports it
	// was, or was already taken with Token.
	OpTake
)

// Mark is what a Pending keeps of a key: a pending hold's token, or the
// receipt of the cancel or take that ended it.
type Mark struct {
	Token string
	Done  OpKind // OpHold: still pending; OpCancel or OpTake: ended by that
}

// ApplyTo does op to m, a key's mark (ok: the key has one), as every
// Pending must, and sets op.Found; it returns the key's mark after op.
func (op *Op) ApplyTo(m Mark, ok bool) Mark {
	switch op.Kind {
	case OpHold:
		return Mark{Token: op.Token}
	case OpCancel:
		op.Found = ok && (m.Done == OpHold || m.Done == OpCancel && m.Token == op.Token)
	case OpTake:
		op.Found = ok && m.Token == op.Token && (m.Done == OpHold || m.Done == OpTake)
	}
	if op.Found {
		return Mark{Token: op.Token, Done: op.Kind}
	}
	return m
}

// Op is one operation on a Pending store.
type Op struct {
	Kind       OpKind
	Key, Token string
	TTL        time.Duration
	Found      bool
	// Unanswered reports that the store was not asked, or did not answer:
	// Found is then a guess towards sending (a cancel found nothing, a
	// take is due), and the op is asked again (see takeRetry).
	Unanswered bool
}

// memoryPending is the single-node Pending. Marks are removed by a take or
// a cancel, so the TTL is not needed.
type memoryPending struct {
	mu    sync.Mutex
	marks map[string]Mark
}

var _ Pending = (*memoryPending)(nil)

func newMemoryPending() *memoryPending { return &memoryPending{marks: make(map[string]Mark)} }

// Apply implements Pending.
func (p *memoryPending) Apply(ops []Op) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range ops {
		op := &ops[i]
		m, ok := p.marks[op.Key]
		m = op.ApplyTo(m, ok)
		switch {
		case op.Kind == OpHold:
			p.marks[op.Key] = m
		case op.Found:
			delete(p.marks, op.Key) // no receipt: one node never asks again
		}
	}
}
