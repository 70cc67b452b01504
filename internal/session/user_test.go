package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// signin builds a pusher:signin of r for userData, signed with the
// development app's secret unless sig is given.
func (r *recorder) signin(userData string, sig ...string) string {
	if len(sig) == 0 {
		sig = []string{"app-key:" + auth.Sign("app-secret", auth.UserMessage(r.socketID(), userData))}
	}
	return message("pusher:signin", "", map[string]string{"auth": sig[0], "user_data": userData})
}

func signinSuccess(userData string) string {
	return `{"event":"pusher:signin_success","data":` + quoted(`{"user_data":`+quoted(userData)+`}`) + `}`
}

// watchlist is a pusher_internal:watchlist_events with one entry per
// non-empty list.
func watchlist(online, offline []string) string {
	var events []map[string]any
	if len(online) > 0 {
		events = append(events, map[string]any{"name": "online", "user_ids": online})
	}
	if len(offline) > 0 {
		events = append(events, map[string]any{"name": "offline", "user_ids": offline})
	}
	data, _ := json.Marshal(map[string]any{"events": append([]map[string]any{}, events...)})
	return `{"event":"pusher_internal:watchlist_events","data":` + quoted(string(data)) + `}`
}

// TestSignin checks pusher:signin (Pusher docs, "User authentication"):
// success, or pusher:error 4009 and a close with 4009.
func TestSignin(t *testing.T) {
	const aliceData = `{"id":"alice","user_info":{"name":"Alice"}}`
	unauthorized := func(msg string) []string { return []string{pusherError(pusher.Unauthorized, msg)} }
	ids := make([]string, 101)
	for i := range ids {
		ids[i] = fmt.Sprint("u", i)
	}
	long, _ := json.Marshal(map[string]any{"id": "alice", "watchlist": ids})
	cases := []struct {
		name   string
		before func(*recorder) // its replies are dropped
		send   func(*recorder) string
		want   []string
		close  ws.CloseCode
	}{
		{name: "good", send: func(r *recorder) string { return r.signin(aliceData) }, want: []string{signinSuccess(aliceData)}},
		{name: "with a watchlist", send: func(r *recorder) string { return r.signin(`{"id":"alice","watchlist":["bob"]}`) },
			want: []string{signinSuccess(`{"id":"alice","watchlist":["bob"]}`), watchlist(nil, nil)}},
		{name: "watchlist over 100", send: func(r *recorder) string { return r.signin(string(long)) },
			want: []string{signinSuccess(string(long)),
				pusherError(pusher.WatchlistLimit, "a watchlist may name at most 100 users; only the first 100 are watched"),
				watchlist(nil, nil)}},
		{name: "bad signature", send: func(r *recorder) string { return r.signin(aliceData, "app-key:00") },
			want: unauthorized("invalid signature for pusher:signin"), close: 4009},
		{name: "no auth", send: func(*recorder) string { return `{"event":"pusher:signin","data":{"user_data":"{\"id\":\"a\"}"}}` },
			want: unauthorized("The pusher:signin data has no auth."), close: 4009},
		{name: "user_data without id", send: func(r *recorder) string { return r.signin(`{"name":"a"}`) },
			want: unauthorized("The user_data must have an id that is a non-empty string."), close: 4009},
		{name: "user_data not an object", send: func(r *recorder) string { return r.signin(`"alice"`) },
			want: unauthorized("The user_data must be a JSON object."), close: 4009},
		{name: "again as the same user", before: func(r *recorder) { r.send(r.signin(aliceData)) },
			send: func(r *recorder) string { return r.signin(aliceData) }, want: []string{signinSuccess(aliceData)}},
		{name: "again as another user", before: func(r *recorder) { r.send(r.signin(aliceData)) },
			send: func(r *recorder) string { return r.signin(`{"id":"bob"}`) },
			want: unauthorized("already signed in as another user"), close: 4009},
		{name: "own server-to-user channel", before: func(r *recorder) { r.send(r.signin(aliceData)) },
			send: func(*recorder) string { return subscribe("#server-to-user-alice", "", "") },
			want: []string{succeeded("#server-to-user-alice")}},
		{name: "presence without channel_data joins as the user", before: func(r *recorder) { r.send(r.signin(aliceData)) },
			send: signed("presence-r", ""), want: []string{event("pusher_internal:subscription_succeeded", "presence-r", alicePresence)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newFixture(t, nil).connect()
			if tc.before != nil {
				tc.before(r)
				r.take()
			}
			r.send(tc.send(r))
			r.expect(tc.want...)
			if r.closeCode() != tc.close {
				t.Fatalf("close code %d, want %d", r.closeCode(), tc.close)
			}
		})
	}
}

