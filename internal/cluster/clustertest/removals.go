package clustertest

import (
	"slices"
	"sync"

	"github.com/roostproject/roost/internal/hub"
)

// Removals records the member_removed reports of the nodes it observes,
// as "node user"; Of gives each node its observer.
type Removals struct {
	mu  sync.Mutex
	got []string
}

// Of is node's observer.
func (r *Removals) Of(node string) hub.Observer { return removalsOf{r: r, node: node} }

// Got returns the reports so far, sorted.
func (r *Removals) Got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.got))
}

type removalsOf struct {
	hub.NopObserver
	r    *Removals
	node string
}

// MemberRemoved implements hub.Observer.
func (o removalsOf) MemberRemoved(app, channel, user string) {
	o.r.mu.Lock()
	defer o.r.mu.Unlock()
	o.r.got = append(o.r.got, o.node+" "+user)
}
