package webhook

import (
	"slices"
	"sync"
	"time"
)

// maxIntake bounds the facts waiting for the intake goroutine; more are
// dropped and counted (DropIntakeFull).
const maxIntake = 1 << 16

// What the intake goroutine does with a fact.
const (
	opSend     uint8 = iota // route the event
	opComeback              // route it unless it cancels a held event
	opDelay                 // hold it for the delay
	opTake                  // the delay is over: route it if still held
)

// fact is one entry of the intake.
type fact struct {
	app        *app
	op         uint8
	ev         Event
	key, token string    // the Pending key (pairs) and the hold's token
	rec        uint64    // a held event's record in the outbox; 0: none
	giveUp     time.Time // a take the store did not answer is sent from then on
	unheld     bool      // a take whose hold the store did not answer (see handle)
}

// intake is the bounded hand-over from the hub's goroutines to the intake
// goroutine: a push holds the mutex for one append.
type intake struct {
	mu     sync.Mutex
	facts  []fact
	closed bool
	wake   chan struct{}
}

func newIntake() intake { return intake{wake: make(chan struct{}, 1)} }

// push adds f, or drops and counts it when the intake is full or closed.
func (in *intake) push(f fact, c *counters) {
	in.mu.Lock()
	closed := in.closed
	ok := !closed && len(in.facts) < maxIntake
	if ok {
		in.facts = append(in.facts, f)
	}
	in.mu.Unlock()
	if !ok {
		reason := DropIntakeFull
		if closed {
			reason = DropShutdown
		}
		c.dropped[reason].Add(1)
		return
	}
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// drain takes every waiting fact; done reports that the intake is closed
// and was empty.
func (in *intake) drain(buf []fact) (facts []fact, done bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	facts, in.facts = in.facts, buf[:0]
	return facts, in.closed && len(facts) == 0
}

// close stops the intake; the facts already in it are still handled.
func (in *intake) close() {
	in.mu.Lock()
	in.closed = true
	in.mu.Unlock()
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// run is the intake goroutine.
func (w *Webhooks) run() {
	var buf []fact
	var ops []Op
	for {
		facts, done := w.in.drain(buf)
		if done {
			return
		}
		ops = w.decide(facts, ops[:0])
		clear(facts)
		buf = facts
		if len(facts) == 0 {
			<-w.in.wake
		}
	}
}

// decide asks the Pending store about every fact of a batch at once, in
// order, then routes, holds or drops each as the answers say. ops is
// scratch space; decide returns it for reuse.
func (w *Webhooks) decide(facts []fact, ops []Op) []Op {
	for i := range facts {
		f := &facts[i]
		switch f.op {
		case opComeback:
			if f.token == "" {
				f.token = w.token() // the cancel's receipt, kept by each asking again
			}
			ops = append(ops, Op{Kind: OpCancel, Key: f.key, Token: f.token})
		case opDelay:
			f.token = w.token()
			ops = append(ops, Op{Kind: OpHold, Key: f.key, Token: f.token, TTL: 2*w.cfg.Delay + time.Minute})
		case opTake:
			ops = append(ops, Op{Kind: OpTake, Key: f.key, Token: f.token})
		}
	}
	if len(ops) > 0 {
		w.pending.Apply(ops)
	}
	j := 0
	for i := range facts {
		f := &facts[i]
		found, unanswered := false, false
		if f.op != opSend {
			found, unanswered, j = ops[j].Found, ops[j].Unanswered, j+1
		}
		if unanswered && f.op != opDelay && w.askAgain(f) {
			continue
		}
		w.handle(f, found, unanswered)
	}
	return ops
}

// handle does what f's op says, given the store's answer for it.
//
// A hold the store did not answer may not be there (a node that counts
// the store away does not even ask, and a store can answer the write that
// made the event, a count batch, just before the node counts it back): a
// take that finds nothing then sends the event, where it would take the
// missing hold for one a comeback cancelled and drop the event for good.
// A comeback meanwhile found no hold to cancel either, and was sent.
func (w *Webhooks) handle(f *fact, found, unanswered bool) {
	switch {
	case f.op == opSend, f.op == opComeback && !found, f.op == opTake && (found || f.unheld):
		w.route(f.app, &f.ev)
	case f.op == opDelay:
		take := fact{app: f.app, op: opTake, ev: f.ev, key: f.key, token: f.token, unheld: unanswered}
		w.holdUntil(take, time.Now().Add(w.cfg.Delay))
	}
	if f.op == opTake {
		w.journal.del(f.rec, f.app.stats) // after the route's puts
	}
}

// A take or a cancel the store did not answer (unreachable, or paused)
// asks again every takeRetry, with the same token, and is decided without
// an answer (towards sending) only takeGiveUp later. Sending a held event
// at once would leave its hold in the store, where a comeback on another
// node, once the store is back, would be cancelled against a departure
// already sent; sending a comeback at once would send it twice if its
// cancel was made when the store resumed. takeGiveUp is well within what
// is left of a hold's life in the store (OpHold's TTL).
const (
	takeRetry  = time.Second
	takeGiveUp = 30 * time.Second
)

// askAgain holds f, a take or cancel the store did not answer, for
// takeRetry; false means it is to be decided now: takeGiveUp has passed,
// or Webhooks are closing. Its outbox record stays as it is.
func (w *Webhooks) askAgain(f *fact) bool {
	now := time.Now()
	if f.giveUp.IsZero() {
		f.giveUp = now.Add(takeGiveUp)
	}
	return now.Before(f.giveUp) && w.delays.at(now.Add(takeRetry), *f)
}

// holdUntil keeps f, recorded in the outbox, until due.
func (w *Webhooks) holdUntil(f fact, due time.Time) {
	w.journalHeld(&f, due, "")
	if !w.delays.at(due, f) {
		w.decide([]fact{f}, nil) // closing: due now
	}
}

// delays hold facts until they are due, in order: most wait out the delay,
// the same for every fact, so they come due in the order they were held,
// and one timer, set for the oldest, is enough (a timer per fact would
// cost memory and could fire out of order).
type delays struct {
	mu     sync.Mutex
	held   []held
	timer  *time.Timer   // set while held is not empty
	empty  chan struct{} // closed while held is empty; nil means closed
	closed bool
	push   func(fact, *counters)
}

// held is one fact and when it is due.
type held struct {
	due time.Time
	f   fact
}

// at pushes f at due; false means the delays were ended (Close) and f is
// due now. Facts held for the delay come in the order they are due; one
// asking the store again (takeRetry), or taken over from a dead node, may
// be due sooner, and goes before those.
func (ds *delays) at(due time.Time, f fact) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.closed {
		return false
	}
	i := len(ds.held)
	for i > 0 && ds.held[i-1].due.After(due) {
		i--
	}
	ds.held = slices.Insert(ds.held, i, held{due, f})
	switch {
	case len(ds.held) == 1:
		ds.timer = time.AfterFunc(time.Until(due), ds.fire)
		ds.empty = make(chan struct{})
	case i == 0 && ds.timer.Stop(): // else fire is about to run, and sets the timer for held[0]
		ds.timer = time.AfterFunc(time.Until(due), ds.fire)
	}
	return true
}

// drained returns a channel closed once nothing is held.
func (ds *delays) drained() <-chan struct{} {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if len(ds.held) == 0 {
		return closedChan
	}
	return ds.empty
}

// closedChan is a channel that is always closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// fire pushes the facts that are due, in order, and sets the timer for the
// next one.
func (ds *delays) fire() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	now := time.Now()
	n := 0
	for n < len(ds.held) && !ds.held[n].due.After(now) {
		ds.push(ds.held[n].f, ds.held[n].f.app.stats)
		n++
	}
	clear(ds.held[:n])
	ds.held = ds.held[n:]
	switch {
	case len(ds.held) == 0:
		close(ds.empty)
	case !ds.closed:
		ds.timer = time.AfterFunc(ds.held[0].due.Sub(now), ds.fire)
	}
}

// fireAll pushes every held fact now, and makes later ones due at once.
func (ds *delays) fireAll() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.closed = true
	if ds.timer != nil {
		ds.timer.Stop()
	}
	for _, h := range ds.held {
		ds.push(h.f, h.f.app.stats)
	}
	if len(ds.held) > 0 {
		close(ds.empty)
	}
	ds.held = nil
}
