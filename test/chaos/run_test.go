package chaos

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// channels are the channels the schedule uses, of every kind.
var channels = []string{"pub-a", "pub-b", "private-a", "presence-a", "presence-b", "cache-a"}

// users are the user ids clients join presence channels and sign in as.
var users = []string{"u0", "u1", "u2", "u3", "u4"}

// maxClients bounds the live connections, so that a run fits on two cores
// beside other work.
const maxClients = 12

// run is one seeded schedule against one rig.
type run struct {
	t         *testing.T
	backend   string
	rng       *rand.Rand
	rig       *rig
	next      int // the next client id
	round     int // the round under way
	live      map[int]*client
	sent      []*sent
	seqs      map[string]int // the last sequence number of each publisher
	fault     *fault         // the fault in force, if any
	deck      []string       // the kinds of fault not tried yet
	faults    int            // faults injected so far, for the final line
	found     []violation
	bounds    map[string]time.Duration // the longest convergence after each kind of fault
	caches    *cache
	toldTwice map[string]bool   // clients already reported by checkTwice
	stale     map[string]string // differences already reported (see fresh)
	hookBase  map[string]int    // webhook imbalances already reported (see offBalance)
	hookLast  map[string]int    // each webhook count's last imbalance
	log       []string          // the schedule so far, for a failure
	// terminated is, per user, the round of its last terminate_connections.
	terminated map[string]int
}

func newRun(t *testing.T, backend string, seed uint64, r *rig) *run {
	return &run{t: t, backend: backend, terminated: map[string]int{}, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rig: r,
		toldTwice: map[string]bool{}, stale: map[string]string{}, hookBase: map[string]int{}, hookLast: map[string]int{}, live: map[int]*client{}, seqs: map[string]int{}, bounds: map[string]time.Duration{}}
}

// step notes one step of the schedule; faults, quiet periods and
// violations are logged as they happen too, to follow a long run.
// Each line carries the time, to be read beside the nodes' logs.
func (r *run) step(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	r.log = append(r.log, time.Now().UTC().Format("15:04:05.000 ")+line)
	for _, p := range []string{"fault: ", "healed: ", "quiet ", "VIOLATION "} {
		if strings.HasPrefix(line, p) {
			r.t.Log(line)
		}
	}
}

// clientsOn returns the live clients in id order, those subscribed to ch
// if ch is not "".
func (r *run) clientsOn(ch string) []*client {
	var out []*client
	for _, id := range slices.Sorted(maps.Keys(r.live)) {
		if c := r.live[id]; ch == "" || c.subs[ch] {
			out = append(out, c)
		}
	}
	return out
}

// pick returns a random element of s.
func pick[T any](r *run, s []T) T { return s[r.rng.IntN(len(s))] }

// liveNodes returns the nodes that are running.
func (r *run) liveNodes() []int {
	var out []int
	for i, ok := range r.rig.alive {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// rounds runs rounds of client work, faults and checks until d has
// passed, every kind of fault has been tried, and min rounds have run.
func (r *run) rounds(d time.Duration, min int) {
	end := time.Now().Add(d)
	r.deck = r.faultKinds()
	r.rng.Shuffle(len(r.deck), func(i, j int) { r.deck[i], r.deck[j] = r.deck[j], r.deck[i] })
	for round := 0; time.Now().Before(end) || len(r.deck) > 0 || round < min; round++ {
		r.round = round
		r.step("round %d", round)
		f := r.chooseFault()
		early := r.rng.IntN(2) == 0
		if f != nil && early {
			r.inject(f)
		}
		r.membership(2 + r.rng.IntN(6))
		if f != nil && !early {
			r.inject(f)
		}
		r.traffic(3 + r.rng.IntN(8))
		r.heal()
		r.quiet(f)
	}
}
