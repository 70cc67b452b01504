package cluster

import (
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

func TestApplyLocalAndUndo(t *testing.T) {
	p, u := hub.NewMemoryPresence(), hub.NewMemoryUsers()
	join := &Change{Kind: Join, App: "a", Channel: "presence-c", Member: hub.Member{ID: "u"}, Max: 1}
	if err := join.ApplyLocal(p, u); err != nil || !join.Local {
		t.Fatalf("first join: local %v, err %v", join.Local, err)
	}
	if err := (&Change{Kind: Join, App: "a", Channel: "presence-c", Member: hub.Member{ID: "v"}, Max: 1}).ApplyLocal(p, u); err != hub.ErrChannelFull {
		t.Fatalf("join past the limit: %v, want ErrChannelFull", err)
	}
	join.Undo()
	leave := &Change{Kind: Leave, App: "a", Channel: "presence-c", Member: hub.Member{ID: "u"}}
	leave.ApplyLocal(p, u)
	if leave.Local {
		t.Fatal("a leave after the join was taken back reported the last tab")
	}
	in := &Change{Kind: SignIn, App: "a", Member: hub.Member{ID: "u"}}
	in.ApplyLocal(p, u)
	out := &Change{Kind: SignOut, App: "a", Member: hub.Member{ID: "u"}}
	out.ApplyLocal(p, u)
	if !in.Local || !out.Local || in.Delta() != 1 || out.Delta() != -1 {
		t.Fatalf("sign-in %v (%d), sign-out %v (%d); want first and last", in.Local, in.Delta(), out.Local, out.Delta())
	}
}

func TestUnsettledLeaveIsDeferred(t *testing.T) {
	var d Departures
	leave := &Change{Kind: Leave, App: "a", Channel: "presence-c", Member: hub.Member{ID: "u"}, Local: true}
	if leave.LocalAnswer(&d) || leave.Answer(1, 0, false, &d) {
		t.Fatal("a departure announced while the store cannot confirm it")
	}
	if got := d.Take(); len(got) != 1 || !got[Departure{App: "a", Channel: "presence-c", User: "u"}] || !leave.Held {
		t.Fatalf("deferred %v (held %v), want u's departure, held in the store", got, leave.Held)
	}
	if !leave.Answer(1, 0, true, &d) || leave.Answer(2, 1, true, &d) || len(d.Take()) != 0 {
		t.Fatal("a settled leave: want gone only at zero, nothing deferred")
	}
	join := &Change{Kind: Join}
	if !join.Answer(0, 1, false, &d) || join.Answer(1, 2, true, &d) {
		t.Fatal("a join is first only from zero")
	}
}

// TestComebackOfDeferredLeaveIsNotAnnounced: a member leaves while its
// departure cannot be confirmed and joins again before it is announced;
// nobody was told it left, so its return is no member_added, and the
// departure is forgotten.
func TestComebackOfDeferredLeaveIsNotAnnounced(t *testing.T) {
	for _, answer := range []func(c *Change, d *Departures) bool{
		func(c *Change, d *Departures) bool { return c.Answer(0, 1, true, d) },
		func(c *Change, d *Departures) bool { return c.LocalAnswer(d) },
	} {
		var d Departures
		leave := &Change{Kind: Leave, App: "a", Channel: "presence-c", Member: hub.Member{ID: "u"}, Local: true}
		leave.Answer(1, 0, false, &d)
		join := &Change{Kind: Join, App: "a", Channel: "presence-c", Member: hub.Member{ID: "u"}, Local: true}
		if answer(join, &d) {
			t.Fatal("the comeback of a member whose departure was never announced is announced")
		}
		if got := d.Take(); len(got) != 0 || !join.Unhold {
			t.Fatalf("deferred %v after the comeback (unhold %v), want nothing, and the hold removed", got, join.Unhold)
		}
		if got := greeted(join); len(got) != 1 || got[0].Event != "pusher_internal:member_added" || got[0].Except != "" {
			t.Fatalf("greeted %v, want one member_added for this node's subscribers", got)
		}
		if !answer(join, &d) || len(greeted(join)) != 0 {
			t.Fatal("a later first join is not announced, or greeted here alone")
		}
	}
}

// greeted returns what c's Greet delivers.
func greeted(c *Change) []*hub.Message {
	var got []*hub.Message
	c.Greet(func(m *hub.Message) { got = append(got, m) })
	return got
}
