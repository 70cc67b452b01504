package server

import (
	"testing"
	"time"
)

// TestBurstReleasesOnceItEnds: a release follows the first quiet tick after
// a burst, never a tick of steady traffic, and at most once per releaseGap.
func TestBurstReleasesOnceItEnds(t *testing.T) {
	start := time.Unix(1000, 0)
	var b handshakeBurst
	var count int64
	steps := []struct {
		add  int64
		want bool
	}{
		{5, false},            // quiet, no burst yet
		{burstMin, false},     // burst
		{burstMin, false},     // still
		{quietMax + 1, false}, // slowing, not quiet
		{quietMax, true},      // over: release
		{0, false},            // already released
		{burstMin, false},     // a second burst soon after
		{0, false},            // over, but within releaseGap
	}
	for i, st := range steps {
		count += st.add
		if got := b.tick(count, start.Add(time.Duration(i)*releaseTick)); got != st.want {
			t.Fatalf("tick %d (+%d): release %v, want %v", i, st.add, got, st.want)
		}
	}
	if b.run < burstMin {
		t.Fatal("the handshakeBurst within releaseGap was forgotten")
	}
	if !b.tick(count, start.Add(releaseGap+time.Hour)) {
		t.Fatal("no release once releaseGap had passed after the second handshakeBurst")
	}
}

// TestSlowBurstReleases: a burst slower than burstMin a tick, as a loaded
// machine's ramp is, is released once it ends; a trickle of handshakes
// between quiet ticks never is.
func TestSlowBurstReleases(t *testing.T) {
	start := time.Unix(1000, 0)
	var b handshakeBurst
	var count int64
	tick := func(i int, add int64) bool {
		count += add
		return b.tick(count, start.Add(time.Duration(i)*releaseTick))
	}
	i := 0
	for ; i < 100; i += 2 { // a trickle: 40 handshakes a tick, each run ended by a quiet tick
		if tick(i, quietMax+30) || tick(i+1, 0) {
			t.Fatalf("tick %d: a trickle of handshakes released the heap", i)
		}
	}
	for range burstMin / (burstMin / 4) { // a burst at a quarter of burstMin a tick
		if tick(i, burstMin/4) {
			t.Fatalf("tick %d: released during the burst", i)
		}
		i++
	}
	if !tick(i, 0) {
		t.Fatal("no release after a burst of burstMin handshakes over four ticks")
	}
}
