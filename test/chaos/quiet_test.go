package chaos

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// convergeWait bounds how long the cluster may take, once quiet, to agree
// with the model. It is generous: a killed node is reaped within about
// two node TTLs (docs/cluster.md, "How the cluster keeps one-node
// semantics"), and a node that saw its backend go away reaps nobody for a
// TTL after. The time it took is measured and reported per fault.
const convergeWait = 45 * time.Second

// settleEvery is how often quiet compares the cluster with the model: each
// comparison sends a few dozen HTTP requests.
const settleEvery = 100 * time.Millisecond

// quiet waits, after the round that f (or no fault) marked, until every
// node is ready and the cluster agrees with the model, notes how long
// that took, and checks what only a quiet cluster can show. Agreeing
// takes two comparisons with every node's webhooks drained between them:
// a webhook on its way when the first one looked (the channel_occupied a
// node reports as it writes its counts again, some 70 ms before it
// arrives) is then seen in the round whose fault made it, not the next.
func (r *run) quiet(f *fault) {
	kind := noFault
	if f != nil {
		kind = f.kind
	}
	start := time.Now()
	var d map[string]string
	for {
		if r.rig.ready() {
			drained := false
			if d = r.fresh(r.diff()); len(d) == 0 && r.rig.webhooksDrained() {
				d, drained = r.fresh(r.diff()), true
			}
			if len(d) == 0 && drained {
				r.bounds[kind] = max(r.bounds[kind], time.Since(start))
				break
			}
		}
		if time.Since(start) > convergeWait {
			r.unsettled(kind, d)
			break
		}
		time.Sleep(settleEvery)
	}
	r.checkDeliveries()
	r.checkTwice()
	r.step("quiet after %s in %v", kind, time.Since(start).Round(time.Millisecond))
}

// fresh drops from d the differences already reported, unchanged: one
// that never converges is reported once, rather than costing every later
// quiet period the whole wait.
func (r *run) fresh(d map[string]string) map[string]string {
	for k, v := range d {
		if r.stale[k] == v {
			delete(d, k)
		}
	}
	return d
}

// unsettled reports every difference left when the wait ran out, one
// violation per kind of difference, and remembers them (see fresh).
func (r *run) unsettled(after string, d map[string]string) {
	for k, v := range d {
		r.stale[k] = v
	}
	r.rebase(d)
	switch {
	case d == nil:
		r.violate("ready", "a node not ready %v after %s", convergeWait, after)
		return
	case len(d) == 0:
		r.violate("webhook", "a node still has undelivered webhooks %v after %s", convergeWait, after)
		return
	}
	byKind := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(d)) {
		kind, what, _ := strings.Cut(k, "|")
		byKind[kind] = append(byKind[kind], what+": "+d[k])
	}
	for kind, lines := range byKind {
		r.violate(kind, "%v after %s: %s", convergeWait, after, strings.Join(lines, "; "))
	}
}

// checkTwice reports every presence member a client was told of twice in
// a row (member_added for a member, member_removed for none), which an
// app's handlers would run twice.
func (r *run) checkTwice() {
	for _, c := range r.clientsOn("") {
		frames := c.snapshot()
		for _, ch := range channels {
			if _, twice := memberList(frames, ch); twice > 0 && !r.toldTwice[fmt.Sprint(c.id, ch)] {
				r.toldTwice[fmt.Sprint(c.id, ch)] = true
				r.violate("announced twice", "client %d on node %d was told of a member change on %s that it already knew, %d times", c.id, c.node, ch, twice)
			}
		}
	}
}
