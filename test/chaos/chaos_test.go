package chaos

import (
	"cmp"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	seedFlag     = flag.Uint64("seed", 0, "the schedule's seed; 0 picks one from the clock (or $CHAOS_SEED)")
	durationFlag = flag.Duration("duration", 0, "how long each backend's run lasts (or $CHAOS_DURATION); default 1m")
	backendFlag  = flag.String("backend", "", "run only this backend: redis, redis-cluster or nats (or $CHAOS_BACKEND)")
	roundsFlag   = flag.Int("rounds", 0, "run at least this many rounds, whatever -duration says: to replay a seed up to the round that found its bug")
)

// backends are the stores a run can use.
var backends = []struct {
	name  string
	start func(t *testing.T) store
}{
	{"redis", newRedisStore},
	{"redis-cluster", newClusterStore},
	{"nats", newNATSStore},
}

// regression is a seed that found a bug, run again on every test run for
// a short time.
type regression struct {
	backend string
	seed    uint64
	found   string
	rounds  int // at least this many rounds: its bug showed after the first ones
}

// regressionSeeds are the seeds that found bugs.
//
// A seed fixes a schedule only for one version of the generator: seeds 3
// (on Redis), 4, 11, 12 and 13 found their bugs before the first rounds
// tried every kind of fault, and now replay other schedules, so they are
// not kept here. These were found, or found again, by the generator as it
// is.
var regressionSeeds = []regression{
	{"redis", 2, "member_added and channel_occupied that never balance after SIGSTOP of Redis: a count batch that timed out ran when Redis resumed, a leave that timed out was never announced", 0},
	{"nats", 777, "a channel_vacated missing after SIGSTOP of NATS: the count batch that vacated the channel was made as NATS resumed, its answer lost", 0},
	{"nats", 21, "member_added twice: a member back on the same node before its deferred departure was announced", 0},
	{"redis", 31, "subscription_count 1 for 2 subscribers after Redis restarted with its data", 0},
	{"redis-cluster", 31, "no subscription_count for a subscription made under SIGSTOP, a channel subscribed under SIGSTOP never announced occupied, a channel_vacated missing after a restart with data; a killed node's port taken on restart (testutil)", 0},
	{"nats", 31, "subscription_count 1 for 2 after a restart with data; channel_occupied again after a restart empty (exceptions)", 0},
	{"redis-cluster", 3, "a join refused (503) under SIGSTOP followed by a channel_vacated never preceded by a channel_occupied: a count batch that timed out ran when the primary resumed", 0},
	{"redis", 1796173059709980564, "member_added twice after a partition: a departure deferred while the node settled, and the member's comeback on another node announced", 9},
	{"redis-cluster", 1796173059709980564, "subscription_count 2 for 1 subscriber after kill -9 of a node: the reap changed the count and no node read it again", 0},
	{"redis-cluster", 1796412886410278962, "a channel_vacated lost after SIGSTOP: a count batch answered as the store resumed, just before the node counted it back, held its event without asking the store, and the take that found no hold dropped it; a restart empty after a restart with data came back with the old dump.rdb (testutil)", 11},
	{"redis-cluster", 1796416335847335174, "a watcher left with a signed-in user offline after a restart empty: the user's other connections closed during it, and nothing corrected the watchers", 9},
	{"nats", 1796413318477839879, "a node's copy of a cache channel's last event behind the store after SIGSTOP: an event of another node missed during the outage; and a clean event, sent again after the next outage, delivered to a later subscriber (an exception)", 15},
	{"nats", 1796415885499398550, "a watcher left stale by a terminate_connections that closed it, signed in 21 ms after the answer, when its node got the message late (an exception the checker did not see: it now forgets a client the server closed, and reports the close); a cache event sent again after SIGSTOP reached a later subscriber after a newer event (an exception, left out of the order check)", 19},
	{"redis-cluster", 1796187121996927620, "a channel vacated on one node and subscribed on another as the backend stopped (SIGSTOP): the vacated event sent blind left its hold, against which the late channel_occupied was cancelled; and, once the vacated waited for the store, a comeback's cancel that timed out was made when the store resumed and the comeback sent as well", 0},
}

// regressionDuration bounds each regression seed's run beyond its first
// rounds, which try every kind of fault once (each seed's bug was found
// in those, or in the rounds its entry names).
const regressionDuration = time.Nanosecond

// TestChaos runs a seeded random schedule of client work and faults on
// three nodes over each backend and compares the cluster with a model of
// one node after each quiet period.
func TestChaos(t *testing.T) {
	seed := chosenSeed()
	d := chosenDuration()
	for _, b := range backends {
		if only := cmp.Or(*backendFlag, os.Getenv("CHAOS_BACKEND")); only != "" && only != b.name {
			continue
		}
		t.Run(b.name, func(t *testing.T) { runChaos(t, b.name, b.start, seed, d, *roundsFlag) })
	}
}

// TestChaosRegressions runs every seed that once found a bug.
func TestChaosRegressions(t *testing.T) {
	for _, reg := range regressionSeeds {
		for _, b := range backends {
			if b.name == reg.backend {
				t.Run(reg.backend+"/"+strconv.FormatUint(reg.seed, 10), func(t *testing.T) {
					runChaos(t, b.name, b.start, reg.seed, regressionDuration, reg.rounds)
				})
			}
		}
	}
}

// chosenSeed returns -seed, $CHAOS_SEED or one from the clock.
func chosenSeed() uint64 {
	if *seedFlag != 0 {
		return *seedFlag
	}
	if s, err := strconv.ParseUint(os.Getenv("CHAOS_SEED"), 10, 64); err == nil && s != 0 {
		return s
	}
	return uint64(time.Now().UnixNano())
}

// chosenDuration returns -duration, $CHAOS_DURATION or a minute.
func chosenDuration() time.Duration {
	if *durationFlag > 0 {
		return *durationFlag
	}
	if d, err := time.ParseDuration(os.Getenv("CHAOS_DURATION")); err == nil && d > 0 {
		return d
	}
	return time.Minute
}

// runChaos runs one schedule, for d and at least min rounds, and reports
// what it found.
func runChaos(t *testing.T, backend string, start func(*testing.T) store, seed uint64, d time.Duration, min int) {
	t.Logf("chaos seed %d on %s for %v: reproduce with go test -race -v ./test/chaos -run '^TestChaos$/^%s$' -seed %d -duration %v",
		seed, backend, d, backend, seed, d)
	rig := startRig(t, start(t))
	r := newRun(t, backend, seed, rig)
	r.rounds(d, min)
	r.report(seed)
}

// report logs the bounds measured and fails the test for each violation
// that is neither an exception nor a known failure.
func (r *run) report(seed uint64) {
	for kind, b := range r.bounds {
		r.t.Logf("converged within %v after %s", b.Round(time.Millisecond), kind)
	}
	r.t.Logf("%d events, %d faults, %d violations", len(r.sent), r.faults, len(r.found))
	failed := false
	for _, v := range r.found {
		if why := r.excused(v); why != "" {
			r.t.Logf("%s: %s after %s: %s", why, v.kind, v.fault, v.detail)
			continue
		}
		failed = true
		r.t.Errorf("seed %d: %s after %s: %s", seed, v.kind, v.fault, v.detail)
	}
	if failed {
		r.t.Logf("schedule:\n%s", strings.Join(r.log, "\n"))
		r.t.Logf("%s", r.rig.logs())
	}
}
