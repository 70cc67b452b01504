package session

import (
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

// slowBroker confirms subscriptions only when told to, like Redis does.
type slowBroker struct {
	h     *hub.Hub
	ready []func()
}

func (b *slowBroker) Publish(m *hub.Message) error        { b.h.Deliver(m); return nil }
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
	r.send(subscribe("news", "", "")) // a repeat while pending answers nothing
	r.send(`{"event":"client-x","channel":"news","data":{}}`)
	r.expect(pusherError(0, "client events are only allowed on private and presence channels that are not encrypted"))
	b.confirm()
	r.expect(succeeded("news"))

	// Unsubscribed before the broker confirms: never attached, channel released.
	r.send(subscribe("later", "", ""))
	r.send(`{"event":"pusher:unsubscribe","data":{"channel":"later"}}`)
	b.confirm()
	if got := f.env.Hub.Channel("app-id", "later"); got.Occupied {
		t.Fatalf("a subscription cancelled while pending still holds the channel: %+v", got)
	}
	r.expect() // a cancelled subscription is not answered
}

// TestPendingSubscriptionAllowsNoClientEvents: a client event on a channel
// whose subscription has not succeeded yet is refused.
func TestPendingSubscriptionAllowsNoClientEvents(t *testing.T) {
	f := newFixture(t, nil)
	b := &slowBroker{h: f.env.Hub}
	f.env.Hub.SetBroker(b)
	r := f.connect()
	r.send(signed("private-c", "")(r))
	r.send(`{"event":"client-x","channel":"private-c","data":{}}`)
	r.expect(pusherError(0, `not subscribed to channel "private-c"`))
	b.confirm()
	r.expect(succeeded("private-c"))
}