// TestSignedInUser: a user's connections share its server-to-user channel,
// which an unsubscribe cannot leave, and its watchers hear online when the
// first connection signs in and offline when the last one closes (Pusher
// docs, "Watchlist events").
func TestSignedInUser(t *testing.T) {
	f := newFixture(t, nil)
	watcher, tab1, tab2 := f.connect(), f.connect(), f.connect()
	watcher.send(watcher.signin(`{"id":"w","watchlist":["bob"]}`))
	watcher.take()
	online := event("pusher_internal:watchlist_events", hub.WatchlistPrefix+"bob", `{"events":[{"name":"online","user_ids":["bob"]}]}`)
	offline := event("pusher_internal:watchlist_events", hub.WatchlistPrefix+"bob", `{"events":[{"name":"offline","user_ids":["bob"]}]}`)

	tab1.send(tab1.signin(`{"id":"bob"}`))
	watcher.expect(online)
	tab2.send(tab2.signin(`{"id":"bob"}`))
	watcher.expect() // a second connection of bob is not news
	tab1.take()
	tab2.take()

	tab1.send(`{"event":"pusher:unsubscribe","data":{"channel":"#server-to-user-bob"}}`)
	f.publish("#server-to-user-bob", "hello", "{}")
	tab1.expect(event("hello", "#server-to-user-bob", "{}"))
	tab2.expect(event("hello", "#server-to-user-bob", "{}"))

	tab1.close()
	watcher.expect()
	tab2.close()
	watcher.expect(offline)
}

// TestTerminateUser: terminate_connections closes every connection signed
// in as the user with 4009, and only those.
func TestTerminateUser(t *testing.T) {
	f := newFixture(t, nil)
	bob, other := f.connect(), f.connect()
	bob.send(bob.signin(`{"id":"bob"}`))
	other.send(other.signin(`{"id":"carol"}`))
	bob.take()
	other.take()
	f.env.Hub.TerminateUser("app-id", "bob")
	bob.expect(pusherError(pusher.Unauthorized, "connection terminated by the server"))
	if bob.closeCode() != 4009 || other.closeCode() != 0 {
		t.Fatalf("close codes: bob %d, carol %d; want 4009 and none", bob.closeCode(), other.closeCode())
	}
	other.expect()
}

// TestWatchlistNamesUserTwice: a watchlist that names a user twice makes the
// connection one watcher of that user. Two watchers in the hub's list, with
// one position remembered, used to corrupt the list when another watcher
// left, and the loop panicked when this connection closed.
func TestWatchlistNamesUserTwice(t *testing.T) {
	f := newFixture(t, nil)
	carol, alice := f.connect(), f.connect()
	carol.send(carol.signin(`{"id":"carol","watchlist":["bob"]}`))
	alice.send(alice.signin(`{"id":"alice","watchlist":["bob","bob"]}`))
	carol.close()
	bob := f.connect()
	bob.send(bob.signin(`{"id":"bob"}`))
	if got := alice.take(); len(got) != 3 || !strings.Contains(got[2], `online\",\"user_ids\":[\"bob\"]`) {
		t.Fatalf("alice got %q, want one online event for bob after her sign-in", got)
	}
	alice.close()
}
