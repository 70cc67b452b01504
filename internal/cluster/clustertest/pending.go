package clustertest

import (
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/webhook"
)

// PendingIsSharedAndTokened checks two nodes' webhook.Pending on one
// store: a hold made on one is cancelled from the other, once; a take
// takes only its own hold; a batch runs in order; and a cancel or take
// asked again with its token (after an answer that never came) finds its
// own receipt, where any other finds nothing.
func PendingIsSharedAndTokened(t *testing.T, a, b webhook.Pending) {
	t.Helper()
	const key = "vacated:app:c"
	apply := func(p webhook.Pending, ops ...webhook.Op) []bool {
		p.Apply(ops)
		found := make([]bool, len(ops))
		for i := range ops {
			found[i] = ops[i].Found
		}
		return found
	}
	hold := func(token string) webhook.Op {
		return webhook.Op{Kind: webhook.OpHold, Key: key, Token: token, TTL: time.Minute}
	}
	cancel := func(token string) webhook.Op { return webhook.Op{Kind: webhook.OpCancel, Key: key, Token: token} }
	take := func(token string) webhook.Op { return webhook.Op{Kind: webhook.OpTake, Key: key, Token: token} }
	apply(a, hold("1.1"))
	if got, want := apply(b, cancel("2.1"), cancel("2.2"), cancel("2.1")), []bool{true, false, true}; !slices.Equal(got, want) {
		t.Fatalf("cancels from another node found %v, want %v: the hold once, and the first cancel's receipt", got, want)
	}
	if got := apply(a, take("1.1")); got[0] {
		t.Fatal("the take of a cancelled hold found it")
	}
	got := apply(b, hold("1.2"), hold("2.1"), take("1.2"), take("2.1"), take("2.1"), cancel("3.1"))
	if want := []bool{false, false, false, true, true, false}; !slices.Equal(got, want) {
		t.Fatalf("batch found %v, want %v: only the newest hold, taken, its receipt, and nothing to cancel", got, want)
	}
	if got := apply(a, webhook.Op{Kind: webhook.OpTake, Key: "vacated:app:none", Token: "1.1"}); got[0] {
		t.Fatal("a take of a key never held found it")
	}
}
