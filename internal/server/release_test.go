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
	if !b.on {
		t.Fatal("the handshakeBurst within releaseGap was forgotten")
	}
	if !b.tick(count, start.Add(releaseGap+time.Hour)) {
		t.Fatal("no release once releaseGap had passed after the second handshakeBurst")
	}
}
