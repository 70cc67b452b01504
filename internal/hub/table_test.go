package hub

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTableMatchesMap drives the channel table and a Go map with the same
// random puts and removes over a small name space (so probes collide and
// removals shift entries back) and checks they agree after every step.
func TestTableMatchesMap(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, seed))
		var tab table
		model := map[string]*Channel{}
		for step := 0; step < 3000; step++ {
			name := fmt.Sprint("private-user-", r.IntN(200))
			if ch := model[name]; ch != nil {
				if !tab.remove(ch) {
					t.Fatalf("seed %d step %d: remove(%s) missed", seed, step, name)
				}
				delete(model, name)
			} else {
				ch := &Channel{name: name}
				tab.put(ch)
				model[name] = ch
			}
			checkTable(t, &tab, model)
		}
	}
}

func checkTable(t *testing.T, tab *table, model map[string]*Channel) {
	t.Helper()
	if tab.n != len(model) || 4*tab.n > 3*len(tab.slots) {
		t.Fatalf("table holds %d in %d slots; the model %d", tab.n, len(tab.slots), len(model))
	}
	for name, ch := range model {
		if got := tab.get(name); got != ch {
			t.Fatalf("get(%s) = %p, want %p", name, got, ch)
		}
	}
	n := 0
	for ch := range tab.all() {
		if model[ch.name] != ch {
			t.Fatalf("all yields %s, not in the model", ch.name)
		}
		n++
	}
	if n != len(model) || tab.get("nobody") != nil {
		t.Fatalf("all yields %d channels, want %d (or a missing name was found)", n, len(model))
	}
}

func TestTableShrinks(t *testing.T) {
	var tab table
	chans := make([]*Channel, 1000)
	for i := range chans {
		chans[i] = &Channel{name: fmt.Sprint("c", i)}
		tab.put(chans[i])
	}
	for _, ch := range chans[1:] {
		tab.remove(ch)
	}
	if len(tab.slots) != tableMin || tab.get("c0") != chans[0] {
		t.Fatalf("a table of one channel keeps %d slots", len(tab.slots))
	}
}
