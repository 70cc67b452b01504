package hub

import "testing"

// fixedTally is a Tally whose other nodes hold a fixed number of
// connections per app, and which records what it was told.
type fixedTally struct {
	others map[string]int
	told   map[string]int
}

func (f *fixedTally) Here(app string, n int)   { f.told[app] = n }
func (f *fixedTally) Elsewhere(app string) int { return f.others[app] }

// TestAppConnectionsCountsEveryNode: the figure an app's limit is checked
// against is this node's connections plus the other nodes', and the state's
// Tally hears of every change of this node's count.
func TestAppConnectionsCountsEveryNode(t *testing.T) {
	h := newTestHub(1)
	if n := h.AppConnections("app"); n != 0 {
		t.Fatalf("a lone node's app has %d connections before any", n)
	}
	f := &fixedTally{others: map[string]int{"app": 5}, told: map[string]int{}}
	h.SetState(State{Tally: f})
	h.Connected("app")
	h.Connected("app")
	h.Connected("b")
	if n, here := h.AppConnections("app"), h.Connections("app"); n != 7 || here != 2 {
		t.Fatalf("app: %d across the cluster, %d here; want 7 and 2", n, here)
	}
	if f.told["app"] != 2 || f.told["b"] != 1 {
		t.Fatalf("told %v, want app 2 and b 1", f.told)
	}
	h.Disconnected("app")
	h.Disconnected("app")
	if n, ok := f.told["app"]; n != 0 || !ok || h.AppConnections("app") != 5 {
		t.Fatalf("after both closed: told %v, %d across the cluster; want 0 told and 5", f.told, h.AppConnections("app"))
	}
}
