package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/webhook"
)

// receiver is a webhook backend in the test's process: it refuses every
// request (503) while refusing is set, and records the events of each
// request it answers 200, with their ids (webhook.HeaderEventIDs).
type receiver struct {
	*httptest.Server
	refusing atomic.Bool
	answer   time.Duration // how long it takes to answer 200; set before the first request

	mu       sync.Mutex
	got      []hooked             // the events answered 200, in arrival order
	refused  int                  // requests answered 503
	requests []string             // ids of the requests answered 200
	arrived  map[string]time.Time // when each event id first arrived, answered or not
}

// hooked is one delivered event.
type hooked struct {
	ID, Name, Channel string
}

func (h hooked) String() string { return h.Name + " " + h.Channel }

func newReceiver(t *testing.T) *receiver {
	r := &receiver{arrived: map[string]time.Time{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var b struct {
		Events []struct{ Name, Channel string } `json:"events"`
	}
	ids := strings.Split(req.Header.Get(webhook.HeaderEventIDs), ",")
	if json.Unmarshal(body, &b) != nil || len(ids) != len(b.Events) {
		http.Error(w, fmt.Sprintf("%d event ids for %s", len(ids), body), http.StatusBadRequest)
		return
	}
	if !r.arrive(ids) {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	time.Sleep(r.answer)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, e := range b.Events {
		r.got = append(r.got, hooked{ID: ids[i], Name: e.Name, Channel: e.Channel})
	}
	r.requests = append(r.requests, req.Header.Get(webhook.HeaderRequestID))
}

// arrive records when ids first arrived, and counts a refused request;
// false means the request is refused.
func (r *receiver) arrive(ids []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	for _, id := range ids {
		if _, ok := r.arrived[id]; !ok {
			r.arrived[id] = now
		}
	}
	if r.refusing.Load() {
		r.refused++
		return false
	}
	return true
}

// firstArrival returns when the event id first arrived.
func (r *receiver) firstArrival(id string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.arrived[id]
}

// delivered returns the events answered 200 and how many of them had an
// id seen before (duplicates).
func (r *receiver) delivered() (events []hooked, dupes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, e := range r.got {
		if seen[e.ID] {
			dupes++
			continue
		}
		seen[e.ID] = true
		events = append(events, e)
	}
	return events, dupes
}

// distinct returns the delivered events without their ids, sorted, each
// once.
func distinct(events []hooked) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// before reports whether the first delivery of a came before that of b.
func before(events []hooked, a, b string) bool {
	i := slices.IndexFunc(events, func(e hooked) bool { return e.String() == a })
	j := slices.IndexFunc(events, func(e hooked) bool { return e.String() == b })
	return i >= 0 && j >= 0 && i < j
}
