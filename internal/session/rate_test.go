package session

import (
	"fmt"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// BenchmarkAppRates is what counting one client event against its app's
// limit costs the loops: it must not allocate.
func BenchmarkAppRates(b *testing.B) {
	var r appRates
	app := &config.App{ID: "app-1", MaxClientEventsPerSec: 1 << 30}
	b.ReportAllocs()
	now := int64(0)
	for i := 0; b.Loop(); i++ {
		if i%1_000_000 == 0 {
			now++
		}
		if !r.allow(app, now) {
			b.Fatal("refused")
		}
	}
}

// TestAppRatesSurviveAReload: a reload gives an app a new *config.App;
// its connections made before and after count together, so the second
// that the old connections used up stays used up for the new ones.
func TestAppRatesSurviveAReload(t *testing.T) {
	var r appRates
	before := &config.App{ID: "a", MaxClientEventsPerSec: 2}
	after := *before
	for range 2 {
		if !r.allow(before, 7) {
			t.Fatal("an event within the limit refused")
		}
	}
	if r.allow(&after, 7) {
		t.Fatal("the reloaded app's count started afresh: a third event in one second allowed")
	}
	if !r.allow(&after, 8) {
		t.Fatal("the next second refused the reloaded app's first event")
	}
}

// TestAppRatesForgetGoneApps: the counters of apps that send nothing more
// (removed by a reload or from the app store) are dropped once a new one
// is made sweepAfter seconds later, and one in use is kept.
func TestAppRatesForgetGoneApps(t *testing.T) {
	var r appRates
	const start = 1_000
	kept := &config.App{ID: "kept", MaxClientEventsPerSec: 1}
	for i := range 100 {
		r.allow(&config.App{ID: fmt.Sprint("gone-", i), MaxClientEventsPerSec: 5}, start)
	}
	r.allow(kept, start+sweepAfter-1)
	r.allow(&config.App{ID: "new", MaxClientEventsPerSec: 5}, start+sweepAfter)
	n := 0
	r.m.Range(func(_, _ any) bool {
		n++
		return true
	})
	if n != 2 {
		t.Fatalf("%d counters kept, want those of kept and new", n)
	}
	if r.allow(kept, start+sweepAfter-1) {
		t.Fatal("the sweep lost the count of an app in use")
	}
}
