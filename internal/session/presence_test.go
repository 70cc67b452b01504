package session

import "testing"

// Member events go to the others once per user, not per connection
// (Pusher docs, "Presence channels": member_added on a user's first
// connection, member_removed when the last one leaves).
func TestPresenceMemberEventsPerUser(t *testing.T) {
	f := newFixture(t, nil)
	watcher, tab1, tab2 := f.connect(), f.connect(), f.connect()
	watcher.join("presence-r", `{"user_id":"w"}`)

	tab1.join("presence-r", alice)
	watcher.expect(event("pusher_internal:member_added", "presence-r", `{"user_id":"alice","user_info":{"name":"Alice"}}`))
	tab1.expect() // never told of its own arrival

	tab2.send(signed("presence-r", alice)(tab2))
	tab2.expect(event("pusher_internal:subscription_succeeded", "presence-r",
		`{"presence":{"ids":["alice","w"],"hash":{"alice":{"name":"Alice"},"w":null},"count":2}}`)) // in user id order
	watcher.expect() // alice's second tab is not a new member

	tab1.send(`{"event":"pusher:unsubscribe","data":{"channel":"presence-r"}}`)
	tab1.expect() // Pusher sends no reply to an unsubscribe
	watcher.expect()

	tab2.close()
	watcher.expect(event("pusher_internal:member_removed", "presence-r", `{"user_id":"alice"}`))
}

// TestUnsubscribe: no reply, no more events, and an unknown or reserved
// channel is ignored.
func TestUnsubscribe(t *testing.T) {
	cases := []struct {
		name    string
		send    string
		want    []string
		stillIn bool // still receives news events
	}{
		{"subscribed channel", `{"event":"pusher:unsubscribe","data":{"channel":"news"}}`, nil, false},
		{"channel never joined", `{"event":"pusher:unsubscribe","data":{"channel":"other"}}`, nil, true},
		{"no channel", `{"event":"pusher:unsubscribe","data":{}}`,
			[]string{pusherError(0, "The pusher:unsubscribe data has no channel.")}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			r := f.connect()
			r.join("news", "")
			r.send(tc.send)
			r.expect(tc.want...)
			f.publish("news", "e", "after")
			if tc.stillIn {
				r.expect(event("e", "news", "after"))
			} else {
				r.expect()
			}
		})
	}
}

// TestUnsubscribeCountsDown: with subscription counts on, the others learn
// the new count when a subscriber leaves.
func TestUnsubscribeCountsDown(t *testing.T) {
	f := newFixture(t, nil)
	f.env.Config.Apps[0].SubscriptionCount = true
	a, b := f.connect(), f.connect()
	a.join("news", "")
	b.join("news", "")
	a.take()
	b.send(`{"event":"pusher:unsubscribe","data":{"channel":"news"}}`)
	b.expect()
	a.expect(event("pusher_internal:subscription_count", "news", `{"subscription_count":1}`))
}
