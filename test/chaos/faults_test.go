package chaos

import (
	"time"
)

// The kinds of fault a schedule injects.
const (
	faultKill      = "kill -9 of a node"
	faultPause     = "SIGSTOP of the backend"
	faultEmpty     = "backend restarted empty"
	faultData      = "backend restarted with its data"
	faultPartition = "one node cut from the backend"
	noFault        = "no fault"
)

// fault is one fault in force: what, on which node (kill, partition) and
// until when.
type fault struct {
	kind  string
	node  int
	d     time.Duration
	until time.Time
}

// maxFault bounds a fault's length; the schedule picks one from a tenth
// of it up.
const maxFault = 12 * time.Second

// faultKinds returns the kinds of fault the run's backend allows.
func (r *run) faultKinds() []string {
	kinds := []string{faultKill, faultPause, faultEmpty, faultData}
	if r.rig.store.partitions() {
		kinds = append(kinds, faultPartition)
	}
	return kinds
}

// chooseFault returns the fault of a round: every kind once, in a seeded
// order, over the first rounds, so that even a short run tries them all;
// then one for half the rounds.
func (r *run) chooseFault() *fault {
	var kind string
	switch {
	case len(r.deck) > 0:
		kind, r.deck = r.deck[0], r.deck[1:]
	case r.rng.IntN(2) == 0:
		return nil
	default:
		kind = pick(r, r.faultKinds())
	}
	d := maxFault/10 + time.Duration(r.rng.Int64N(int64(maxFault*9/10)))
	return &fault{kind: kind, node: pick(r, r.liveNodes()), d: d}
}

// inject puts f in force.
func (r *run) inject(f *fault) {
	st := r.rig.store
	f.until = time.Now().Add(f.d)
	switch f.kind {
	case faultKill:
		r.killNode(f.node)
	case faultPause:
		st.pause()
	case faultEmpty:
		st.kill()
		r.forgetCache()
	case faultData:
		st.shutdown()
	case faultPartition:
		st.cut(f.node)
	}
	r.fault = f
	r.faults++
	r.step("fault: %s (node %d) for %v", f.kind, f.node, f.d.Round(time.Millisecond))
}

// killNode kills node i with SIGKILL: its clients are gone, and the model
// forgets them at once (the cluster must then remove their members).
func (r *run) killNode(i int) {
	r.rig.nodes[i].Kill()
	r.rig.alive[i] = false
	for _, c := range r.clientsOn("") {
		if c.node == i {
			r.drop(c)
		}
	}
}

// heal ends the fault in force once its time has come.
func (r *run) heal() {
	f := r.fault
	if f == nil {
		return
	}
	time.Sleep(time.Until(f.until)) // the fault's length is part of the schedule
	st := r.rig.store
	switch f.kind {
	case faultKill:
		r.rig.nodes[f.node].Start()
		r.rig.alive[f.node] = true
	case faultPause:
		st.resume()
	case faultEmpty, faultData:
		st.start()
	case faultPartition:
		st.heal(f.node)
	}
	r.fault = nil
	r.step("healed: %s", f.kind)
}
