package session

import (
	"context"
	"slices"
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

// slowBroker confirms subscriptions only when told to, like Redis does,
// and records what is published.
type slowBroker struct {
	h         *hub.Hub
	ready     []func()
	published []string // event names
}

func (b *slowBroker) Publish(m *hub.Message) error {
	b.published = append(b.published, m.Event)
	b.h.Deliver(m)
	return nil
}
func (b *slowBroker) Subscribe(_, _ string, ready func()) { b.ready = append(b.ready, ready) }
func (b *slowBroker) Unsubscribe(_, _ string)             {}
func (b *slowBroker) confirm() {
	for _, f := range b.ready {
		f()
	}
	b.ready = nil
}

func TestSubscriptionWaitsForTheBroker(t *testing.T) {
	f := newFixture(t, nil)
	b := &slowBroker{h: f.env.Hub}
	f.env.Hub.SetBroker(b)
	r := f.connect()
	r.send(subscribe("news", "", ""))
	r.send(subscribe("news", "", ""))                         // a repeat while pending answers nothing
	r.send(`{"event":"client-x","channel":"news","data":{}}`) // waits for the answer
	r.expect()
	b.confirm()
	r.expect(succeeded("news"), pusherError(0, "client events are only allowed on private and presence channels that are not encrypted"))

	// Unsubscribed before the broker confirms: never attached, channel released.
	r.send(subscribe("later", "", ""))
	r.send(`{"event":"pusher:unsubscribe","data":{"channel":"later"}}`)
	b.confirm()
	if got, _ := f.env.Hub.Channel(context.Background(), "app-id", "later"); got.Occupied {
		t.Fatalf("a subscription cancelled while pending still holds the channel: %+v", got)
	}
	r.expect() // a cancelled subscription is not answered
}

// TestClientEventWaitsForItsSubscription: a client event on a channel whose
// subscription has not succeeded yet waits for it, and so does every later
// message; then they are handled in order.
func TestClientEventWaitsForItsSubscription(t *testing.T) {
	f := newFixture(t, nil)
	b := &slowBroker{h: f.env.Hub}
	f.env.Hub.SetBroker(b)
	r := f.connect()
	r.send(signed("private-c", "")(r))
	r.send(`{"event":"client-x","channel":"private-c","data":{}}`)
	r.send(`{"event":"pusher:unsubscribe","data":{"channel":"private-c"}}`)
	r.send(`{"event":"client-y","channel":"private-c","data":{}}`)
	r.expect()
	if len(b.published) > 0 {
		t.Fatalf("published %v before the subscription succeeded", b.published)
	}
	b.confirm()
	r.expect(succeeded("private-c"), pusherError(0, `not subscribed to channel "private-c"`))
	if !slices.Equal(b.published, []string{"client-x"}) {
		t.Fatalf("published %v, want client-x only (client-y came after the unsubscribe)", b.published)
	}
}
