package natsstore

import (
	"slices"
	"testing"
)

// seqs lists the numbers of what u holds.
func seqs(u *unconfirmed) []uint64 {
	var out []uint64
	for _, w := range u.all() {
		out = append(out, w.seq)
	}
	return out
}

// TestUnconfirmedKeepsWhatNATSHasNotConfirmed: a confirmation forgets the
// messages up to its number and keeps the later ones; beyond max the
// oldest go first.
func TestUnconfirmedKeepsWhatNATSHasNotConfirmed(t *testing.T) {
	u := unconfirmed{max: 3}
	for seq := uint64(1); seq <= 4; seq++ {
		u.add(written{seq: seq})
	}
	if got := seqs(&u); !slices.Equal(got, []uint64{2, 3, 4}) {
		t.Fatalf("held %v, want the 3 newest", got)
	}
	u.confirmed(2)
	if got := seqs(&u); !slices.Equal(got, []uint64{3, 4}) {
		t.Fatalf("held %v after confirming up to 2, want 3 and 4", got)
	}
	u.confirmed(9)
	if got := seqs(&u); len(got) != 0 {
		t.Fatalf("held %v after confirming everything", got)
	}
}
