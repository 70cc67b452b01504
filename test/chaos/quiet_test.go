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

// excusedSettle is how long the differences left after a fault must stay
// the same, once each is an exception for that fault and every node's
// webhooks are drained, before quiet stops waiting for them: an exception
// never converges (a held channel_vacated lost with a store restarted
// empty is never sent), so waiting out convergeWait would only cost time.
// It is five webhooks.delay periods, and many times the ~70 ms after
// which the channel_occupied a node reports as it writes its counts again
// arrives.
const excusedSettle = 5 * time.Second

// quiet waits, after the round that f (or no fault) marked, until every
// node is ready and the cluster agrees with the model, notes how long
// that took, and checks what only a quiet cluster can show. Agreeing
// takes two comparisons with every node's webhooks drained between them:
// a webhook on its way when the first one looked (the channel_occupied a
// node reports as it writes its counts again, some 70 ms before it
// arrives) is then seen in the round whose fault made it, not the next.
// Differences that are all exceptions for f end the wait once they have
// held for excusedSettle (see excusedSettle), and are reported.
func (r *run) quiet(f *fault) {
	kind := noFault
	if f != nil {
		kind = f.kind
	}
	start := time.Now()
	how := r.settle(kind, start)
	r.checkDeliveries()
	r.checkTwice()
	r.step("quiet after %s in %v%s", kind, time.Since(start).Round(time.Millisecond), how)
}

// settle polls the cluster from start until it agrees with the model,
// its differences are exceptions for the fault that have held for
// excusedSettle, or convergeWait runs out, reports what is left, and says
// which ended it.
func (r *run) settle(kind string, start time.Time) string {
	var d, excused map[string]string
	var excusedAt time.Time
	for ; ; time.Sleep(settleEvery) {
		if time.Since(start) > convergeWait {
			r.unsettled(kind, d, convergeWait)
			return ", not converged"
		}
		r.sweep()
		if !r.rig.ready() {
			continue
		}
		drained := false
		if d = r.fresh(r.diff()); len(d) == 0 && r.rig.webhooksDrained() {
			d, drained = r.fresh(r.diff()), true
		}
		switch {
		case len(d) == 0 && drained:
			r.bounds[kind] = max(r.bounds[kind], time.Since(start))
			return ""
		case !r.onlyExceptions(d, kind) || !r.rig.webhooksDrained():
			excused = nil
		case !maps.Equal(d, excused):
			excused, excusedAt = d, time.Now()
		case time.Since(excusedAt) >= excusedSettle:
			r.unsettled(kind, d, time.Since(start).Round(time.Millisecond))
			return ", its exceptions left"
		}
	}
}

// onlyExceptions reports whether d holds differences and each is of a
// kind that is an exception for the fault.
func (r *run) onlyExceptions(d map[string]string, fault string) bool {
	for k := range d {
		if kind, _, _ := strings.Cut(k, "|"); r.exceptionFor(kind, fault) == "" {
			return false
		}
	}
	return len(d) > 0
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

// unsettled reports every difference left when the wait ended, after
// waited, one violation per kind of difference, and remembers them (see
// fresh).
func (r *run) unsettled(after string, d map[string]string, waited time.Duration) {
	for k, v := range d {
		r.stale[k] = v
	}
	r.rebase(d)
	switch {
	case d == nil:
		r.violate("ready", "a node not ready %v after %s", waited, after)
		return
	case len(d) == 0:
		r.violate("webhook", "a node still has undelivered webhooks %v after %s", waited, after)
		return
	}
	byKind := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(d)) {
		kind, what, _ := strings.Cut(k, "|")
		byKind[kind] = append(byKind[kind], what+": "+d[k])
	}
	for kind, lines := range byKind {
		r.violate(kind, "%v after %s: %s", waited, after, strings.Join(lines, "; "))
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
