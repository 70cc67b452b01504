package redisstore

import (
	"testing"
	"time"
)

// TestSeenDeliversEachNumberOnce: within the window every number passes
// once, in any order; numbers older than the window count as seen; each
// node has its own numbers.
func TestSeenDeliversEachNumberOnce(t *testing.T) {
	var s seen
	now := time.Unix(0, 0)
	for _, step := range []struct {
		node  string
		seq   uint64
		first bool
	}{
		{"a", 1, true}, {"a", 1, false}, {"a", 3, true}, {"a", 2, true}, {"a", 2, false}, {"a", 3, false},
		{"b", 2, true}, {"a", window + 3, true}, {"a", 4, true}, {"a", 3, false}, {"a", window + 2, true},
		{"a", 10 * window, true}, {"a", 9 * window, false}, {"a", 10*window - 1, true}, {"a", 10*window - 1, false},
		{"b", 1, true}, {"b", 2, false},
	} {
		if got := s.first(step.node, step.seq, now); got != step.first {
			t.Fatalf("%s %d: first = %v, want %v", step.node, step.seq, got, step.first)
		}
	}
}

// TestSeenForgetsSilentNodes: nodes that stopped publishing (they restart
// with new ids) are forgotten once there are many.
func TestSeenForgetsSilentNodes(t *testing.T) {
	var s seen
	start := time.Unix(0, 0)
	for i := range maxNodes {
		s.first(string(rune('A'+i)), 1, start)
	}
	s.first("new", 1, start.Add(forgetAfter+time.Second))
	if len(s.nodes) != 1 {
		t.Fatalf("%d windows kept, want only the new node's", len(s.nodes))
	}
}
