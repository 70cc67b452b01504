// Package clustertest holds what the tests of both cluster backends use:
// recorders of what a node delivers and reports, and the checks every
// backend must pass, written once. Only tests import it.
package clustertest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// Inbox records the messages delivered to a node.
type Inbox struct {
	mu  sync.Mutex
	got []hub.Message
}

// Deliver records m; it is a node's Deliver.
func (b *Inbox) Deliver(m *hub.Message) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, *m)
}

// Count is how many delivered messages had event and data.
func (b *Inbox) Count(event, data string) int {
	return b.matching(func(m *hub.Message) bool { return m.Event == event && m.Data == data })
}

// Has reports whether a message with event and data was delivered.
func (b *Inbox) Has(event, data string) bool { return b.Count(event, data) > 0 }

// HasOn reports whether a message with event and data was delivered on
// channel.
func (b *Inbox) HasOn(channel, event, data string) bool {
	return b.matching(func(m *hub.Message) bool { return m.Channel == channel && m.Event == event && m.Data == data }) > 0
}

func (b *Inbox) matching(match func(m *hub.Message) bool) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for i := range b.got {
		if match(&b.got[i]) {
			n++
		}
	}
	return n
}

// Occupancy counts the channel_occupied and channel_vacated reports of the
// nodes it observes.
type Occupancy struct {
	hub.NopObserver
	Occupied, Vacated atomic.Int32
}

// ChannelOccupied implements hub.Observer.
func (o *Occupancy) ChannelOccupied(app, channel string) { o.Occupied.Add(1) }

// ChannelVacated implements hub.Observer.
func (o *Occupancy) ChannelVacated(app, channel string) { o.Vacated.Add(1) }

// PresenceFirstAndLast checks, on the presence of two nodes of one
// cluster, that a user's first connection anywhere adds the member and
// its last removes it.
func PresenceFirstAndLast(t *testing.T, a, b hub.Presence) {
	t.Helper()
	ctx := context.Background()
	if first, err := a.Join(ctx, "app", "presence-x", hub.Member{ID: "u", Info: `{"n":1}`}, 100); err != nil || !first {
		t.Fatalf("first join: %v %v", first, err)
	}
	if first, _ := b.Join(ctx, "app", "presence-x", hub.Member{ID: "u", Info: `{"n":2}`}, 100); first {
		t.Fatal("the user's tab on another node counted as a new member")
	}
	m, _ := b.Members(ctx, "app", "presence-x")
	if len(m) != 1 || m[0].ID != "u" || m[0].Info != `{"n":1}` {
		t.Fatalf("members %+v, want u with the first tab's info", m)
	}
	if last, _ := a.Leave(ctx, "app", "presence-x", "u"); last {
		t.Fatal("member_removed while a tab on another node is still there")
	}
	if last, _ := b.Leave(ctx, "app", "presence-x", "u"); !last {
		t.Fatal("the last tab's leave did not report the member gone")
	}
	if m, _ := a.Members(ctx, "app", "presence-x"); len(m) != 0 {
		t.Fatalf("members %+v after the last leave", m)
	}
}

// PresenceLimit checks that a presence channel's member limit holds across
// two nodes, and still lets a member open another tab.
func PresenceLimit(t *testing.T, a, b hub.Presence) {
	t.Helper()
	ctx := context.Background()
	a.Join(ctx, "app", "presence-y", hub.Member{ID: "u1"}, 2)
	b.Join(ctx, "app", "presence-y", hub.Member{ID: "u2"}, 2)
	if _, err := a.Join(ctx, "app", "presence-y", hub.Member{ID: "u3"}, 2); err != hub.ErrChannelFull {
		t.Fatalf("third member: %v, want ErrChannelFull", err)
	}
	if first, err := b.Join(ctx, "app", "presence-y", hub.Member{ID: "u1"}, 2); err != nil || first {
		t.Fatalf("a second tab of a member of a full channel: first %v, err %v; want false, nil", first, err)
	}
}

// ReadyMeansSubscribed checks that once b's Subscribe says ready, an event
// a publishes is delivered on b (to box), round after round.
func ReadyMeansSubscribed(t *testing.T, a, b hub.Broker, box *Inbox, wait time.Duration) {
	t.Helper()
	for i := range 100 {
		ch := fmt.Sprint("round-", i)
		ready := make(chan struct{})
		b.Subscribe("app", ch, func() { close(ready) })
		<-ready
		a.Publish(&hub.Message{App: "app", Channel: ch, Event: "e", Data: ch})
		testutil.Eventually(t, wait, "delivery of "+ch, func() bool { return box.Has("e", ch) })
	}
}
