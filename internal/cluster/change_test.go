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

// TestUnsettledSignOutIsDeferred: a user's last sign-out here while the
// store cannot confirm it (away, or the node not settled) is not announced
// but deferred, with no hold (no webhook waits on it); a sign-in before it
// is announced is no comeback to announce either.
func TestUnsettledSignOutIsDeferred(t *testing.T) {
	for name, answer := range map[string]func(c *Change, d *Departures) bool{
		"store away":  func(c *Change, d *Departures) bool { return c.LocalAnswer(d) },
		"not settled": func(c *Change, d *Departures) bool { return c.Answer(1, 0, false, d) },
	} {
		var d Departures
		out := &Change{Kind: SignOut, App: "a", Member: hub.Member{ID: "u"}, Local: true}
		if answer(out, &d) || out.Held {
			t.Fatalf("%s: a sign-out announced (or held) while the store cannot confirm it", name)
		}
		in := &Change{Kind: SignIn, App: "a", Member: hub.Member{ID: "u"}, Local: true}
		if in.Answer(0, 1, true, &d) || !in.Returned || in.Unhold {
			t.Fatalf("%s: the sign-in back is announced (returned %v, unhold %v)", name, in.Returned, in.Unhold)
		}
		if got := d.Take(); len(got) != 0 {
			t.Fatalf("%s: deferred %v after the sign-in back, want nothing", name, got)
		}
	}
	var d Departures
	out := &Change{Kind: SignOut, App: "a", Member: hub.Member{ID: "u"}, Local: true}
	out.LocalAnswer(&d)
	if got := d.Take(); len(got) != 1 || got[Departure{App: "a", User: "u"}] {
		t.Fatalf("deferred %v, want u's sign-out, not held in the store", got)
	}
}
