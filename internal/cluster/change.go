package cluster

// This file is one change of a cluster node's own share of the
// presence members and signed-in users (a join, a leave, a sign-in or a
// sign-out), and the rules both backends apply to it: how it changes the
// node's local share, and what it answers from that share alone or from
// the store's totals around the change. The store's write is the
// backend's.

import (
	"context"

	"github.com/roostproject/roost/internal/hub"
)

// Kind is what a change does.
type Kind uint8

// The kinds of change.
const (
	Join Kind = iota
	Leave
	SignIn
	SignOut
)

// Change is one change of this node's share.
type Change struct {
	Kind    Kind
	App     string
	Channel string     // presence changes only
	Member  hub.Member // the user (ID) and, to join, its info
	Max     int        // Join: the channel's member limit

	Local bool   // the answer from this node's share alone
	Undo  func() // takes the local change back (Join, SignIn)
	// Returned is set by an answer to a join that cancelled the member's
	// deferred departure (see cameBack), Unhold when that departure was
	// held in the store, and Held by an answer that deferred a departure
	// the store made (see Departures.Hold).
	Returned, Unhold, Held bool
}

// Adds reports whether c adds a connection (Join, SignIn).
func (c *Change) Adds() bool { return c.Kind == Join || c.Kind == SignIn }

// Delta is how c moves the user's share: +1 or -1.
func (c *Change) Delta() int {
	if c.Adds() {
		return 1
	}
	return -1
}

// ApplyLocal makes c's change to this node's share (p and u); an error
// (the channel is full already on this node) is c's answer.
func (c *Change) ApplyLocal(p *hub.MemoryPresence, u *hub.MemoryUsers) error {
	ctx := context.Background()
	m := c.Member
	switch c.Kind {
	case Join:
		first, err := p.Join(ctx, c.App, c.Channel, m, c.Max)
		c.Local, c.Undo = first, func() { p.Leave(ctx, c.App, c.Channel, m.ID) }
		return err
	case Leave:
		c.Local, _ = p.Leave(ctx, c.App, c.Channel, m.ID)
	case SignIn:
		c.Local, _ = u.SignIn(ctx, c.App, m.ID)
		c.Undo = func() { u.SignOut(ctx, c.App, m.ID) }
	case SignOut:
		c.Local, _ = u.SignOut(ctx, c.App, m.ID)
	}
	return nil
}

// LocalAnswer is c's answer from this node's share alone, while the store
// is away: a member that leaves, or a user that signs out, is not
// announced yet, but deferred to d (another node may still have it).
func (c *Change) LocalAnswer(d *Departures) bool {
	if !c.Adds() && c.Local {
		d.Add(c.App, c.Channel, c.Member.ID)
		return false
	}
	return c.Local && !c.cameBack(d)
}

// cameBack reports whether c is a join or sign-in of a user whose
// departure d still defers, and forgets that departure: the user never
// left as far as anyone was told, so its return is not announced either.
func (c *Change) cameBack(d *Departures) bool {
	if c.Adds() {
		c.Returned, c.Unhold = d.Cancel(c.App, c.Channel, c.Member.ID)
	}
	return c.Returned
}

// Greet hands member_added of a member that came back to this node's
// subscribers alone, once c is answered: the ones that joined after it
// left learned the members without it, and no node announces it (the
// others never heard it left). The joiner is not attached yet.
func (c *Change) Greet(deliver func(*hub.Message)) {
	if c.Returned && deliver != nil {
		deliver(hub.MemberAdded(c.App, c.Channel, c.Member, ""))
	}
}

// Answer is c's answer from the user's totals across the cluster before
// and after it: whether they left zero (Join, SignIn) or reached it
// (Leave, SignOut); a join that cancels the member's deferred departure is
// not announced (see cameBack). A departure is deferred to d while the
// node is not settled: another node may not have written its share of the
// user again yet; a member's is held in the store meanwhile
// (Departures.Hold), a sign-out has no webhook to hold back.
func (c *Change) Answer(before, after int, settled bool, d *Departures) bool {
	if c.Adds() {
		return !c.cameBack(d) && before == 0
	}
	gone := before > 0 && after == 0
	switch {
	case !gone || settled:
		return gone
	case c.Kind == Leave:
		d.Hold(c.App, c.Channel, c.Member.ID)
		c.Held = true
	default:
		d.Add(c.App, c.Channel, c.Member.ID)
	}
	return false
}
