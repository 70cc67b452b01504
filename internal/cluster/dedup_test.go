package cluster

import (
	"testing"
	"time"
)

// TestSeenDeliversEachNumberOnce: within the DefaultWindow every number passes
// once, in any order; numbers older than the DefaultWindow count as seen; each
// node has its own numbers.
func TestSeenDeliversEachNumberOnce(t *testing.T) {
	var s Seen
	now := time.Unix(0, 0)
	for _, step := range []struct {
		node  string
		seq   uint64
		first bool
	}{
		{"a", 1, true}, {"a", 1, false}, {"a", 3, true}, {"a", 2, true}, {"a", 2, false}, {"a", 3, false},
		{"b", 2, true}, {"a", DefaultWindow + 3, true}, {"a", 4, true}, {"a", 3, false}, {"a", DefaultWindow + 2, true},
		{"a", 10 * DefaultWindow, true}, {"a", 9 * DefaultWindow, false}, {"a", 10*DefaultWindow - 1, true}, {"a", 10*DefaultWindow - 1, false},
		{"b", 1, true}, {"b", 2, false},
	} {
		if got := s.First(step.node, step.seq, now); got != step.first {
			t.Fatalf("%s %d: first = %v, want %v", step.node, step.seq, got, step.first)
		}
	}
}

// TestSeenForgetsSilentNodes: nodes that stopped publishing (they restart
// with new ids) are forgotten once there are many.
func TestSeenForgetsSilentNodes(t *testing.T) {
	var s Seen
	start := time.Unix(0, 0)
	for i := range maxStreams {
		s.First(string(rune('A'+i)), 1, start)
	}
	s.First("new", 1, start.Add(forgetAfter+time.Second))
	if len(s.streams) != 1 {
		t.Fatalf("%d DefaultWindows kept, want only the new node's", len(s.streams))
	}
}

// TestSeenWindowIsSet: a wider window remembers numbers the default
// forgets.
func TestSeenWindowIsSet(t *testing.T) {
	s := Seen{Window: 4 * DefaultWindow}
	now := time.Unix(0, 0)
	s.First("a", 1, now)
	s.First("a", 3*DefaultWindow, now)
	if s.First("a", 1, now) || !s.First("a", 2, now) {
		t.Fatal("a window of 4x the default forgot a number 3x the default below the highest")
	}
}
