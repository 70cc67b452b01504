package chaos

import (
	"fmt"
	"slices"
	"strings"
)

// violation is one difference between the cluster and the model of one
// node.
type violation struct {
	kind   string // what kind: "lost", "members", "subscription_count", ...
	fault  string // the fault in force or just healed
	detail string
}

// violate records a violation of the kind.
func (r *run) violate(kind, format string, args ...any) {
	f := noFault
	if r.fault != nil {
		f = r.fault.kind
	} else if len(r.log) > 0 {
		f = r.lastFault()
	}
	v := violation{kind: kind, fault: f, detail: fmt.Sprintf(format, args...)}
	if slices.ContainsFunc(r.found, func(o violation) bool { return o.kind == v.kind && o.detail == v.detail }) {
		return // checkDeliveries looks at every event again after each round
	}
	r.found = append(r.found, v)
	r.step("VIOLATION %s: %s", kind, v.detail)
}

// lastFault returns the kind of the last fault healed, or noFault before
// the first: what a fault breaks may show only rounds later (a webhook
// held for webhooks.delay, a count flushed late).
func (r *run) lastFault() string {
	for i := len(r.log) - 1; i >= 0; i-- {
		_, line, _ := strings.Cut(r.log[i], " ") // the time (see step)
		if l, ok := strings.CutPrefix(line, "healed: "); ok {
			return l
		}
	}
	return noFault
}

// exception is a guarantee that cannot hold under a fault, by design:
// docs/cluster.md, "The randomized checker", states each with its bound.
// An empty backend or fault matches every one.
type exception struct {
	backend, kind, fault, why string
}

// exceptions are the differences the checker accepts after a fault. A
// partition is not run on a Redis Cluster at all (see clusterStore).
var exceptions = []exception{
	{"", "cache", faultEmpty, "a backend restarted empty has lost every cache channel's last event"},
	{"", "webhook", faultEmpty, "a backend restarted empty has forgotten the webhooks the cluster sent and held: a " +
		"channel_vacated or member_removed held for webhooks.delay is never sent, and channel_occupied is sent again " +
		"when the nodes write their counts again"},
	{"", "late terminate", "", "terminate_connections reaches each node when the backend delivers it there, and closes " +
		"the user's connections that node has then, also one signed in since the answer: on a node cut from the " +
		"backend, until the cut heals; on NATS, until the message is sent again after an outage"},
	{"nats", "before subscribing", "", "an event NATS had not confirmed when an outage began is sent again after it " +
		"(natsstore/resend.go), and reaches the subscriptions made since on nodes that never got the first copy; the " +
		"copy may land in the next round, whatever its fault"},
}

// knownFailure is a bug the checker has found and that is not fixed yet:
// a run reports it in its log and does not fail, so that CI stays green
// while the list stays visible. Each names the seed that found it, which
// stays in regressionSeeds.
type knownFailure struct {
	backend, kind, fault string // fault "" matches any
	seed                 uint64
	why                  string
}

// knownFailures are the bugs found and not yet fixed: none today. The
// earlier ones are fixed, or were found to be exceptions, and their
// seeds are replayed by TestChaosRegressions.
var knownFailures []knownFailure

// exceptionFor returns why a difference of the kind is accepted on the
// run's backend after the fault, or "".
func (r *run) exceptionFor(kind, fault string) string {
	for _, e := range exceptions {
		if e.kind == kind && (e.backend == "" || e.backend == r.backend) && (e.fault == "" || e.fault == fault) {
			return e.why
		}
	}
	return ""
}

// excused returns why a violation is accepted on the run's backend, or "".
func (r *run) excused(v violation) string {
	if why := r.exceptionFor(v.kind, v.fault); why != "" {
		return "exception: " + why
	}
	for _, k := range knownFailures {
		if k.backend == r.backend && k.kind == v.kind && (k.fault == "" || k.fault == v.fault) {
			return fmt.Sprintf("KNOWN FAILURE (seed %d): %s", k.seed, k.why)
		}
	}
	return ""
}
